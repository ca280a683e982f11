package drain_test

// Review findings on the exit rule (docs/evidence.md, "An exit during the
// submit check"): an exit before the Enter, a store failing while a message
// is set aside, a stop during the check.

import (
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

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
		if got := texts(fresh.written()); !slices.Equal(got, []string{"hello"}) {
			t.Fatalf("the new process was typed %q, want hello once", got)
		}
		if c := h.store.callsOf("Delivered"); len(c) != 1 || c[0].id != id {
			t.Fatalf("Delivered %+v, want %d delivered into the new process", c, id)
		}
		h.stop()
	})
}
