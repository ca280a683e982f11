package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// touchedRows returns the frame rows marked for the renderer since the
// last reset, and resets the marks.
func touchedRows(f *frame) []int {
	var rows []int
	for y, t := range f.buf.Touched {
		if t != nil && (t.FirstCell != -1 || t.LastCell != -1) {
			rows = append(rows, y)
		}
		f.buf.Touched[y] = nil
	}
	return rows
}

// paneRow is the frame row of agent's screen row y (0-based).
func paneRow(h *harness, agent string, y int) int {
	for _, p := range h.m.panes {
		if p.info.Name == agent {
			return p.box.Y + 1 + y
		}
	}
	h.t.Fatalf("no pane %s", agent)
	return 0
}

// TestOnlyChangedCellsAreConverted: a frame after one agent changed one
// row converts only that row's changed cells (wide runes too) and marks
// only that row for the renderer; a frame where no screen changed (a
// title did) converts none.
func TestOnlyChangedCellsAreConverted(t *testing.T) {
	h := newHarness(t, names(4)...)
	h.size(160, 45)
	h.m.draw()
	f := h.m.frame
	if f.converted < 4*79*21 {
		t.Fatalf("the first frame converted %d cells, want every body cell", f.converted)
	}
	touchedRows(f)

	// Nothing on any screen changed: a status moves a title only.
	f.converted = 0
	h.o.set("agent3", func(a *fakeAgent) { a.info.Status = "busy" })
	h.changed()
	if f.converted != 0 {
		t.Errorf("a title change converted %d cells", f.converted)
	}
	if rows := touchedRows(f); len(rows) != 1 || rows[0] != paneRow(h, "agent3", -1) {
		t.Errorf("a title change touched rows %v, want only agent3's title row %d", rows, paneRow(h, "agent3", -1))
	}

	// One row of one agent: "abc" over what row 6 held (blank).
	f.converted = 0
	h.o.feed("agent2", "\x1b[6;1Habc")
	h.changed()
	if f.converted != 3 {
		t.Errorf("a 3-cell change converted %d cells", f.converted)
	}
	y := paneRow(h, "agent2", 5)
	if rows := touchedRows(f); len(rows) != 1 || rows[0] != y {
		t.Errorf("a one-row change touched rows %v, want [%d]", rows, y)
	}

	// Wide runes: two CJK runes are four cells (each rune and its right
	// half), and they land where the agent put them.
	f.converted = 0
	h.o.feed("agent2", "\x1b[6;1H中文\x1b[31mX")
	h.changed()
	if f.converted != 5 {
		t.Errorf("writing 中文 and a red X converted %d cells, want 5", f.converted)
	}
	if rows := touchedRows(f); len(rows) != 1 || rows[0] != y {
		t.Errorf("the CJK change touched rows %v, want [%d]", rows, y)
	}
	p := h.m.panes[1]
	line := f.buf.Lines[y]
	if c := line[p.box.X]; c.Content != "中" || c.Width != 2 {
		t.Errorf("cell 0 is %q width %d, want 中 width 2", c.Content, c.Width)
	}
	if c := line[p.box.X+1]; c.Content != "" || c.Width != 0 {
		t.Errorf("cell 1 is %q width %d, want the right half of 中", c.Content, c.Width)
	}
	if c := line[p.box.X+4]; c.Content != "X" || !colorEq(c.Style.Fg, ansi.BasicColor(1)) {
		t.Errorf("cell 4 is %q in %v, want a red X", c.Content, c.Style.Fg)
	}
	if got := strings.TrimRight(line[p.box.X:p.box.X+p.box.W].String(), " "); got != "中文X" {
		t.Errorf("row reads %q", got)
	}
}

// TestIncrementalFrameIsTheFreshFrame: after each step (output, boxes
// opening and closing over wide runes, the rail, zoom, focus, a starting
// agent's waiting line coming and going) the frame kept from frame to
// frame is exactly what a new frame composes from scratch.
func TestIncrementalFrameIsTheFreshFrame(t *testing.T) {
	h := newHarness(t, names(4)...)
	h.o.set("agent4", func(a *fakeAgent) {
		a.info.Status, a.info.ReadyMarkers, a.info.Started, a.info.BootGrace = "starting", []string{"? for shortcuts"}, testClock.Add(-4*time.Second), 35*time.Second
	})
	h.size(150, 40)
	steps := []struct {
		name string
		do   func()
	}{
		{"start", func() {}},
		{"output", func() { h.o.feed("agent1", "\r\n中文 ok 🙂 \x1b[44mblue\x1b[0m 全角テキスト") }},
		{"help open", func() { h.keys("\x1d?") }},
		{"output under the box", func() { h.o.feed("agent1", "\x1b[2;40H日本語が箱の下に") }},
		{"help closed", func() { h.keys("\x1d?") }},
		{"agent4 ready", func() { h.o.set("agent4", func(a *fakeAgent) { a.info.Status = "idle" }) }},
		{"agent4 starting again", func() {
			// The same waiting line as before: the same cached render.
			h.o.set("agent4", func(a *fakeAgent) { a.info.Status = "starting" })
		}},
		{"rail", func() { h.keys("\x1dr") }},
		{"focus", func() { h.keys("\x1d2") }},
		{"zoom", func() { h.keys("\x1dz") }},
		{"unzoom", func() { h.keys("\x1dz") }},
		{"queue panel", func() { h.enqueue("agent2", "later"); h.keys("\x1dq") }},
		{"queue panel closed", func() { h.keys("\x1dq") }},
		{"rail off", func() { h.keys("\x1dr") }},
		{"scroll", func() { h.o.feed("agent3", strings.Repeat("line 中\r\n", 30)) }},
	}
	for _, s := range steps {
		s.do()
		h.changed()
		sameAsFresh(t, h, s.name)
	}
}

// sameAsFresh fails the test when h's kept frame is not the frame drawn
// afresh from the same state.
func sameAsFresh(t *testing.T, h *harness, after string) {
	t.Helper()
	old := h.m.frame
	got := old.styled(colorprofile.TrueColor)
	restore := keepDrawState(h.m)
	fresh := newFrame()
	// Past every epoch and compose the old frame counted, so no pane
	// or chrome takes itself for drawn.
	fresh.epoch, fresh.n = old.epoch+1<<20, old.n+1<<20
	h.m.frame = fresh
	h.m.dirty = true
	h.m.draw()
	if want := fresh.styled(colorprofile.TrueColor); got != want {
		t.Fatalf("after %q the kept frame differs from a fresh one:\n--- kept:\n%s\n--- fresh:\n%s", after, got, want)
	}
	h.m.frame = old
	restore()
}

// TestIncrementalFrameWithNoAgents: with no pane, the body is cleared each
// frame, and the rail drawn beside it stays (it was cleared with the body
// and not copied again from the second frame on).
func TestIncrementalFrameWithNoAgents(t *testing.T) {
	h := newHarness(t)
	h.size(150, 40)
	for _, s := range []struct {
		name string
		do   func()
	}{
		{"start", func() {}},
		{"rail", func() { h.keys("\x1dr") }},
		{"a redraw", func() {}},
		{"help open", func() { h.keys("\x1d?") }},
		{"help closed", func() { h.keys("\x1d?") }},
		{"another redraw", func() {}},
	} {
		s.do()
		h.m.dirty = true
		h.changed()
		sameAsFresh(t, h, s.name)
	}
}

// keepDrawState saves what the model remembers of the frame it draws
// into (what each pane and piece of chrome drew where), for a test that
// composes another frame in between.
func keepDrawState(m *model) (restore func()) {
	type paneState struct {
		gen, epoch       uint64
		body             rect
		title, wait, sep placed
	}
	ps := make([]paneState, len(m.panes))
	for i, p := range m.panes {
		ps[i] = paneState{p.drawnGen, p.drawnEpoch, p.drawnBody, p.titleC.at, p.waitC.at, p.sep}
	}
	status, rail, box, railSep := m.status.at, m.railC.at, m.boxC.at, m.railSep
	return func() {
		for i, p := range m.panes {
			s := ps[i]
			p.drawnGen, p.drawnEpoch, p.drawnBody, p.titleC.at, p.waitC.at, p.sep = s.gen, s.epoch, s.body, s.title, s.wait, s.sep
		}
		m.status.at, m.railC.at, m.boxC.at, m.railSep = status, rail, box, railSep
	}
}

// TestOneRowChangeWritesOnlyThatRow checks what reaches the person's
// terminal when one agent changes one row: only the changed cells of an
// ASCII row; a row with wide runes on it (ultraviolet repaints those
// whole, as their cells' columns depend on the terminal's widths) is
// written once and nothing of any other row.
func TestOneRowChangeWritesOnlyThatRow(t *testing.T) {
	h := newHarness(t, names(4)...)
	h.size(160, 45)
	var out bytes.Buffer
	h.m.out = newOutput(&out, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
	h.m.draw()

	out.Reset()
	h.o.feed("agent2", "\x1b[10;1Hspinner-row")
	h.changed()
	if got := ansi.Strip(out.String()); got != "spinner-row" {
		t.Errorf("an ASCII change wrote the text %q, want only \"spinner-row\"", got)
	}
	if out.Len() > 40 {
		t.Errorf("an 11-cell change wrote %d bytes: %q", out.Len(), out.String())
	}

	out.Reset()
	h.o.feed("agent2", "\x1b[12;1H中文 row")
	h.changed()
	y := paneRow(h, "agent2", 11)
	row := strings.TrimRight(h.m.frame.buf.Lines[y].String(), " ")
	// (The renderer moves back to the row's start with a carriage return.)
	got := strings.ReplaceAll(ansi.Strip(out.String()), "\r", "")
	if !strings.Contains(got, "中文 row") || strings.Trim(got, " ") != strings.Trim(row, " ") {
		t.Errorf("a CJK change wrote the text %q, want frame row %d once: %q", got, y, row)
	}
}
