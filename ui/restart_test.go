package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// An exited agent whose restart waits its back-off says so in its title,
// counting down each second (the refresh is armed while it waits); one with
// no restart pending says only how it exited.
func TestExitedPaneSaysWhenItRestarts(t *testing.T) {
	h := newHarness(t, "a", "b")
	ticks := 0
	h.m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { ticks++; return nil }
	h.size(120, 30)
	h.o.set("a", func(a *fakeAgent) {
		a.info.Status, a.info.Exited, a.info.ExitCode, a.info.RestartAt = "exited", true, 3, testClock.Add(8*time.Second)
	})
	h.o.set("b", func(a *fakeAgent) { a.info.Status, a.info.Exited, a.info.ExitCode = "exited", true, 3 })
	h.changed()
	if got := h.title("a"); !strings.Contains(got, "exited with code 3, restarting in 8s") {
		t.Fatalf("title while the restart waits: %q", got)
	}
	if got := h.title("b"); !strings.Contains(got, "exited with code 3 ") || strings.Contains(got, "restarting") {
		t.Fatalf("title with no restart pending: %q", got)
	}
	if ticks == 0 {
		t.Fatal("no refresh armed while a restart waits")
	}
	h.m.now = func() time.Time { return testClock.Add(2500 * time.Millisecond) }
	h.run(h.m.Update(startingMsg{}))
	if got := h.title("a"); !strings.Contains(got, "restarting in 6s") {
		t.Fatalf("title 2.5 s later: %q", got)
	}
	h.m.now = func() time.Time { return testClock.Add(9 * time.Second) }
	h.run(h.m.Update(startingMsg{}))
	if got := h.title("a"); !strings.Contains(got, "exited with code 3, restarting now") {
		t.Fatalf("title past the due time: %q", got)
	}
}

// A usage-limited agent's title says when the limit resets, with the time
// left counting down by the minute (the refresh is armed), in a colour of
// its own; with no reset printed, when office retries.
func TestLimitedPaneSaysWhenItResets(t *testing.T) {
	h := newHarness(t, "a", "b")
	ticks := 0
	h.m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { ticks++; return nil }
	reset := time.Date(2026, 12, 1, 22, 0, 0, 0, time.FixedZone("EST", -5*3600))
	h.m.now = func() time.Time { return reset.Add(-(3*time.Hour + 12*time.Minute)) }
	h.size(120, 30)
	h.o.set("b", func(a *fakeAgent) { a.info.Status, a.info.LimitAt = "usage limit", reset })
	h.changed()
	if got := h.title("b"); !strings.Contains(got, "b · claude · usage limit, resets 22:00 (in 3h12m)") {
		t.Fatalf("title while held: %q", got)
	}
	if ticks == 0 {
		t.Fatal("no refresh armed while the hold counts down")
	}
	var bx, by int
	for _, p := range h.m.panes {
		if p.info.Name == "b" {
			bx, by = p.box.X, p.box.Y
		}
	}
	if c := h.m.frame.buf.Lines[by][bx+1]; !colorEq(c.Style.Bg, ansi.BasicColor(colMagenta)) {
		t.Errorf("title background %v, want the usage limit's own colour", c.Style.Bg)
	}
	h.m.now = func() time.Time { return reset.Add(-(2*time.Hour + 30*time.Second)) }
	h.run(h.m.Update(startingMsg{}))
	if got := h.title("b"); !strings.Contains(got, "usage limit, resets 22:00 (in 2h1m)") {
		t.Fatalf("title later: %q", got)
	}
	h.o.set("b", func(a *fakeAgent) { a.info.LimitRetry = true })
	h.changed()
	if got := h.title("b"); !strings.Contains(got, "usage limit, retry 22:00 (in 2h1m)") {
		t.Fatalf("title with no reset printed: %q", got)
	}
}
