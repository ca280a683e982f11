package drain_test

// Review findings on the exit rule (docs/evidence.md, "An exit during the
// submit check"): an exit before the Enter, a store failing while a message
// is set aside, a stop during the check.

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
)

// The process is restarted between our text and its Enter (the gap of
// enter_after_echo can last seconds): the Enter cannot be written, the text
// died on the prompt with the process. The message stays queued, no attempt
// is counted, no draft is marked, and it is typed into the next process.
func TestAnExitBeforeTheEnterKeepsTheMessageQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, func(c *drain.Config) { c.EnterDelay = 500 * ms })
		old := h.agent("a")
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(200 * ms) // the text is on the prompt, the Enter is due at 500 ms
		old.set(func(a *fakeAgent) { a.writeErr = errors.New("pty closed") })
		fresh := h.restart("a", nil)
		h.until(30 * time.Second)
		if c := h.store.callsOf("TypedNotSubmitted"); len(c) != 0 {
			t.Fatalf("TypedNotSubmitted %+v: the text died with the process, nothing sits on a prompt", c)
		}
		if c := h.store.callsOf("AttemptFailed"); len(c) != 0 {
			t.Fatalf("AttemptFailed %+v: an exit before the Enter counts no attempt", c)
		}
		if d := old.markedDrafts(); len(d) != 0 {
			t.Fatalf("drafts %q marked on a terminal whose process is gone", d)
		}
		if c := h.store.callsOf("Unattempt"); len(c) == 0 || !strings.Contains(c[0].arg, "died on that prompt") {
			t.Fatalf("Unattempt %+v: the abandoned attempt must say the text died on the prompt, not that nothing was typed", c)
		}
		if got := texts(fresh.written()); !slices.Equal(got, []string{"hello"}) {
			t.Fatalf("the new process was typed %q, want hello once", got)
		}
		if c := h.store.callsOf("Delivered"); len(c) != 1 || c[0].id != id {
			t.Fatalf("Delivered %+v, want %d delivered into the new process", c, id)
		}
		h.stop()
	})
}

// The store fails to set aside a message whose agent exited during the
// submit check, and fails to hold it too: it is still in flight there, and
// nothing in the store stops it. The drain remembers it: the agent's queue
// waits (nothing is typed into the new process), each pass tries again, and
// once the store sets it aside the person is told and the queue goes on.
func TestASetAsideTheStoreFailsHoldsTheQueueUntilItSucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		old := h.agent("a")
		old.set(swallow)
		h.store.mu.Lock()
		h.store.setAsideErrs, h.store.holdErrs = 99, 99
		h.store.mu.Unlock()
		id := h.store.enqueue("a", "hello")
		behind := h.store.enqueue("a", "behind it")
		h.d.Wake()
		h.until(time.Second)
		fresh := h.restart("a", nil)
		h.until(30 * time.Second)
		if got := texts(fresh.written()); len(got) != 0 {
			t.Fatalf("the new process was typed %q while message %d's setting aside is not recorded", got, id)
		}
		h.store.mu.Lock()
		h.store.setAsideErrs, h.store.holdErrs = 0, 0
		h.store.mu.Unlock()
		h.d.Wake()
		h.until(60 * time.Second)
		if c := h.store.callsOf("SetAside"); len(c) != 1 || c[0].id != id {
			t.Fatalf("SetAside %+v, want %d set aside once the store works", c, id)
		}
		if got := texts(fresh.written()); !slices.Equal(got, []string{"behind it"}) {
			t.Fatalf("the new process was typed %q, want only the message behind it", got)
		}
		if c := h.store.callsOf("Delivered"); len(c) != 1 || c[0].id != behind {
			t.Fatalf("Delivered %+v, want only %d", c, behind)
		}
		var n int
		for _, x := range h.noticeList() {
			if x.Kind == drain.NoticeSetAside && x.MsgID == id &&
				strings.HasPrefix(x.Text, "message 1 set aside: a exited before its submit was seen") {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("notices %+v: want one set-aside notice for %d", h.noticeList(), id)
		}
		h.stop()
	})
}

// Setting aside fails but holding works: the person is told it is held, and
// why; once the agent runs a new process it is set aside with the same
// evidence (not "drew nothing").
func TestASetAsideTheStoreFailsIsHeldAndTold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		old := h.agent("a")
		old.set(swallow)
		h.store.mu.Lock()
		h.store.setAsideErrs = 3
		h.store.mu.Unlock()
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(time.Second)
		old.set(func(a *fakeAgent) { a.status = automation.StatusExited })
		h.until(20 * time.Second)
		var held bool
		for _, x := range h.noticeList() {
			held = held || x.Kind == drain.NoticeHeld && x.MsgID == id &&
				strings.HasPrefix(x.Text, "message 1 held: a exited before its submit was seen")
		}
		if !held {
			t.Fatalf("notices %+v: none says %d is held because its agent exited", h.noticeList(), id)
		}
		fresh := h.restart("a", nil)
		h.until(40 * time.Second)
		if got := texts(fresh.written()); len(got) != 0 {
			t.Fatalf("the new process was typed %q: a held message is never typed again on its own", got)
		}
		c := h.store.callsOf("SetAsideHeld")
		if len(c) != 1 || c[0].id != id || !strings.Contains(c[0].arg, "exited before the submit was seen") {
			t.Fatalf("SetAsideHeld %+v, want %d set aside with the exit's evidence", c, id)
		}
		h.stop()
	})
}

// The office stops during the submit check, and the agent's process ends
// with it: the stop settles nothing (no failed attempt counted, nothing
// delivered or dropped); the message stays in flight for the next start's
// recovery.
func TestAStopDuringTheCheckSettlesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &tookEvidence{keeps: true, proven: true}
		h := newHarness(t, []string{"a"}, func(c *drain.Config) { c.Evidence = ev })
		ev.h, ev.mute = h, h.agent("a")
		a := h.agent("a")
		a.set(swallow)
		h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(time.Second) // typed, the check is watching
		a.set(func(a *fakeAgent) { a.status = automation.StatusExited })
		h.stop()
		synctest.Wait()
		for _, op := range []string{"AttemptFailed", "Delivered", "TypedNotSubmitted", "SetAside", "Hold", "Unattempt"} {
			if c := h.store.callsOf(op); len(c) != 0 {
				t.Fatalf("%s %+v after a stop during the check: a stop settles nothing", op, c)
			}
		}
	})
}

// The CLI's last screen shows its prompt emptied after our text (as after a
// submit), but its records, which it keeps, do not show the text. Whether
// they would have is decided by what was known before typing, for the
// process typed into, not for the process a restart put in its place:
//   - proven for that process: it never took it, a failed attempt, typed
//     again into the next process;
//   - not proven: the screen alone does not settle it (a CLI may redraw an
//     empty input as it is killed), set aside for the person.
func TestALastScreenIsJudgedByTheRecordsOfTheProcessTypedInto(t *testing.T) {
	for _, tc := range []struct {
		name   string
		proven bool
		want   string // "again" or "aside"
	}{
		{name: "proven before typing", proven: true, want: "again"},
		{name: "not proven", want: "aside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ev := &tookEvidence{keeps: true}
				h := newHarness(t, []string{"a"}, func(c *drain.Config) { c.Evidence = ev; c.EnterDelay = 500 * ms })
				old := h.agent("a")
				ev.h, ev.mute = h, old
				if tc.proven {
					ev.provenFor = old
				} else {
					ev.provenFor = &fakeAgent{} // no process is proven
				}
				old.set(func(a *fakeAgent) { a.ignoreEnter = 1 })
				id := h.store.enqueue("a", "hello")
				h.d.Wake()
				h.until(720 * ms) // text at 200 ms, its Enter at 700 ms, the first look at 800 ms
				if w := old.written(); len(w) != 2 || w[1].data != "\r" {
					t.Fatalf("writes %+v by 720 ms, want the text and its Enter", w)
				}
				// Killed by the restart, the CLI leaves its prompt row
				// empty on its last screen.
				old.set(func(a *fakeAgent) { a.prompt = "" })
				fresh := h.restart("a", ev)
				h.until(60 * time.Second)
				if c := h.store.callsOf("Delivered"); tc.want == "aside" && len(c) != 0 {
					t.Fatalf("Delivered %+v: the last screen alone settled it", c)
				}
				switch tc.want {
				case "again":
					fails := h.store.callsOf("AttemptFailed")
					if len(fails) != 1 || fails[0].id != id {
						t.Fatalf("AttemptFailed %+v, Delivered %+v: want one failed attempt on %d", fails, h.store.callsOf("Delivered"), id)
					}
					if got := texts(fresh.written()); !slices.Equal(got, []string{"hello"}) {
						t.Fatalf("the new process was typed %q, want hello", got)
					}
				case "aside":
					if c := h.store.callsOf("SetAside"); len(c) != 1 || c[0].id != id {
						t.Fatalf("SetAside %+v, want %d set aside", c, id)
					}
					if got := texts(fresh.written()); len(got) != 0 {
						t.Fatalf("the new process was typed %q", got)
					}
				}
				h.stop()
			})
		})
	}
}
