package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
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
