package drain_test

// Delivery evidence: the agent's own records decide whether a typed text
// arrived (docs/evidence.md).

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"office/drain"
)

// fakeEvidence is an agent CLI's records: what a records reader would find.
// A text counts as recorded once the agent had it written (and, with
// record set, pressed Enter on it).
type fakeEvidence struct {
	mu     sync.Mutex
	agent  *fakeAgent
	keeps  bool
	proven bool
	record bool // the CLI records what it is given
	reads  int
}

func (e *fakeEvidence) Keeps(string) (bool, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.keeps, e.proven
}

func (e *fakeEvidence) Received(_ context.Context, _ string, text string, since time.Time) (string, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads++
	if !e.record {
		return "", false, nil
	}
	for _, w := range e.agent.written() {
		if strings.Contains(w.data, text) {
			return "hook", true, nil
		}
	}
	return "", false, nil
}

func evidenceHarness(t *testing.T, ev *fakeEvidence) *harness {
	h := newHarness(t, []string{"a"}, func(c *drain.Config) { c.Evidence = ev })
	ev.agent = h.agent("a")
	return h
}

func TestRecordedDeliveryNamesItsEvidence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true, record: true}
		h := evidenceHarness(t, ev)
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 440 * ms, id: id, agent: "a", arg: "verified; evidence=hook"}})
		h.stop()
	})
}

// The screen saw a submit (the row emptied), but the records, which work for
// this agent, never show the text, and the prompt is empty: the CLI did not
// take it, so it is a failed attempt and is typed again after the cooldown.
func TestSubmitWithoutRecordIsAFailedAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h := evidenceHarness(t, ev)
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(6 * time.Second)
		if c := h.store.callsOf("Delivered"); len(c) != 0 {
			t.Fatalf("delivered with no record: %+v", c)
		}
		checkCalls(t, h.store, "AttemptFailed", []call{{at: 5440 * ms, id: id, agent: "a",
			arg: "the agent did not take the text: its records do not show it and the prompt is empty"}})
		h.stop()
	})
}

// Busy after the Enter with no record: the CLI may have queued the text to
// record later; typing it again could duplicate it, so it counts, noted.
func TestBusyWithoutRecordIsUnverified(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h := evidenceHarness(t, ev)
		h.agent("a").set(func(a *fakeAgent) { a.busyOnEnter = true })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(6 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 5440 * ms, id: id, agent: "a",
			arg: "unverified: the CLI's records do not show it (screen: verified); evidence=no record"}})
		h.stop()
	})
}

// Records not yet seen to work for this run of the agent: one look, then
// the screen decides.
func TestUnprovenRecordsLeaveItToTheScreen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true}
		h := evidenceHarness(t, ev)
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 440 * ms, id: id, agent: "a", arg: "verified; evidence=screen"}})
		if ev.reads != 1 {
			t.Fatalf("records read %d times, want one look", ev.reads)
		}
		h.stop()
	})
}

// The screen never showed the submit, but the CLI's record has the text: it
// arrived, and nothing is typed again.
func TestRecordOutranksTheScreen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true, record: true}
		h := evidenceHarness(t, ev)
		h.agent("a").set(func(a *fakeAgent) { a.ignoreEnter = 99 })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(8 * time.Second)
		c := h.store.callsOf("Delivered")
		if len(c) != 1 || c[0].id != id || !strings.HasPrefix(c[0].arg, "received (the screen did not show the submit); evidence=hook") {
			t.Fatalf("Delivered calls %+v", c)
		}
		if d := h.store.callsOf("Drop"); len(d) != 0 {
			t.Fatalf("dropped as typed-not-submitted: %+v", d)
		}
		h.stop()
	})
}

// No record kind: the note still says the screen decided.
func TestNoRecordsScreenDecides(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{}
		h := evidenceHarness(t, ev)
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 440 * ms, id: id, agent: "a", arg: "verified; evidence=screen"}})
		if ev.reads != 0 {
			t.Fatalf("records read %d times for an agent that keeps none", ev.reads)
		}
		h.stop()
	})
}

// A CLI that loses Enters for a while (Gemini right after a resume) gets up
// to EnterRetries more Enters, each only while our text sits on its prompt.
func TestEnterRetriesWhileTheTextSitsOnThePrompt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.ignoreEnter = 3; a.profile.EnterRetries = 3 })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(12 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 7940 * ms, id: id, agent: "a", arg: "verified (Enter 4)"}})
		if n := strings.Count(strings.Join(func() []string {
			var out []string
			for _, w := range a.written() {
				out = append(out, w.data)
			}
			return out
		}(), "|"), "\r"); n != 4 {
			t.Fatalf("%d Enters, want 4", n)
		}
		h.stop()
	})
}

// With EnterAfterEcho the Enter waits for the text to show on the prompt
// row (bounded): a CLI that has not read it yet would read both at once.
func TestEnterWaitsForTheEcho(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.ignoreText = 1; a.profile.EnterAfterEcho = true })
		h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(4 * time.Second)
		w := a.written()
		if len(w) < 2 || w[0].data != "hello" || w[1].data != "\r" || w[1].at < 3340*ms {
			t.Fatalf("writes %+v: the Enter did not wait for the echo", w)
		}
		h.stop()
	})
}

// A slash command is run, not recorded as a prompt: records are no evidence.
func TestSlashCommandNeedsNoRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h := evidenceHarness(t, ev)
		id := h.store.enqueue("a", "/compact")
		h.d.Wake()
		h.until(2 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 440 * ms, id: id, agent: "a", arg: "verified; evidence=screen"}})
		if ev.reads != 0 {
			t.Fatalf("records read %d times for a slash command", ev.reads)
		}
		h.stop()
	})
}
