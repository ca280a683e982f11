package ui

import (
	"context"
	"flag"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
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

func names(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("agent%d", i))
	}
	return out
}

func (h *harness) enqueue(agent, text string) int64 {
	h.t.Helper()
	id, err := h.o.Enqueue(context.Background(), agent, text)
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

func TestGoldenFrames(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		w, h  int
		setup func(h *harness)
	}{
		{name: "one_80x24", n: 1, w: 80, h: 24},
		{name: "two_100x30", n: 2, w: 100, h: 30},
		{name: "four_states_160x45", n: 4, w: 160, h: 45, setup: func(h *harness) {
			h.o.set("agent1", func(a *fakeAgent) { a.draft = "my words" })
			h.enqueue("agent1", "one")
			h.enqueue("agent1", "two")
			h.o.setHold("agent1", "your draft")
			h.o.set("agent2", func(a *fakeAgent) { a.info.Status = "busy" })
			h.enqueue("agent2", "later")
			h.o.setHold("agent2", "busy")
			h.o.set("agent3", func(a *fakeAgent) { a.info.Status = "waiting"; a.info.Picker = true })
			h.enqueue("agent3", "after the picker")
			h.o.setHold("agent3", "picker open")
			h.o.set("agent4", func(a *fakeAgent) { a.info.Exited, a.info.ExitCode, a.info.Status = true, 3, "exited" })
		}},
		{name: "starting_120x30", n: 2, w: 120, h: 30, setup: func(h *harness) {
			h.o.set("agent1", func(a *fakeAgent) {
				a.info.Status, a.info.ReadyMarkers, a.info.Started, a.info.BootGrace = "starting", []string{"? for shortcuts"}, testClock.Add(-4e9), 35e9
			})
			h.o.set("agent2", func(a *fakeAgent) {
				a.info.Status, a.info.ReadyMarkers, a.info.Started, a.info.BootGrace = "starting", []string{"Type your message"}, testClock.Add(-40e9), 35e9
			})
		}},
		{name: "six_90x30", n: 6, w: 90, h: 30},
		{name: "nine_cjk_200x60", n: 9, w: 200, h: 60, setup: func(h *harness) {
			h.o.feed("agent5", "\r\n中文 ok 🙂 end 全角テキスト")
		}},
		{name: "zoom_120x40", n: 4, w: 120, h: 40, setup: func(h *harness) {
			h.keys("\x1d2")
			h.keys("\x1dz")
		}},
		{name: "pages_roster_paused_160x45", n: 12, w: 160, h: 45, setup: func(h *harness) {
			h.o.SetFloorPaused(context.Background(), true)
			h.enqueue("agent11", "held")
			h.o.setHold("agent11", "paused")
			h.keys("\x1dr")
		}},
		{name: "composer_120x40", n: 2, w: 120, h: 40, setup: func(h *harness) {
			h.o.set("agent1", func(a *fakeAgent) { a.info.Picker = true; a.draft = "half" })
			h.o.setHold("agent1", "picker open")
			h.keys("\x1dm")
			h.keys("first line\x1b\rsecond line")
		}},
		{name: "queue_panel_120x40", n: 2, w: 120, h: 40, setup: func(h *harness) {
			id := h.enqueue("agent2", "will fail")
			h.o.edit(id, func(agent string, i int) {
				h.o.msgs[agent][i].Attempts, h.o.msgs[agent][i].LastError = 1, "write: input/output error"
			})
			h.enqueue("agent2", "second\nwith two lines")
			h.o.setHold("agent2", "cooling down")
			h.keys("\x1dl")
			h.keys("\x1dq")
		}},
		{name: "notices_120x40", n: 2, w: 120, h: 40, setup: func(h *harness) {
			h.run(h.m.Update(changedMsg{notices: []Notice{
				{At: testClock, Agent: "agent1", Kind: "exit", Text: "exited with code 1"},
				{At: testClock, Agent: "agent2", Kind: "waiting", Text: "is waiting for you"},
			}}))
			h.keys("\x1dn")
		}},
		{name: "notice_status_100x20", n: 2, w: 100, h: 20, setup: func(h *harness) {
			h.run(h.m.Update(changedMsg{notices: []Notice{{At: testClock, Agent: "agent2", Kind: "waiting", Text: "is waiting for you"}}}))
		}},
		{name: "help_100x35", n: 1, w: 100, h: 35, setup: func(h *harness) { h.keys("\x1d?") }},
		{name: "add_form_120x30", n: 1, w: 120, h: 30, setup: func(h *harness) {
			h.keys("\x1da")
			h.keys("helper\tshell\t/tmp")
		}},
		{name: "restart_busy_120x30", n: 2, w: 120, h: 30, setup: func(h *harness) {
			h.o.set("agent1", func(a *fakeAgent) { a.info.Status = "busy" })
			h.keys("\x1dR")
		}},
		{name: "quit_80x24", n: 1, w: 80, h: 24, setup: func(h *harness) { h.keys("\x1dx") }},
		{name: "prefix_pending_160x24", n: 1, w: 160, h: 24, setup: func(h *harness) { h.keys("\x1d") }},
		{name: "tiny_40x12", n: 4, w: 40, h: 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, names(c.n)...)
			h.size(c.w, c.h)
			if c.setup != nil {
				c.setup(h)
			}
			h.changed()
			got := h.text()
			if n := strings.Count(got, "\n"); n != c.h {
				t.Fatalf("frame has %d rows, want %d", n, c.h)
			}
			golden(t, c.name, got)
		})
	}
}

// TestGoldenColourProfiles checks the styled frame (chrome and agent
// colours) with NO_COLOR and downsampled to 16 colours, with the queue
// panel open over the panes.
func TestGoldenColourProfiles(t *testing.T) {
	cases := []struct {
		name    string
		noColor bool
		profile colorprofile.Profile
	}{
		{"nocolor_styled_100x20", true, colorprofile.TrueColor},
		{"ansi16_styled_100x20", false, colorprofile.ANSI},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarnessOpts(t, Options{NoColor: c.noColor}, "a", "b")
			h.size(100, 20)
			h.enqueue("b", "queued text")
			h.keys("\x1dq")
			h.m.draw()
			got := h.m.frame.styled(c.profile)
			golden(t, c.name, strings.ReplaceAll(got, "\x1b", "\\e"))
			if c.noColor {
				// The chrome has no colour at all: every SGR outside the
				// agents' own cells is attributes only.
				for y := 0; y < h.m.height; y++ {
					for x := 0; x < h.m.width; x++ {
						if h.m.frame.shadow[y*h.m.width+x] != chromeMark {
							continue
						}
						if st := h.m.frame.buf.Lines[y][x].Style; st.Fg != nil || st.Bg != nil {
							t.Fatalf("chrome cell (%d,%d) has colours %v/%v under NO_COLOR", x, y, st.Fg, st.Bg)
						}
					}
				}
			}
		})
	}
}

// TestFrameRowsAreExactlyTheWidth checks every row's cell width at several
// sizes, with and without the rail, zoomed and with a box open.
func TestFrameRowsAreExactlyTheWidth(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10} {
		for _, sz := range [][2]int{{80, 24}, {133, 41}, {200, 60}, {61, 17}} {
			for _, extra := range []string{"", "\x1dr", "\x1dz", "\x1d?", "\x1dm", "\x1da"} {
				h := newHarness(t, names(n)...)
				h.o.feed("agent1", "\r\n中文🙂x")
				h.size(sz[0], sz[1])
				if extra != "" {
					h.keys(extra)
				}
				h.m.draw()
				for y, l := range h.m.frame.buf.Lines {
					w := 0
					for _, c := range l {
						w += c.Width
					}
					if w != sz[0] {
						t.Fatalf("n=%d %v %q: row %d is %d cells wide, want %d: %q", n, sz, extra, y, w, sz[0], l.String())
					}
				}
			}
		}
	}
}

// TestAgentColoursReachTheFrame checks what the text goldens cannot see:
// the agent's own colours, bold and reverse, and the focused title's style.
func TestAgentColoursReachTheFrame(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(100, 20)
	h.m.draw()
	v := h.m.frame.styled(colorprofile.TrueColor)
	for _, want := range []string{
		"\x1b[32mgreen",               // the agent's green
		"\x1b[38;2;255;128;0mtrue",    // truecolour kept
		"\x1b[1ma",                    // the agent's bold name
		"\x1b[7mrev",                  // reverse left to the terminal
		"\x1b[30;106;1m 1 a · claude", // focused title: bold black on bright cyan
	} {
		if !strings.Contains(v, want) {
			t.Errorf("frame lacks %q:\n%q", want, v)
		}
	}
	if v16 := h.m.frame.styled(colorprofile.ANSI); strings.Contains(v16, "38;2;") {
		t.Errorf("16-colour frame keeps a truecolour: %q", v16)
	}
}

// TestLightBackgroundPalette: on a light terminal background (OSC 11
// answer) the boxes turn light with dark text, and back on a dark one.
func TestLightBackgroundPalette(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 20)
	h.keys("\x1d?")
	boxCell := func() uv.Cell { h.m.draw(); return h.m.frame.buf.Lines[h.m.boxRect.Y+1][h.m.boxRect.X+2] }
	dark := boxCell()
	h.run(h.m.Update(tea.BackgroundColorMsg{Color: color.RGBA{0xfa, 0xfa, 0xfa, 0xff}}))
	light := boxCell()
	if colorEq(dark.Style.Bg, light.Style.Bg) || !colorEq(light.Style.Bg, ansi.BasicColor(15)) || !colorEq(light.Style.Fg, ansi.BasicColor(0)) {
		t.Fatalf("box text on dark %v/%v, on light %v/%v", dark.Style.Fg, dark.Style.Bg, light.Style.Fg, light.Style.Bg)
	}
	h.run(h.m.Update(tea.BackgroundColorMsg{Color: color.RGBA{0x10, 0x10, 0x10, 0xff}}))
	if again := boxCell(); !colorEq(again.Style.Bg, dark.Style.Bg) {
		t.Fatalf("back on dark: %v", again.Style.Bg)
	}
}

func colorEq(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == b
	}
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}
