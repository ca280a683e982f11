package drain_test

// The records of a message held typed, not confirmed, are read again while
// it waits at its agent's head; only this typing's own record may settle it
// delivered (docs/evidence.md): the first prompt recorded since the typing,
// equal to its text, within heldRecordWaits evidence_waits, and, after a
// restart, dated before the new process started.

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"office/queue"
	"office/records"
)

// person dates a prompt the person typed into the pane at d after the
// harness started.
func (h *harness) person(text string, d time.Duration) records.Entry {
	return records.Entry{Role: records.RoleUser, Text: text, At: h.start.Add(d), Source: "hook"}
}

// editMessage changes message id in the fake store as edit says.
func (s *fakeStore) editMessage(id int64, edit func(*queue.Message)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range s.queues {
		for i := range q {
			if q[i].ID == id {
				edit(&q[i])
			}
		}
	}
}

// checkStillHeld checks that message id was never delivered and is still
// held at its agent's head, not typed again.
func checkStillHeld(t *testing.T, h *harness, id int64) {
	t.Helper()
	if c := h.store.callsOf("Delivered"); len(c) != 0 {
		t.Fatalf("Delivered %+v: a record that is not this typing's settled the held message", c)
	}
	m, ok, err := h.store.Head(t.Context(), "a")
	if err != nil || !ok || m.ID != id || !m.Interrupted {
		t.Fatalf("head %+v %v %v, want message %d still held", m, ok, err, id)
	}
	if got := texts(h.agent("a").written()); len(got) != 1 {
		t.Fatalf("typed %q, want the held message once", got)
	}
}

// The held text never reached the CLI; the person types a prompt that
// contains it, then (later) the text itself: neither is this typing's
// record, and the message stays held, never counted delivered.
func TestAPersonsPromptContainingTheHeldTextDoesNotSettleIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true}
		h := evidenceHarness(t, ev)
		defer h.stop()
		id := h.store.enqueue("a", "run the tests")
		ev.person = []records.Entry{h.person("don't run the tests yet", 10*time.Second), h.person("run the tests", 12*time.Second)}
		h.d.Wake()
		h.until(8 * time.Second)
		checkUnconfirmed(t, h, id)
		h.until(60 * time.Second)
		checkStillHeld(t, h, id)
	})
}

// The first prompt recorded since the typing is the text, white space
// aside: it is this typing's record, and settles it delivered.
func TestTheFirstPromptSinceEqualToTheTextSettlesIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true}
		h := evidenceHarness(t, ev)
		defer h.stop()
		id := h.store.enqueue("a", "run the tests")
		ev.person = []records.Entry{h.person(" run  the tests\n", 10*time.Second)}
		h.d.Wake()
		h.until(20 * time.Second)
		if c := h.store.callsOf("Delivered"); len(c) != 1 || c[0].id != id {
			t.Fatalf("Delivered %+v, want message %d on its record", c, id)
		}
	})
}

// A record dated after heldRecordWaits evidence_waits is not looked for:
// the reads stop (they run on the drain's one goroutine), and the message
// stays held.
func TestARecordMuchLaterDoesNotSettleAHeldMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, record: true, from: time.Now().Add(45 * time.Second)}
		h, id := heldHello(t, ev)
		defer h.stop()
		h.until(100 * time.Second)
		checkStillHeld(t, h, id)
		ev.mu.Lock()
		reads := ev.reads
		ev.mu.Unlock()
		h.d.Wake()
		h.until(200 * time.Second)
		ev.mu.Lock()
		defer ev.mu.Unlock()
		if ev.reads != reads {
			t.Fatalf("records read %d times more after the bound", ev.reads-reads)
		}
	})
}

// After a restart, the person types the held text again into the new
// process (Claude's hook log is one file across its processes): that record
// is the new process's; the held message is set aside, not delivered.
func TestARestartedAgentsNewPromptDoesNotSettleAHeldMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true}
		h, id := heldHello(t, ev)
		defer h.stop()
		ev.mu.Lock()
		ev.person = []records.Entry{h.person("hello", 8*time.Second)}
		ev.mu.Unlock()
		h.restart("a", nil)
		h.until(20 * time.Second)
		if c := h.store.callsOf("Delivered"); len(c) != 0 {
			t.Fatalf("Delivered %+v: the new process's prompt settled the held message", c)
		}
		if c := h.store.callsOf("SetAsideHeld"); len(c) != 1 || c[0].id != id || !strings.Contains(c[0].arg, "not confirmed") {
			t.Fatalf("SetAsideHeld %+v, want message %d set aside", c, id)
		}
	})
}

// The held message is the head from another typing now (its Writing stamp
// changed): the drain's memory of the typing it held is not that one's,
// and a record of the text does not settle it.
func TestAHeldMessageTypedAgainIsNotTheTypingTheDrainHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, record: true, from: time.Now().Add(12 * time.Second)}
		h, id := heldHello(t, ev)
		defer h.stop()
		h.store.editMessage(id, func(m *queue.Message) { m.Writing = time.Now() })
		h.d.Wake()
		h.until(30 * time.Second)
		checkStillHeld(t, h, id)
	})
}

// heldHello starts the evidence harness on ev, has "hello" typed into
// agent a, and returns once the drain holds it typed but unconfirmed (8 s
// of the bubble's clock), with its id.
func heldHello(t *testing.T, ev *fakeEvidence) (*harness, int64) {
	t.Helper()
	h := evidenceHarness(t, ev)
	id := h.store.enqueue("a", "hello")
	h.d.Wake()
	h.until(8 * time.Second)
	checkUnconfirmed(t, h, id)
	return h, id
}
