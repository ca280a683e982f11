package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestAddFormShowsTheRefusalPlainly: the UI's add form (prefix a), run
// against the real server, shows a refused add as the reason alone, with no
// "engine: team add ...: bad input:" prefixes, and adds nothing.
func TestAddFormShowsTheRefusalPlainly(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	tm := o.startUI(160, 45)
	o.uiReady(tm, 1)
	tm.key("C-]")
	tm.keys("a")
	o.waitFor(5*time.Second, "the add form", func() bool { return strings.Contains(tm.screen(), "Enter add") })
	tm.keys("x1")
	tm.key("Tab")
	tm.keys("shell")
	tm.key("Tab")
	tm.keys("rel")
	tm.key("Enter")
	want := `cwd "rel" is not absolute`
	o.waitFor(10*time.Second, "the refusal in the form", func() bool { return strings.Contains(tm.screen(), want) })
	if s := tm.screen(); strings.Contains(s, "engine:") || strings.Contains(s, "bad input") {
		t.Fatalf("the form shows the error's prefixes:\n%s", s)
	}
	if out := o.must("team"); strings.Contains(out, "x1") {
		t.Fatalf("the refused agent was added:\n%s", out)
	}
}
