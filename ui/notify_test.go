package ui

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// loop is the program's loop for tests: the notifier's messages arrive on
// a channel and the test hands them to Update.
type loop struct {
	msgs chan changedMsg

	mu     sync.Mutex
	now    time.Time
	timers []time.Duration
	due    []func()
}

func newLoop() *loop { return &loop{msgs: make(chan changedMsg, 16), now: testClock} }

func (l *loop) notifier() *notifier {
	n := newNotifier(func(c changedMsg) { l.msgs <- c })
	n.now = func() time.Time { l.mu.Lock(); defer l.mu.Unlock(); return l.now }
	n.after = func(d time.Duration, f func()) {
		l.mu.Lock()
		l.timers = append(l.timers, d)
		l.due = append(l.due, f)
		l.mu.Unlock()
	}
	return n
}

// next waits for the notifier's next message; the wait is only a guard
// against a test hanging, the message is sent without any timer.
func (l *loop) next(t *testing.T) changedMsg {
	t.Helper()
	select {
	case m := <-l.msgs:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no message from the notifier")
	}
	return changedMsg{}
}

// echoLoop gives h's model a notifier on a loop of the test's, watching
// h's office, with agent a (focused) echoing what is typed, at 100×30.
func echoLoop(t *testing.T, h *harness) *loop {
	l := newLoop()
	h.m.notify = l.notifier()
	h.m.focusChanged()
	t.Cleanup(h.o.Watch(h.m.notify.change))
	h.o.agent("a").echo = true
	h.size(100, 30)
	return l
}

// TestKeyEchoDrawnWithoutATick: a key goes to the agent at once, and the
// agent's echo is drawn to the person's terminal as soon as the agent's
// screen changed: no timer is armed and no tick is waited for.
func TestKeyEchoDrawnWithoutATick(t *testing.T) {
	h := newHarness(t, "a", "b")
	var out bytes.Buffer
	h.m.out = newOutput(&out, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
	l := echoLoop(t, h)
	out.Reset()

	h.m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if got := h.o.got("a"); got != "x" {
		t.Fatalf("the key reached a as %q", got)
	}
	msg := l.next(t)
	for !msg.focus {
		if msg.bg {
			t.Fatalf("echo of the focused agent came as %+v", msg)
		}
		h.m.Update(msg) // an earlier state change
		msg = l.next(t)
	}
	h.m.Update(msg)
	if !strings.Contains(out.String(), "x") {
		t.Fatalf("the echo was not written to the terminal: %q", out.String())
	}
	if !strings.Contains(h.m.frame.text(), "❯ x") {
		t.Fatalf("frame:\n%s", h.m.frame.text())
	}
	if len(l.timers) != 0 {
		t.Fatalf("a timer was armed for the focused pane: %v", l.timers)
	}
	// The person's cursor sits right after the echo, in pane a.
	if c := h.m.cursor(); c.x != 3 || c.y != 3 || !c.visible {
		t.Fatalf("cursor %+v, want (3,3) visible", c)
	}
}

// TestASecondKeysEchoIsNotPaced: a key typed right after the last key's
// echo was drawn (within focusInterval) has its own echo drawn at once; the
// agent's output without a key in between is paced as before.
func TestASecondKeysEchoIsNotPaced(t *testing.T) {
	h := newHarness(t, "a")
	l := echoLoop(t, h)
	// A paced change would come only when a test calls its timer's
	// function (l.due), so one that comes at all came at once.
	focusMsg := func(what string) {
		t.Helper()
		for {
			msg := l.next(t)
			h.m.Update(msg)
			if msg.focus {
				return
			}
			if len(l.timers) != 0 {
				t.Fatalf("%s: paced (timers %v)", what, l.timers)
			}
		}
	}
	h.m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	focusMsg("the first key's echo")
	l.mu.Lock()
	l.now = l.now.Add(focusInterval / 4)
	l.mu.Unlock()
	h.m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	focusMsg("the second key's echo, within focusInterval of the first")
	if !strings.Contains(h.m.frame.text(), "❯ xy") {
		t.Fatalf("frame:\n%s", h.m.frame.text())
	}
	if len(l.timers) != 0 {
		t.Fatalf("a timer was armed for a key's echo: %v", l.timers)
	}
	l.mu.Lock()
	l.now = l.now.Add(focusInterval / 4)
	l.mu.Unlock()
	// The agent's own output, no key since the last draw: the change waits
	// for the pace's timer (armed as the change is told, no message sent).
	h.o.feed("a", "z")
	if len(l.timers) != 1 || l.timers[0] != focusInterval-focusInterval/4 {
		t.Fatalf("timers %v, want the pace's one of %v", l.timers, focusInterval-focusInterval/4)
	}
}

// TestBackgroundPanesAreCapped: output of a pane that is not focused is
// drawn at most once per bgInterval; the focused one is never held.
func TestBackgroundPanesAreCapped(t *testing.T) {
	l := newLoop()
	n := l.notifier()
	n.setFocus("a")
	n.change(Change{Kind: ChangeScreen, Agent: "b"})
	if m := l.next(t); !m.bg {
		t.Fatalf("first background change: %+v", m)
	}
	n.change(Change{Kind: ChangeScreen, Agent: "b"})
	n.change(Change{Kind: ChangeScreen, Agent: "c"})
	if len(l.timers) != 1 || l.timers[0] != bgInterval {
		t.Fatalf("timers %v, want one of %v", l.timers, bgInterval)
	}
	n.change(Change{Kind: ChangeScreen, Agent: "a"})
	if m := l.next(t); !m.focus || m.bg {
		t.Fatalf("focused change while background is capped: %+v", m)
	}
	l.mu.Lock()
	l.now = l.now.Add(bgInterval)
	due := l.due[0]
	l.mu.Unlock()
	due()
	if m := l.next(t); !m.bg {
		t.Fatalf("capped background change at its time: %+v", m)
	}
}

// TestCursorFollowsTheAgent: the person's cursor is the focused agent's:
// its cell, hidden when the agent hides it, its DECSCUSR shape; focusing
// another pane moves it; an open composer takes it.
func TestCursorFollowsTheAgent(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(100, 30)
	h.o.feed("a", "abc")
	h.changed()
	if c := h.m.cursor(); c != (cursorState{x: 5, y: 3, visible: true}) {
		t.Fatalf("cursor %+v", c)
	}
	h.o.feed("a", "\x1b[?25l\x1b[5 q")
	h.changed()
	if c := h.m.cursor(); c != (cursorState{x: 5, y: 3, visible: false, shape: 5}) {
		t.Fatalf("hidden bar cursor %+v", c)
	}
	h.keys("\x1d2")
	if c := h.m.cursor(); c.x != 52 || c.y != 3 || !c.visible {
		t.Fatalf("b's cursor %+v", c)
	}
	h.keys("\x1dmhi")
	if c := h.m.cursor(); !c.visible || c.y < 1 || c.x < 1 {
		t.Fatalf("composer caret %+v", c)
	}
}

// TestOutputPlacesTheRealCursor: the bytes written put the terminal's
// cursor at the agent's cell, hide it when the agent hid it, give it the
// agent's shape, and write nothing when nothing changed.
func TestOutputPlacesTheRealCursor(t *testing.T) {
	h := newHarness(t, "a")
	var out bytes.Buffer
	h.m.out = newOutput(&out, []string{"TERM=xterm-256color"}, colorprofile.TrueColor)
	h.size(40, 10)
	h.o.feed("a", "xy")
	h.changed()
	if s := out.String(); !strings.HasSuffix(s, "\x1b[?25h") || !strings.Contains(s, "xy") {
		t.Fatalf("first frame: %q", s)
	}
	out.Reset()
	h.changed()
	if out.Len() != 0 {
		t.Fatalf("an unchanged frame wrote %q", out.String())
	}
	h.o.feed("a", "\x1b[?25l\x1b[6 q")
	h.changed()
	if s := out.String(); !strings.Contains(s, "\x1b[?25l") || !strings.Contains(s, "\x1b[6 q") || strings.Contains(s, "\x1b[?25h") {
		t.Fatalf("hidden bar cursor: %q", s)
	}
	if x, y := h.m.out.r.Position(); x != 4 || y != 3 {
		t.Fatalf("cursor left at (%d,%d), want (4,3)", x, y)
	}
}

// TestFocusedPaneFloodIsPaced: the focused pane's change is drawn at once
// after a pause, and one that follows within focusInterval waits for the
// rest of it, taking whatever arrives meanwhile.
func TestFocusedPaneFloodIsPaced(t *testing.T) {
	t.Parallel()
	l := newLoop()
	n := l.notifier()
	n.setFocus("a")
	n.change(Change{Kind: ChangeScreen, Agent: "a"})
	if m := l.next(t); !m.focus {
		t.Fatalf("first focused change: %+v", m)
	}
	l.mu.Lock()
	l.now = l.now.Add(focusInterval / 4)
	l.mu.Unlock()
	n.change(Change{Kind: ChangeScreen, Agent: "a"})
	n.change(Change{Kind: ChangeScreen, Agent: "a"})
	if len(l.timers) != 1 || l.timers[0] != focusInterval-focusInterval/4 {
		t.Fatalf("timers %v, want one of %v", l.timers, focusInterval-focusInterval/4)
	}
	select {
	case m := <-l.msgs:
		t.Fatalf("a change within focusInterval was sent at once: %+v", m)
	default:
	}
	l.mu.Lock()
	l.now = l.now.Add(focusInterval)
	due := l.due[0]
	l.mu.Unlock()
	due()
	if m := l.next(t); !m.focus {
		t.Fatalf("paced focused change at its time: %+v", m)
	}
	l.mu.Lock()
	l.now = l.now.Add(2 * focusInterval)
	l.mu.Unlock()
	n.change(Change{Kind: ChangeScreen, Agent: "a"})
	if m := l.next(t); !m.focus || len(l.timers) != 1 {
		t.Fatalf("a change after a pause: %+v, timers %v", m, l.timers)
	}
	n.setFocus("b")
	n.change(Change{Kind: ChangeScreen, Agent: "b"})
	if m := l.next(t); !m.focus || len(l.timers) != 1 {
		t.Fatalf("the first change of a pane newly focused: %+v, timers %v", m, l.timers)
	}
}
