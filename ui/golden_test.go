package ui

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"office/automation"
	"office/queue"
)

// updating reports -update (the flag is registered by teatest's golden
// package, which this test binary links): rewrite testdata/*.golden.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// agentScreen is what a fake agent shows: a banner, a coloured line and a
// prompt row.
func agentScreen(name string) string {
	return "\x1b[1m" + name + "\x1b[0m ready\r\n\x1b[32mgreen\x1b[0m \x1b[7mrev\x1b[0m \x1b[38;2;255;128;0mtrue\x1b[0m\r\n❯ "
}

// harness is a model over fake terminals, driven by hand (no program).
type harness struct {
	t     testing.TB
	m     *model
	src   *fakeSource
	terms map[string]*fakeTerm
}

func newHarness(t testing.TB, names ...string) *harness {
	t.Helper()
	h := &harness{t: t, terms: map[string]*fakeTerm{}}
	var ms []member
	for _, n := range names {
		ft := newFakeTerm(120, 40, agentScreen(n))
		h.terms[n] = ft
		ms = append(ms, member{Name: n, Profile: "claude", Term: ft})
	}
	h.src = newFakeSource(t, ms...)
	h.m = newModel(h.src, &intake{}, nil, Options{Prefix: DefaultPrefix})
	return h
}

// size lays the model out at w × h and resizes the fake PTYs as the layout
// command would.
func (h *harness) size(w, ht int) {
	h.m.Update(tea.WindowSizeMsg{Width: w, Height: ht})
	h.resize()
	h.frame()
}

func (h *harness) resize() {
	for _, idx := range h.m.vis {
		p := h.m.panes[idx]
		if p.term != nil {
			p.term.Resize(p.box.W, p.box.H-1)
		}
	}
}

// frame runs one frame tick at the test clock.
func (h *harness) frame() { h.m.Update(frameMsg(testClock)) }

// readStore runs one store read synchronously.
func (h *harness) readStore() {
	h.m.Update(h.m.readStoreOnce()())
}

// key feeds raw input, then lays out again and takes a frame.
func (h *harness) key(s string) tea.Cmd {
	_, cmd := h.m.Update(inputMsg(s))
	h.resize()
	h.frame()
	return cmd
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// text is the frame without colours, trailing spaces trimmed.
func (h *harness) text() string {
	lines := strings.Split(sgr.ReplaceAllString(h.m.View(), ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("frame differs from %s (rerun with -update and review the diff):\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// enqueue queues text for agent in the store.
func (h *harness) enqueue(agent, text string) int64 {
	h.t.Helper()
	id, err := h.src.store.Enqueue(context.Background(), agent, text, queue.EnqueueOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

func TestGoldenFrames(t *testing.T) {
	names := func(n int) []string {
		var out []string
		for i := 1; i <= n; i++ {
			out = append(out, fmt.Sprintf("agent%d", i))
		}
		return out
	}
	cases := []struct {
		name  string
		n     int
		w, h  int
		setup func(h *harness)
	}{
		{name: "one_80x24", n: 1, w: 80, h: 24},
		{name: "two_100x30", n: 2, w: 100, h: 30},
		{name: "four_states_160x45", n: 4, w: 160, h: 45, setup: func(h *harness) {
			h.terms["agent1"].set(func(t *fakeTerm) { t.draft = "my words" })
			h.enqueue("agent1", "one")
			h.enqueue("agent1", "two")
			h.src.setHold("agent1", "your draft")
			h.terms["agent2"].set(func(t *fakeTerm) { t.status = automation.StatusBusy })
			h.enqueue("agent2", "later")
			h.src.setHold("agent2", "busy")
			h.terms["agent3"].set(func(t *fakeTerm) { t.status = automation.StatusWaiting; t.picker = true })
			h.enqueue("agent3", "after the picker")
			h.src.setHold("agent3", "picker open")
			h.terms["agent4"].set(func(t *fakeTerm) { t.exited, t.code, t.status = true, 3, automation.StatusExited })
		}},
		{name: "six_90x30", n: 6, w: 90, h: 30},
		{name: "nine_cjk_200x60", n: 9, w: 200, h: 60, setup: func(h *harness) {
			h.terms["agent5"].scr.Feed([]byte("\r\n中文 ok 🙂 end 全角テキスト"))
		}},
		{name: "zoom_120x40", n: 4, w: 120, h: 40, setup: func(h *harness) {
			h.key("\x1d2")
			h.key("\x1dz")
		}},
		{name: "pages_roster_paused_160x45", n: 12, w: 160, h: 45, setup: func(h *harness) {
			if err := h.src.store.SetFloorPaused(context.Background(), true); err != nil {
				h.t.Fatal(err)
			}
			h.enqueue("agent11", "held")
			h.src.setHold("agent11", "paused")
			h.key("\x1dr")
		}},
		{name: "composer_120x40", n: 2, w: 120, h: 40, setup: func(h *harness) {
			h.terms["agent1"].set(func(t *fakeTerm) { t.picker = true; t.draft = "half" })
			h.src.setHold("agent1", "picker open")
			h.key("\x1dm")
			h.key("first line\x1b\rsecond line")
		}},
		{name: "queue_panel_120x40", n: 2, w: 120, h: 40, setup: func(h *harness) {
			id := h.enqueue("agent2", "will fail")
			if _, _, err := h.src.store.AttemptFailed(context.Background(), id, "write: input/output error", 3); err != nil {
				h.t.Fatal(err)
			}
			h.enqueue("agent2", "second\nwith two lines")
			h.src.setHold("agent2", "cooling down")
			h.key("\x1dl")
			h.key("\x1dq")
		}},
		{name: "help_100x35", n: 1, w: 100, h: 35, setup: func(h *harness) { h.key("\x1d?") }},
		{name: "tiny_40x12", n: 4, w: 40, h: 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, names(c.n)...)
			h.size(c.w, c.h)
			if c.setup != nil {
				c.setup(h)
			}
			h.readStore()
			h.frame()
			got := h.text()
			if n := strings.Count(got, "\n"); n != c.h {
				t.Fatalf("frame has %d rows, want %d", n, c.h)
			}
			golden(t, c.name, got)
		})
	}
}

// TestFrameRowsAreExactlyTheWidth checks every row's cell width at several
// sizes, with and without the rail, zoomed and with a box open.
func TestFrameRowsAreExactlyTheWidth(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10} {
		for _, sz := range [][2]int{{80, 24}, {133, 41}, {200, 60}, {61, 17}} {
			for _, extra := range []string{"", "\x1dr", "\x1dz", "\x1d?", "\x1dm"} {
				h := newHarness(t, namesN(n)...)
				h.terms["a1"].scr.Feed([]byte("\r\n中文🙂x"))
				h.size(sz[0], sz[1])
				if extra != "" {
					h.key(extra)
				}
				rows := strings.Split(sgr.ReplaceAllString(h.m.View(), ""), "\n")
				if len(rows) != sz[1] {
					t.Fatalf("n=%d %v %q: %d rows", n, sz, extra, len(rows))
				}
				for i, r := range rows {
					if w := stringCells(r); w != sz[0] {
						t.Fatalf("n=%d %v %q: row %d is %d cells wide, want %d: %q", n, sz, extra, i, w, sz[0], r)
					}
				}
			}
		}
	}
}

func namesN(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("a%d", i))
	}
	return out
}

// TestTitleColoursAndCells checks the styles the text goldens cannot see:
// the focused title's colours, the agent's own SGR colours and the cursor.
func TestTitleColoursAndCells(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(100, 20)
	v := h.m.View()
	for _, want := range []string{
		"\x1b[0;1;30;106m 1 a · claude · idle", // focused title: bold black on bright cyan
		"\x1b[0;97;100m 2 b · claude · idle",   // other title
		"\x1b[0;32mgreen",                      // the agent's green
		"\x1b[0;38;2;255;128;0mtrue",           // truecolour
		"\x1b[0;1ma",                           // the agent's bold name
	} {
		if !strings.Contains(v, want) {
			t.Errorf("frame lacks %q", want)
		}
	}
	if bytes.Count([]byte(v), []byte("\x1b[0;30;107m")) != 1 {
		t.Errorf("want exactly one cursor cell (focused pane only)")
	}
}
