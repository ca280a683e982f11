package ui

import (
	"bytes"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

func TestRingSequenceForEachTerminal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"TERM=xterm-kitty"}, "\x1b]99;i=office:d=0:p=title;office: a dialog\x1b\\\x1b]99;i=office:p=body;Proceed?\x1b\\\a"},
		{[]string{"TERM=xterm-256color", "TERM_PROGRAM=iTerm.app"}, "\x1b]9;office: a dialog: Proceed?\x1b\\\a"},
		{[]string{"TERM=rxvt-unicode-256color"}, "\x1b]777;notify;office: a dialog;Proceed?\x1b\\\a"},
		{[]string{"TERM=screen-256color", "TMUX=/tmp/tmux-1/default,1,0", "TERM_PROGRAM=tmux"},
			"\x1bPtmux;\x1b\x1b]9;office: a dialog: Proceed?\x1b\x1b\\\x1b\\\a"},
		{[]string{"TERM=xterm-kitty", "TMUX=/tmp/t,1,0"}, "\x1bPtmux;\x1b\x1b]99;i=office:d=0:p=title;office: a dialog\x1b\x1b\\\x1b\x1b]99;i=office:p=body;Proceed?\x1b\x1b\\\x1b\\\a"},
		{[]string{"TERM=xterm-256color"}, "\a"},
		{nil, "\a"},
	} {
		if got := ringSequence(ringStyleFor(c.env), "office: a dialog", "Proceed?"); got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.env, got, c.want)
		}
	}
	got := ringSequence(ringStyle{kind: ringOSC777}, "a;b\x1b]0;x\a", strings.Repeat("x", 300))
	if strings.Count(got, ";") != 3 || strings.ContainsAny(got[:len(got)-3], "\a") || !strings.Contains(got, "…") {
		t.Fatalf("unsafe text passed: %q", got)
	}
}

// TestAlertRingsTheTerminalUnlessThePaneIsWatched: an alert from the
// server is written to the person's terminal and not put in the notice
// list; while the terminal has focus (a focus report) and shows the
// agent's pane focused, it is not; after the terminal loses focus it is.
func TestAlertRingsTheTerminalUnlessThePaneIsWatched(t *testing.T) {
	h := newHarnessOpts(t, Options{Env: []string{"TERM_PROGRAM=WezTerm"}}, "a", "b")
	var out bytes.Buffer
	h.m.out = newOutput(&out, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
	h.size(120, 30)
	alert := func(agent string) {
		h.run(h.m.Update(changedMsg{state: true, notices: []Notice{{Agent: agent, Alert: true, Title: "office: " + agent + " dialog", Text: "Proceed?"}}}))
	}
	out.Reset()
	alert("a")
	if !strings.Contains(out.String(), "\x1b]9;office: a dialog: Proceed?") {
		t.Fatalf("no OSC 9 written: %q", out.String())
	}
	if len(h.m.notices.items) != 0 {
		t.Fatalf("the alert was listed: %+v", h.m.notices.items)
	}
	h.run(h.m.Update(tea.FocusMsg{}))
	focused := h.m.focused().info.Name
	out.Reset()
	alert(focused)
	if strings.Contains(out.String(), "\x1b]9;") {
		t.Fatalf("an alert for the watched pane was written: %q", out.String())
	}
	other := "a"
	if focused == "a" {
		other = "b"
	}
	alert(other)
	if !strings.Contains(out.String(), "office: "+other+" dialog") {
		t.Fatalf("an alert for another pane was not written: %q", out.String())
	}
	h.run(h.m.Update(tea.BlurMsg{}))
	out.Reset()
	alert(focused)
	if !strings.Contains(out.String(), "\x1b]9;") {
		t.Fatalf("an alert after the terminal lost focus was not written: %q", out.String())
	}
}

// TestFocusReportsReachTheFocusedAgentThatAskedForThem: the person's
// terminal's focus in and out go to the focused agent once it asked for
// focus reports (?1004h), and not before.
func TestFocusReportsReachTheFocusedAgentThatAskedForThem(t *testing.T) {
	h := newHarness(t, "a")
	h.size(120, 30)
	h.run(h.m.Update(tea.FocusMsg{}))
	if got := h.o.got("a"); got != "" {
		t.Fatalf("an agent that did not ask got %q", got)
	}
	h.o.feed("a", "\x1b[?1004h")
	h.changed()
	h.run(h.m.Update(tea.BlurMsg{}))
	h.run(h.m.Update(tea.FocusMsg{}))
	if got := h.o.got("a"); got != "\x1b[O\x1b[I" {
		t.Fatalf("the agent got %q, want focus out then in", got)
	}
}
