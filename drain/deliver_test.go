package drain_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
)

func TestDraftThatAppearsWhileTheAttemptIsStampedStopsTheTyping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		h.store.mu.Lock()
		h.store.onAttempt = func() { a.set(func(a *fakeAgent) { a.block = automation.BlockDraft }) }
		h.store.mu.Unlock()
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2 * time.Second)
		if w := a.written(); len(w) != 0 {
			t.Fatalf("typed into the person's new draft: %+v", w)
		}
		checkCalls(t, h.store, "Unattempt", []call{{at: 200 * ms, id: id, agent: "a"}})
		if got := h.d.Holds()["a"]; got != "your draft" {
			t.Fatalf("hold %q, want your draft", got)
		}
		h.stop()
	})
}

func TestDeliveryTheStoreFailsToRecordIsHeldNotRetyped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		h.store.mu.Lock()
		h.store.deliveredErrs = 4 // three tries at delivery, one more on the next pass
		h.store.mu.Unlock()
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2 * time.Second)
		if got := h.d.Holds()["a"]; got != drain.HoldInterrupted {
			t.Fatalf("hold %q, want %q while the delivery is unrecorded", got, drain.HoldInterrupted)
		}
		// Well past the cooldown: the store recovers on the next pass and
		// the message is recorded, never typed a second time.
		h.until(10 * time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}})
		if d := h.store.callsOf("Delivered"); len(d) != 1 || d[0].id != id {
			t.Fatalf("Delivered calls %+v, want one for %d", d, id)
		}
		h.stop()
	})
}

func TestLineByLineFailureAfterALineWentInIsNotRetyped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"sh"}, nil)
		a := h.agent("sh")
		a.set(func(a *fakeAgent) { a.profile = drain.SubmitProfile{LineByLine: true, Unverifiable: true} })
		h.store.enqueue("sh", "rm -rf build\nmake")
		go func() {
			// The first line and its Enter go in (200, 340 ms); the second
			// line's write fails.
			time.Sleep(400 * time.Millisecond)
			a.set(func(a *fakeAgent) { a.writeErr = errors.New("pty: input/output error") })
		}()
		h.d.Wake()
		h.until(15 * time.Second)
		n := 0
		for _, w := range a.written() {
			if w.data == "rm -rf build" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("the first line was typed %d times: %+v", n, a.written())
		}
		if q := h.store.queued("sh"); len(q) != 0 {
			t.Fatalf("a partly typed message stays queued for a retry: %+v", q)
		}
		if got := h.noticeList(); len(got) != 1 || got[0].Kind != drain.NoticeTypedNotSubmitted {
			t.Fatalf("notices %+v, want one typed_not_submitted", got)
		}
		h.stop()
	})
}

// partialErr is a write error after some bytes went in (as pool reports it).
type partialErr struct{}

func (partialErr) Error() string { return "i/o timeout (after 4096 bytes were written)" }
func (partialErr) Partial() bool { return true }

func TestTextCutShortByAFailedWriteIsNotRetyped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.writeErr = partialErr{} })
		h.store.enqueue("a", "a long text")
		h.d.Wake()
		h.until(15 * time.Second)
		if w := a.written(); len(w) != 1 {
			t.Fatalf("writes %+v: a text partly written must not be typed again", w)
		}
		if q := h.store.queued("a"); len(q) != 0 {
			t.Fatalf("still queued for a retry: %+v", q)
		}
		if got := h.noticeList(); len(got) != 1 || got[0].Kind != drain.NoticeTypedNotSubmitted {
			t.Fatalf("notices %+v, want one typed_not_submitted", got)
		}
		h.stop()
	})
}
