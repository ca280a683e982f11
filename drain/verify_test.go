package drain_test

// Checking the submit: the prompt row empties or the agent turns busy; else
// one more Enter when harmless; else "typed, not submitted".

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
)

func TestTypedNotSubmitted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.ignoreEnter = 99 })
		id := h.store.enqueue("a", "hello")
		h.store.enqueue("a", "second")
		h.d.Wake()
		h.until(4 * time.Second)
		// Enter at 340; watched until 2340; one more Enter 500 ms later;
		// watched until 4840.
		checkWrites(t, a.written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}, {2840 * ms, "\r", false}})
		if c := h.store.callsOf("TypedNotSubmitted"); len(c) != 0 {
			t.Fatalf("dropped before the second check ended: %+v", c)
		}
		h.until(4840 * ms)
		checkCalls(t, h.store, "TypedNotSubmitted", []call{{at: 4840 * ms, id: id, agent: "a"}})
		want := drain.Notice{Agent: "a", MsgID: id, Kind: drain.NoticeTypedNotSubmitted, Text: "hello"}
		if got := h.noticeList(); len(got) != 1 || got[0] != want {
			t.Errorf("notices = %+v, want [%+v]", got, want)
		}
		if d := a.markedDrafts(); !slices.Equal(d, []string{"hello"}) {
			t.Errorf("MarkDraft calls = %q, want [hello]", d)
		}
		if c := h.store.callsOf("AttemptFailed"); len(c) != 0 {
			t.Errorf("AttemptFailed = %+v, want none", c)
		}
		// Not retyped: "hello" is gone from the queue, "second" is next.
		if q := h.store.queued("a"); len(q) != 1 || q[0].Text != "second" {
			t.Errorf("queue = %+v, want only the second message", q)
		}
		h.stop()
	})
}

func TestSecondEnterSubmits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.ignoreEnter = 1 })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(5 * time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}, {2840 * ms, "\r", false}})
		checkCalls(t, h.store, "Delivered", []call{{at: 2940 * ms, id: id, agent: "a", arg: "verified (second Enter)"}})
		// Both Enters say which message they submit: the turn is that
		// delivery's, whatever else happens meanwhile.
		if got, want := a.enterCauses(), []automation.TurnCause{automation.DeliveryEnter(id), automation.DeliveryEnter(id)}; !slices.Equal(got, want) {
			t.Errorf("Enter causes %+v, want %+v", got, want)
		}
		if d := a.markedDrafts(); len(d) != 0 {
			t.Errorf("MarkDraft calls = %q, want none", d)
		}
		h.stop()
	})
}

func TestBusyAfterEnterIsVerified(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.busyOnEnter = true })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(5 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 440 * ms, id: id, agent: "a", arg: "verified"}})
		checkWrites(t, a.written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}})
		h.stop()
	})
}

func TestNoSecondEnter(t *testing.T) {
	cases := []struct {
		name string
		// after runs at 1 s, while the first check watches.
		after    func(a *fakeAgent)
		wantNote string // "" means dropped as typed, not submitted
		wantAt   time.Duration
	}{
		{"someone else's text on the row", func(a *fakeAgent) { a.prompt = "something else" }, "", 2340 * ms},
		{"the person is typing", func(a *fakeAgent) { a.block = automation.BlockDraft }, "", 2340 * ms},
		{"a dialog opened", func(a *fakeAgent) { a.status = automation.StatusWaiting }, "unverified: a dialog opened", 1040 * ms},
		{"the row became unreadable", func(a *fakeAgent) { a.promptOK = false }, "unverified", 2340 * ms},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				a := h.agent("a")
				a.set(func(a *fakeAgent) { a.ignoreEnter = 99 })
				id := h.store.enqueue("a", "hello")
				h.d.Wake()
				h.until(time.Second)
				a.set(c.after)
				h.until(10 * time.Second)
				checkWrites(t, a.written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}})
				if c.wantNote == "" {
					checkCalls(t, h.store, "TypedNotSubmitted", []call{{at: c.wantAt, id: id, agent: "a"}})
					if d := a.markedDrafts(); !slices.Equal(d, []string{"hello"}) {
						t.Errorf("MarkDraft calls = %q, want [hello]", d)
					}
				} else {
					checkCalls(t, h.store, "Delivered", []call{{at: c.wantAt, id: id, agent: "a", arg: c.wantNote}})
				}
				h.stop()
			})
		})
	}
}

func TestUnverifiable(t *testing.T) {
	cases := []struct {
		name string
		edit func(a *fakeAgent)
	}{
		{"profile", func(a *fakeAgent) { a.profile.Unverifiable = true; a.ignoreEnter = 99 }},
		{"row unreadable", func(a *fakeAgent) { a.promptOK = false }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				a := h.agent("a")
				a.set(c.edit)
				id := h.store.enqueue("a", "hello")
				h.d.Wake()
				h.until(5 * time.Second)
				checkWrites(t, a.written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}})
				checkCalls(t, h.store, "Delivered", []call{{at: 340 * ms, id: id, agent: "a", arg: "unverified"}})
				h.stop()
			})
		})
	}
}

func TestWideTextOnANarrowRowStillCountsAsOurs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.ignoreEnter = 1 })
		text := "请帮我检查一下这个函数为什么在并发调用时会出现数据竞争的问题"
		h.store.enqueue("a", text)
		h.d.Wake()
		h.until(time.Second)
		// The row shows only the start of the text, each wide rune padded.
		a.set(func(a *fakeAgent) {
			var row []rune
			for _, r := range []rune(text)[:18] {
				row = append(row, r, ' ')
			}
			a.prompt = string(row)
		})
		h.until(5 * time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, text, false}, {340 * ms, "\r", false}, {2840 * ms, "\r", false}})
		h.stop()
	})
}

func TestTextTheAgentNeverShowedIsAFailedAttemptNotADelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.ignoreText = 1 }) // still loading: the first text is lost
		go func() {
			// ... while it keeps drawing (its loading screen).
			time.Sleep(500 * time.Millisecond)
			a.set(func(a *fakeAgent) { a.lastOutput = time.Now() })
		}()
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(4 * time.Second)
		if n := len(h.store.callsOf("Delivered")); n != 0 {
			t.Fatalf("a text that never showed was recorded delivered")
		}
		fails := h.store.callsOf("AttemptFailed")
		if len(fails) != 1 || !strings.Contains(fails[0].arg, "did not take the text") {
			t.Fatalf("AttemptFailed calls %+v, want one 'did not take the text'", fails)
		}
		if d := a.markedDrafts(); len(d) != 0 {
			t.Fatalf("nothing sits on the prompt, but drafts were marked: %q", d)
		}
		// After the cooldown the agent takes it.
		h.until(8 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 4940 * ms, id: id, agent: "a", arg: "verified"}})
		h.stop()
	})
}

func TestTextThatShowsLateThenClearsIsVerified(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		id := h.store.enqueue("a", "hello")
		// The CLI renders the text only after the Enter was pressed, then
		// clears it as it submits.
		a.set(func(a *fakeAgent) { a.ignoreText = 1 })
		go func() {
			time.Sleep(400 * time.Millisecond)
			a.set(func(a *fakeAgent) { a.prompt = "hello" })
			time.Sleep(300 * time.Millisecond)
			a.set(func(a *fakeAgent) { a.prompt = "" })
		}()
		h.d.Wake()
		h.until(3 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 740 * ms, id: id, agent: "a", arg: "verified"}})
		h.stop()
	})
}

func TestTextAnAgentThatDrawsNothingMayStillReadIsHeldNotRetyped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		// A hung agent: it does not read its input, so nothing shows, and
		// it draws nothing at all.
		a.set(func(a *fakeAgent) { a.ignoreText = 1 })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(15 * time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}})
		if c := h.store.callsOf("Hold"); len(c) != 1 || c[0].id != id {
			t.Fatalf("Hold calls %+v, want one for %d", c, id)
		}
		if n := len(h.store.callsOf("AttemptFailed")); n != 0 {
			t.Fatalf("AttemptFailed calls = %d: a retry could type it twice", n)
		}
		if got := h.noticeList(); len(got) != 1 || got[0].Kind != drain.NoticeHeld {
			t.Fatalf("notices %+v, want one held", got)
		}
		if got := h.d.Holds()["a"]; got != drain.HoldInterrupted {
			t.Fatalf("hold %q, want %q", got, drain.HoldInterrupted)
		}
		h.stop()
	})
}

// TestAHeldMessageHoldsOnlyItsAgentsQueue: a message held because its agent
// drew nothing after it was typed stays at the head of that agent's queue:
// nothing behind it is typed (the agent may still hold our bytes unread),
// while other agents go on. The person's notice says so and names the one
// command for each way out. Once the agent's process is restarted, the held
// message is set aside and the queue goes on.
func TestAHeldMessageHoldsOnlyItsAgentsQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a", "b"}, nil)
		a, b := h.agent("a"), h.agent("b")
		a.set(func(a *fakeAgent) { a.ignoreText = 1 })
		id := h.store.enqueue("a", "hello")
		h.store.enqueue("a", "behind it")
		h.store.enqueue("b", "for b")
		h.d.Wake()
		h.until(60 * time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}})
		if w := b.written(); len(w) == 0 || w[0].data != "for b" {
			t.Fatalf("b got %+v: another agent's held message held b", w)
		}
		if got := h.d.Holds()["a"]; got != drain.HoldInterrupted {
			t.Fatalf("hold %q, want %q", got, drain.HoldInterrupted)
		}
		m, ok, _ := h.store.Head(context.Background(), "a")
		if !ok || m.ID != id || !m.Interrupted || m.Evidence == "" {
			t.Fatalf("a's head %+v: want the held message with why it is held", m)
		}
		got := h.noticeList()
		if len(got) != 1 || got[0].Kind != drain.NoticeHeld {
			t.Fatalf("notices %+v, want one held", got)
		}
		first, _, _ := strings.Cut(got[0].Text, "\n")
		for _, want := range []string{fmt.Sprintf("message %d held", id), fmt.Sprintf("office queue rm %d", id), fmt.Sprintf("release %d", id)} {
			if !strings.Contains(first, want) {
				t.Fatalf("the notice's first line %q lacks %q", first, want)
			}
		}
		if !strings.Contains(got[0].Text, "Text: hello") || !strings.Contains(got[0].Text, "nothing else is typed into a") {
			t.Fatalf("the notice %q does not quote the message or say what it holds", got[0].Text)
		}
		// The agent is restarted: the process that might still read it is
		// gone, so it is set aside (never typed again on its own) and the
		// message behind it goes, once, to the new process.
		a.set(func(a *fakeAgent) { a.spawned = time.Now() })
		h.d.Wake()
		h.until(80 * time.Second)
		if c := h.store.callsOf("SetAsideHeld"); len(c) != 1 || c[0].id != id {
			t.Fatalf("SetAsideHeld calls %+v, want one for %d", c, id)
		}
		var texts []string
		for _, w := range a.written() {
			if w.data != "\r" {
				texts = append(texts, w.data)
			}
		}
		if fmt.Sprint(texts) != "[hello behind it]" {
			t.Fatalf("a got %q: want hello once, then the message behind it", texts)
		}
		if got := h.noticeList(); len(got) != 2 || got[1].Kind != drain.NoticeSetAside || !strings.Contains(got[1].Text, fmt.Sprintf("message %d set aside", id)) {
			t.Fatalf("notices %+v, want the set-aside one last", got)
		}
		h.stop()
	})
}

// TestAnExitAndItsLastScreen: an agent whose process ends during the
// submit check. The exit proves nothing, nor does its last screen still
// showing our text on the prompt row (a CLI may take the Enter before it
// redraws): with no records to decide, the message is set aside
// (exited_test.go has every branch of the rule), never counted delivered,
// never dropped as typed-not-submitted on a prompt that is gone, never typed
// again on its own; a slash command too. A last screen whose prompt row is
// empty after our text showed on it is the screen's evidence of a submit
// (the CLI cleared its input), judged as any other.
func TestAnExitAndItsLastScreen(t *testing.T) {
	for _, c := range []struct {
		name, text string
		clear      bool // the row was cleared in the instant before the exit
	}{{"text on the prompt", "hello", false}, {"row cleared", "hello", true}, {"slash command", "/exit", false}} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				a := h.agent("a")
				a.set(func(a *fakeAgent) { a.ignoreEnter = 99 })
				id := h.store.enqueue("a", c.text)
				h.d.Wake()
				h.until(time.Second)
				a.set(func(a *fakeAgent) {
					a.status = automation.StatusExited
					if c.clear {
						a.prompt = ""
					}
				})
				h.until(10 * time.Second)
				checkCalls(t, h.store, "TypedNotSubmitted", nil)
				if c.clear {
					checkCalls(t, h.store, "Delivered", []call{{at: 1040 * ms, id: id, agent: "a", arg: "verified on its last screen (the agent exited)"}})
					checkCalls(t, h.store, "SetAside", nil)
				} else {
					checkCalls(t, h.store, "Delivered", nil)
					if c := h.store.callsOf("SetAside"); len(c) != 1 || c[0].id != id || c[0].at != 1040*ms {
						t.Errorf("SetAside calls %+v, want message %d set aside at the exit", c, id)
					}
				}
				if d := a.markedDrafts(); len(d) != 0 {
					t.Errorf("MarkDraft calls = %q, want none (its process is gone)", d)
				}
				if w := texts(a.written()); len(w) != 1 {
					t.Errorf("texts written %q, want the one typing", w)
				}
				h.stop()
			})
		})
	}
}
