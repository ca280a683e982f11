package ui

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// cpuClock reports the process's CPU time per operation next to the wall
// time: on a machine loaded by other work the wall time measures the
// queue for a core, the CPU time what a frame costs.
type cpuClock struct {
	b     *testing.B
	start time.Duration
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startCPU resets the benchmark's timer and starts counting CPU time.
func startCPU(b *testing.B) *cpuClock {
	b.ReportAllocs()
	b.ResetTimer()
	return &cpuClock{b: b, start: cpuNow()}
}

// stop reports CPU time per operation.
func (c *cpuClock) stop() {
	if c.b.N > 0 {
		c.b.ReportMetric(float64(cpuNow()-c.start)/float64(c.b.N), "cpu-ns/op")
	}
}

// countWriter counts the bytes written to the person's terminal.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// benchOffice is 9 panes of 120×40 (a 362×124 terminal: three columns of
// 120 with two separators; three rows of a title and 40 screen rows, plus
// the status line), each screen filled from the recorded Ink stream
// (colours, attributes, box drawing, CJK and emoji).
func benchOffice(b *testing.B) (*harness, []byte) {
	stream, err := os.ReadFile("../pool/testdata/ink.stream")
	if err != nil {
		b.Skip(err)
	}
	h := newHarness(b, names(9)...)
	h.size(362, 124)
	for _, n := range names(9) {
		a := h.o.agent(n)
		if c, r := a.scr.Size(); c != 120 || r != 40 {
			b.Fatalf("%s is %dx%d", n, c, r)
		}
		a.scr.Feed(stream[:len(stream)/2])
	}
	h.changed()
	return h, stream
}

// BenchmarkView9Panes120x40 measures composing the whole frame from
// scratch (every cell of 9 panes converted into the renderer's buffer, all
// chrome copied in): the cost of a frame after the terminal was resized.
// Target: ≤ 2 ms, no allocation per cell.
func BenchmarkView9Panes120x40(b *testing.B) {
	h, _ := benchOffice(b)
	m := h.m
	defer startCPU(b).stop()
	for b.Loop() {
		m.frame.invalidate()
		m.compose()
	}
}

// BenchmarkFrame9Panes120x40 measures a whole frame with every screen
// read again and the frame forgotten: the screen copies, every cell
// converted and handed to the renderer, whose diff writes nothing but
// repaints every row holding a wide rune (the Ink stream has some on
// almost every row). The UI forgets its frame only on a resize, when the
// terminal is repainted anyway (BenchmarkFrame9Repaint).
func BenchmarkFrame9Panes120x40(b *testing.B) {
	h, _ := benchOffice(b)
	m := h.m
	m.out = newOutput(io.Discard, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
	defer startCPU(b).stop()
	for b.Loop() {
		for _, p := range m.panes {
			p.stale = true
		}
		m.frame.invalidate()
		m.readScreens(true)
		m.dirty = true
		m.draw()
	}
}

// BenchmarkOneBusyPaneBytes measures what one busy pane of nine costs the
// person's terminal: the Ink stream fed to one agent in 4 KiB reads, a
// frame drawn after each, bytes written per read reported.
func BenchmarkOneBusyPaneBytes(b *testing.B) {
	h, stream := benchOffice(b)
	m := h.m
	w := &countWriter{}
	m.out = newOutput(w, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
	m.dirty = true
	m.draw()
	a := h.o.agent("agent5")
	defer startCPU(b).stop()
	w.n = 0
	off, reads := 0, 0
	for b.Loop() {
		if off+4096 > len(stream) {
			off = 0
		}
		a.scr.Feed(stream[off : off+4096])
		off += 4096
		reads++
		m.Update(changedMsg{bg: true})
	}
	b.ReportMetric(float64(w.n)/float64(reads), "bytes/read")
}

// spinner is what a busy agent's spinner row shows, frame after frame.
var spinner = []string{"|", "/", "-", "\\"}

// BenchmarkFrame9OneRow measures the busy case: one pane of nine changes
// one row (a spinner and its counter, as Claude Code's "✻ Pondering…" row
// does), the UI reads that screen and writes the frame. ascii: the row and
// every row beside it on the terminal are ASCII; cjk: the row shares the
// terminal's row with wide characters (the other panes' and its own);
// composer: ascii with the composer open over the panes. Reported: bytes
// written to the terminal per frame.
func BenchmarkFrame9OneRow(b *testing.B) {
	for _, c := range []struct {
		name string
		row  int // screen row of agent5 (1-based)
		keys string
	}{{"ascii", 38, ""}, {"cjk", 5, ""}, {"composer", 38, "\x1dmhello"}} {
		b.Run(c.name, func(b *testing.B) {
			h, _ := benchOffice(b)
			m := h.m
			if c.keys != "" {
				h.keys(c.keys)
			}
			w := &countWriter{}
			m.out = newOutput(w, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
			m.dirty = true
			m.draw()
			a := h.o.agent("agent5")
			var seqs [][]byte
			for i := range 40 {
				seqs = append(seqs, []byte(fmt.Sprintf("\x1b[%d;3H\x1b[33m%s\x1b[0m Working %2ds", c.row, spinner[i%len(spinner)], i)))
			}
			defer startCPU(b).stop()
			w.n = 0
			frames := 0
			for b.Loop() {
				a.scr.Feed(seqs[frames%len(seqs)])
				frames++
				m.Update(changedMsg{bg: true})
			}
			b.ReportMetric(float64(w.n)/float64(frames), "bytes/frame")
		})
	}
}

// BenchmarkFrame9HelpBox measures opening and closing a box (the help)
// over 9 panes: what the box covers and then uncovers is drawn again, the
// rest of the frame is left alone. Reported: bytes per frame.
func BenchmarkFrame9HelpBox(b *testing.B) {
	h, _ := benchOffice(b)
	m := h.m
	w := &countWriter{}
	m.out = newOutput(w, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
	m.dirty = true
	m.draw()
	defer startCPU(b).stop()
	w.n = 0
	frames := 0
	for b.Loop() {
		h.keys("\x1d?")
		if m.overlay != overlayHelp {
			b.Fatal("the help did not open")
		}
		h.keys("\x1d?")
		if m.overlay != overlayNone {
			b.Fatal("the help did not close")
		}
		frames += 2
	}
	b.ReportMetric(float64(w.n)/float64(frames), "bytes/frame")
}

// BenchmarkFrame9Repaint measures a frame drawn afresh on the terminal
// (after a resize or a reattach): every cell of 9 panes converted and
// written. Reported: bytes per frame.
func BenchmarkFrame9Repaint(b *testing.B) {
	h, _ := benchOffice(b)
	m := h.m
	w := &countWriter{}
	m.out = newOutput(w, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
	m.dirty = true
	m.draw()
	defer startCPU(b).stop()
	w.n = 0
	frames := 0
	for b.Loop() {
		// What a terminal resize does: the renderer erases the screen,
		// the frame forgets its cells.
		m.out.r.Erase()
		m.frame.invalidate()
		m.frame.dirty = true
		m.dirty = true
		m.draw()
		frames++
	}
	b.ReportMetric(float64(w.n)/float64(frames), "bytes/frame")
}

// TestFrameAllocationsDoNotGrowWithCells checks the frame allocates nothing
// per cell: composing 9 panes costs the same few allocations (titles and
// the chrome's cache keys) at 1,900 cells a pane as at 4,800.
func TestFrameAllocationsDoNotGrowWithCells(t *testing.T) {
	var got [2]float64
	for i, sz := range [][2]int{{200, 64}, {362, 124}} {
		h := newHarness(t, names(9)...)
		h.size(sz[0], sz[1])
		h.m.compose()
		got[i] = testing.AllocsPerRun(20, func() {
			h.m.frame.invalidate()
			h.m.compose()
		})
	}
	if got[1] > got[0]+5 {
		t.Errorf("a full frame allocates %.0f times at 200×64 and %.0f at 362×124: it grows with the cells", got[0], got[1])
	}
}

// BenchmarkKeyToEcho measures the UI's part of a keystroke's round trip
// with 9 panes of 120×40: the key encoded and handed to the office, the
// agent's echo (a real VT screen) announced, the notifier's message
// taken, the frame composed and its diff written to the terminal.
func BenchmarkKeyToEcho(b *testing.B) {
	h, _ := benchOffice(b)
	m := h.m
	m.out = newOutput(io.Discard, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
	msgs := make(chan changedMsg, 16)
	m.notify = newNotifier(func(c changedMsg) { msgs <- c })
	m.focusChanged()
	stop := h.o.Watch(m.notify.change)
	defer stop()
	h.o.agent("agent1").echo = true
	m.dirty = true
	m.draw()
	key := tea.KeyPressMsg{Code: 'x', Text: "x"}
	defer startCPU(b).stop()
	for b.Loop() {
		m.Update(key)
		for msg := range msgs {
			m.Update(msg)
			if msg.focus {
				break
			}
		}
	}
}

// BenchmarkEchoFrame is a key's echo in one pane of 120×40, the person's
// terminal that size: the agent redraws its prompt row and the frame is
// composed and written. With the roster rail open ("rail") the rail's rows
// are not rendered again: they did not change (each row's style rendered
// anew was 0.23 ms a frame).
func BenchmarkEchoFrame(b *testing.B) {
	for _, c := range []struct {
		name string
		rail bool
	}{{"plain", false}, {"rail", true}} {
		b.Run(c.name, func(b *testing.B) {
			h := newHarnessOpts(b, Options{Roster: c.rail}, "a")
			h.size(120, 40)
			m := h.m
			w := &countWriter{}
			m.out = newOutput(w, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
			m.dirty = true
			m.draw()
			a := h.o.agent("a")
			echo := [][]byte{
				[]byte("\x1b[3;1H❯\u00a0x\x1b[7m \x1b[0m\x1b[K\x1b[3;4H"),
				[]byte("\x1b[3;1H❯\u00a0\x1b[7m \x1b[0m\x1b[K\x1b[3;3H"),
			}
			defer startCPU(b).stop()
			w.n = 0
			frames := 0
			for b.Loop() {
				a.scr.Feed(echo[frames%2])
				frames++
				m.Update(changedMsg{focus: true})
			}
			if w.n == 0 {
				b.Fatal("nothing was drawn")
			}
			b.ReportMetric(float64(w.n)/float64(frames), "bytes/frame")
		})
	}
}
