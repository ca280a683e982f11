package drain_test

// Delivery evidence: the agent's own records decide whether a typed text
// arrived (docs/evidence.md).

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"office/drain"
	"office/queue"
	"office/records"
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
	// from, when set, is when the records first show what they record (a
	// CLI that writes its record late).
	from time.Time
	// person is what the person typed into the agent's pane themselves,
	// as its records show it (dated).
	person []records.Entry
	// handed is what the CLI recorded as handed over by its turn-end hook.
	handed []records.Entry
	reads  int
}

// Handed looks for text among the hand-overs recorded (records.Handed, the
// real matcher).
func (e *fakeEvidence) Handed(_ context.Context, _ string, text string, since time.Time) (string, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads++
	var now []records.Entry
	for _, en := range e.handed {
		if !en.At.After(time.Now()) {
			now = append(now, en)
		}
	}
	en, _, ok := records.Handed("", now, text, since, nil)
	return en.Source, ok, nil
}

func (e *fakeEvidence) Keeps(string) (bool, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.keeps, e.proven
}

// Received looks for text among the records (records.Received, the real
// matcher: a prompt that contains it counts).
func (e *fakeEvidence) Received(_ context.Context, _ string, text string, since time.Time) (string, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads++
	en, _, ok := records.Received(e.entries(), text, since, nil)
	return en.Source, ok, nil
}

// Late is the first prompt recorded since since (records.First).
func (e *fakeEvidence) Late(_ context.Context, _ string, text string, since, until time.Time) (drain.LateRecord, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads++
	en, ok, same := records.First(e.entries(), text, since, until)
	return drain.LateRecord{Any: ok, Same: same, Source: en.Source, At: en.At}, nil
}

// entries are the records by now, in date order: with record set, each text
// the agent was written, dated when it was written (or at from, if later),
// and the person's own prompts. e.mu held.
func (e *fakeEvidence) entries() []records.Entry {
	es := slices.Clone(e.person)
	if e.record {
		for _, w := range e.agent.written() {
			at := e.agent.start.Add(w.at)
			if at.Before(e.from) {
				at = e.from
			}
			if d := strings.TrimSpace(w.data); d != "" && !w.err {
				es = append(es, records.Entry{Role: records.RoleUser, Text: d, At: at, Source: "hook"})
			}
		}
	}
	slices.SortStableFunc(es, func(x, y records.Entry) int { return x.At.Compare(y.At) })
	var now []records.Entry
	for _, en := range es {
		if !en.At.After(time.Now()) {
			now = append(now, en)
		}
	}
	return now
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

// The attempt counted failed for want of a record (above), whose record
// then comes late (a CLI under load): before the text is typed again, two
// evidence_waits after the first typing, the records are read once more,
// and the late record settles it delivered: the text is typed once.
func TestAnUntakenAttemptsLateRecordIsNotTypedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true, record: true, from: time.Now().Add(7 * time.Second)}
		h := evidenceHarness(t, ev)
		defer h.stop()
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(20 * time.Second)
		if c := h.store.callsOf("AttemptFailed"); len(c) != 1 {
			t.Fatalf("AttemptFailed calls %+v, want the first attempt's", c)
		}
		d := h.store.callsOf("Delivered")
		if len(d) != 1 || d[0].id != id || !strings.Contains(d[0].arg, "recorded after its attempt was counted failed") {
			t.Fatalf("Delivered calls %+v, want message %d delivered by its late record", d, id)
		}
		n := 0
		for _, w := range h.agent("a").written() {
			if strings.TrimSpace(w.data) == "hello" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("hello typed %d times, want once", n)
		}
	})
}

// The untaken attempt's agent turned busy with it (the CLI took it, its
// record is late) and its turn ends before the retry is due: the channel
// never hands the message over (it would arrive twice); only the typed
// path, after one more look at the records, may.
func TestAnUntakenAttemptIsNeverHandedOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true, record: true, from: time.Now().Add(7 * time.Second)}
		h := evidenceHarness(t, ev)
		defer h.stop()
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(6 * time.Second)
		if c := h.store.callsOf("AttemptFailed"); len(c) != 1 || c[0].id != id {
			t.Fatalf("AttemptFailed calls %+v, want the first attempt's", c)
		}
		for _, at := range []time.Duration{0, 8 * time.Second} {
			h.until(6*time.Second + at)
			if got := h.d.Handover(context.Background(), "a", turnEnd); got.Text != "" {
				t.Fatalf("an untaken message handed over at %v: %+v", 6*time.Second+at, got)
			}
		}
		h.until(30 * time.Second)
		if d := h.store.callsOf("Delivered"); len(d) != 1 || !strings.Contains(d[0].arg, "recorded after its attempt was counted failed") {
			t.Fatalf("Delivered calls %+v, want one by its late record", d)
		}
	})
}

// With no record ever, the untaken attempt is typed again, no sooner than
// two evidence_waits after its first typing, and once per failed attempt.
func TestAnUntakenAttemptIsTypedAgainAfterTwoEvidenceWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h := evidenceHarness(t, ev)
		defer h.stop()
		h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(30 * time.Second)
		var at []time.Duration
		for _, w := range h.agent("a").written() {
			if strings.TrimSpace(w.data) == "hello" {
				at = append(at, w.at)
			}
		}
		if len(at) < 2 {
			t.Fatalf("hello typed at %v, want typed again after the failed attempt", at)
		}
		if gap := at[1] - at[0]; gap < 2*5*time.Second {
			t.Fatalf("typed again %v after the first typing, want at least two evidence_waits", gap)
		}
	})
}

// Busy after the Enter with no record: the CLI may have queued the text to
// record later, or taken it unrecorded; typing it again could duplicate it,
// and a CLI that keeps records confirms every delivery: it is held (typed,
// not confirmed), never counted delivered, and the person is told.
func TestBusyWithoutRecordIsHeldNotDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h := evidenceHarness(t, ev)
		h.agent("a").set(func(a *fakeAgent) { a.busyOnEnter = true })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(6 * time.Second)
		checkUnconfirmed(t, h, id)
		h.stop()
	})
}

// TestAHeldInboxDeliverysNoticeSaysRmEndsItsItems: the held notice of an
// inbox delivery says what `office queue rm` does with its items (they are
// done, not delivered again), which a queue message's does not need.
func TestAHeldInboxDeliverysNoticeSaysRmEndsItsItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h := evidenceHarness(t, ev)
		defer h.stop()
		h.agent("a").set(func(a *fakeAgent) { a.busyOnEnter = true })
		id := h.store.enqueue("a", "your mail", func(m *queue.Message) { m.Kind = queue.KindInbox })
		h.d.Wake()
		h.until(6 * time.Second)
		checkUnconfirmed(t, h, id)
		if n := h.noticeList(); !strings.Contains(n[0].Text, "items are then done, not delivered again") {
			t.Fatalf("notice %q does not say rm ends the delivery's items", n[0].Text)
		}
	})
}

// checkUnconfirmed checks that message id was held as typed, not confirmed,
// with a notice, and never counted delivered.
func checkUnconfirmed(t *testing.T, h *harness, id int64) {
	t.Helper()
	if c := h.store.callsOf("Delivered"); len(c) != 0 {
		t.Fatalf("counted delivered on the screen alone: %+v", c)
	}
	if c := h.store.callsOf("Hold"); len(c) != 1 || c[0].id != id || !strings.Contains(c[0].arg, "not confirmed") {
		t.Fatalf("Hold calls %+v, want one for message %d, typed not confirmed", c, id)
	}
	n := h.noticeList()
	if len(n) != 1 || n[0].Kind != drain.NoticeHeld || !strings.Contains(n[0].Text, "not confirmed") {
		t.Fatalf("notices %+v, want one held notice", n)
	}
}

// Records not yet seen to work for this run of the agent (its first
// delivery): they are watched for evidence_wait all the same, and a record
// that comes confirms the delivery.
func TestUnprovenRecordsAreWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, record: true}
		h := evidenceHarness(t, ev)
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2 * time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 440 * ms, id: id, agent: "a", arg: "verified; evidence=hook"}})
		h.stop()
	})
}

// Unproven records that never show the text: the screen alone never counts
// it delivered (Claude Code 2.1.332 typed into a first-run offer looked
// submitted on screen and was logged delivered, evidence=screen).
func TestUnprovenRecordsWithoutTheTextHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true}
		h := evidenceHarness(t, ev)
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(8 * time.Second)
		checkUnconfirmed(t, h, id)
		if ev.reads < 2 {
			t.Fatalf("records read %d times, want them watched for evidence_wait", ev.reads)
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

// A CLI under load wrote its record after evidence_wait: the message was held
// typed, not confirmed, and the record that comes while it waits at the head
// settles it delivered with that evidence; it is never typed again.
func TestALateRecordSettlesAHeldUnconfirmedMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, record: true, from: time.Now().Add(9 * time.Second)}
		h := evidenceHarness(t, ev)
		defer h.stop()
		id := h.store.enqueue("a", "hello")
		h.store.enqueue("a", "behind it")
		h.d.Wake()
		h.until(8 * time.Second)
		checkUnconfirmed(t, h, id)
		h.until(20 * time.Second)
		c := h.store.callsOf("Delivered")
		if len(c) == 0 || c[0].id != id || c[0].arg != "verified; evidence=hook (recorded after it was held)" {
			t.Fatalf("Delivered calls %+v, want message %d delivered on its late record", c, id)
		}
		if c[0].at < 9*time.Second {
			t.Fatalf("delivered at %v, before its record came", c[0].at)
		}
		n := 0
		for _, w := range h.agent("a").written() {
			if strings.Contains(w.data, "hello") {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("the held message was typed %d times, want once", n)
		}
		if len(c) != 2 || !strings.HasPrefix(c[1].arg, "verified; evidence=hook") {
			t.Fatalf("Delivered calls %+v: the message behind it did not go on", c)
		}
	})
}
