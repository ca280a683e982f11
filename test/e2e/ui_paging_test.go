package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestUIPageSwitchShowsWhatChangedOffPage: the UI subscribes to the panes
// it draws, so an agent off the page gets no screen updates; switching to
// its page shows its screen whole, with what it printed meanwhile, and
// switching back shows the first page's likewise.
func TestUIPageSwitchShowsWhatChangedOffPage(t *testing.T) {
	t.Parallel()
	var specs []agentSpec
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		specs = append(specs, agentSpec{name: n, args: []string{"--busy", "100ms"}})
	}
	o := newOffice(t, specs...)
	tm := o.startUI(200, 50)
	o.uiReady(tm, 10)
	replied := func(agent, text string) bool {
		for _, e := range o.log(agent) {
			if e.Event == "reply" && e.Text == text {
				return true
			}
		}
		return false
	}
	// j is on page 2: its reply lands while the UI shows page 1.
	o.send("j", "printed off the page")
	o.waitFor(20*time.Second, "j's reply", func() bool { return replied("j", "printed off the page") })
	if s := tm.screen(); strings.Contains(s, "printed off the page") || !strings.Contains(s, "page 1/2") {
		t.Fatalf("page 1 shows j's output, or is not page 1:\n%s", s)
	}
	tm.key("C-]")
	tm.keys(">")
	o.waitFor(10*time.Second, "page 2 with j's reply", func() bool {
		s := tm.screen()
		return strings.Contains(s, "page 2/2") && strings.Contains(s, "reply: printed off the page")
	})
	// a is on page 1, now off screen.
	o.send("a", "printed while away")
	o.waitFor(20*time.Second, "a's reply", func() bool { return replied("a", "printed while away") })
	tm.key("C-]")
	tm.keys("<")
	o.waitFor(10*time.Second, "page 1 with a's reply", func() bool {
		s := tm.screen()
		return strings.Contains(s, "page 1/2") && strings.Contains(s, "reply: printed while away")
	})
}
