package drain_test

// The channel (handover.go): the gates a head message passes to be handed
// over through a turn-end hook, the claim's durable marks, and how the one
// settle confirms it from the records, or holds it.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
	"office/queue"
	"office/records"
)

const stopHook = "stop hook"

// A turn's end (the first Stop of a turn).
var turnEnd = drain.Turn{Channel: stopHook, PromptID: "p1"}

func TestHandoverGates(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup arranges the agent and the store; it returns the turn
		// Handover is asked for (turnEnd when zero).
		setup func(h *harness, ev *fakeEvidence) drain.Turn
		edit  func(c *drain.Config)
		text  string // "" for nothing handed over
		why   string // a part of Handed.Why when nothing is
	}{
		{name: "busy at the turn's end: handed over", text: "hello"},
		{name: "idle: handed over", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusIdle })
			return turnEnd
		}, text: "hello"},
		{name: "the person's draft: handed over, nothing typed", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.agent("a").set(func(a *fakeAgent) { a.block = automation.BlockDraft; a.prompt = "my draft" })
			return turnEnd
		}, text: "hello"},
		{name: "paused", setup: func(h *harness, ev *fakeEvidence) drain.Turn { h.store.setPaused("a", true); return turnEnd }, why: "paused"},
		{name: "floor paused", setup: func(h *harness, ev *fakeEvidence) drain.Turn { h.store.setFloorPaused(true); return turnEnd }, why: "paused"},
		{name: "a dialog", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusWaiting })
			return turnEnd
		}, why: string(drain.HoldWaiting)},
		{name: "exited", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.agent("a").set(func(a *fakeAgent) { a.block = automation.BlockExited })
			return turnEnd
		}, why: string(drain.HoldExited)},
		{name: "starting", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusStarting })
			return turnEnd
		}, why: string(drain.HoldBooting)},
		{name: "usage limit", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusLimited })
			return turnEnd
		}, why: "limit"},
		{name: "a picker", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.agent("a").set(func(a *fakeAgent) { a.block = automation.BlockPicker })
			return turnEnd
		}, why: string(drain.HoldPicker)},
		{name: "settling", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.agent("a").set(func(a *fakeAgent) { a.block = automation.BlockSettling })
			return turnEnd
		}, why: string(drain.HoldSettling)},
		{name: "the person's send-now is typed", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.store.sendNow(1)
			return turnEnd
		}, why: "person sent it now"},
		{name: "an interrupted head", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.store.mu.Lock()
			h.store.queues["a"][0].Interrupted = true
			h.store.mu.Unlock()
			return turnEnd
		}, why: "held"},
		{name: "a failed precondition", edit: func(c *drain.Config) {
			c.Preconditions = func(context.Context, queue.Message) (bool, error) { return false, nil }
		}, why: "precondition"},
		{name: "the person's own words", edit: func(c *drain.Config) {
			c.Channel = func(context.Context, queue.Message) (bool, error) { return false, nil }
		}, why: "person's own words"},
		{name: "too long: typed", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.store.mu.Lock()
			h.store.queues["a"] = nil
			h.store.mu.Unlock()
			h.store.enqueue("a", strings.Repeat("x", drain.MaxHandBytes+1))
			return turnEnd
		}, why: "longer than MaxHandBytes"},
		{name: "at the bound: handed over", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.store.mu.Lock()
			h.store.queues["a"] = nil
			h.store.mu.Unlock()
			h.store.enqueue("a", strings.Repeat("x", drain.MaxHandBytes))
			return turnEnd
		}, text: strings.Repeat("x", drain.MaxHandBytes)},
		{name: "nothing queued", setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.store.mu.Lock()
			h.store.queues["a"] = nil
			h.store.mu.Unlock()
			return turnEnd
		}, why: "nothing queued"},
		{name: "the cap: the turn's 3rd block of 2", edit: func(c *drain.Config) { c.ChannelBlocks = 2 }, setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			for i := range 2 {
				h.store.enqueue("a", "more")
				got := h.d.Handover(context.Background(), "a", drain.Turn{Channel: stopHook, PromptID: "p1", Continued: i > 0})
				if got.Text == "" {
					h.t.Fatalf("block %d: nothing handed over: %s", i+1, got.Why)
				}
				ev.hand(got.Text)
				h.until(time.Since(h.start) + time.Second) // confirmed, its slot free again
			}
			return drain.Turn{Channel: stopHook, PromptID: "p1", Continued: true}
		}, why: "channel_blocks"},
		{name: "the cap counts per turn: a new prompt starts again", edit: func(c *drain.Config) { c.ChannelBlocks = 1 }, setup: func(h *harness, ev *fakeEvidence) drain.Turn {
			h.store.enqueue("a", "first")
			got := h.d.Handover(context.Background(), "a", turnEnd)
			ev.hand(got.Text)
			h.until(time.Since(h.start) + time.Second)
			return drain.Turn{Channel: stopHook, PromptID: "p2"}
		}, text: "first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ev := &fakeEvidence{keeps: true, proven: true}
				h := newHarness(t, []string{"a"}, func(c *drain.Config) {
					c.Evidence = ev
					if tc.edit != nil {
						tc.edit(c)
					}
				})
				ev.agent = h.agent("a")
				h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusBusy })
				h.store.enqueue("a", "hello")
				turn := turnEnd
				if tc.setup != nil {
					turn = tc.setup(h, ev)
				}
				got := h.d.Handover(context.Background(), "a", turn)
				if got.Text != tc.text {
					t.Fatalf("Handover = %+v, want text %q", got, tc.text)
				}
				if tc.text == "" && !strings.Contains(got.Why, tc.why) {
					t.Errorf("why %q, want it to say %q", got.Why, tc.why)
				}
				if tc.text != "" {
					checkHandingMarks(t, h.store, got.ID)
				}
				h.until(time.Since(h.start) + time.Second)
				if w := h.agent("a").written(); len(w) != 0 {
					t.Errorf("written into the agent: %+v; the channel types nothing", w)
				}
				h.stop()
			})
		})
	}
}

// checkHandingMarks checks that message id was claimed as a typed attempt
// is: Attempt, then Handing naming the channel, before the answer.
func checkHandingMarks(t *testing.T, s *fakeStore, id int64) {
	t.Helper()
	var ops []string
	for _, c := range s.callsOf("") {
		if c.id == id && (c.op == "Attempt" || c.op == "Handing") {
			ops = append(ops, c.op+":"+c.arg)
		}
	}
	if strings.Join(ops, " ") != "Attempt: Handing:"+stopHook {
		t.Errorf("store marks of message %d: %v, want Attempt then Handing naming %q", id, ops, stopHook)
	}
}

// A message handed over is delivered once the CLI's records show it handed
// over (records.Handed), with the channel in its note; nothing is typed,
// and the next message waits for the agent as before.
func TestHandoverConfirmedByTheRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h, id := handedHello(t, ev)
		// A second Stop while the first is unconfirmed hands nothing over.
		h.store.enqueue("a", "next")
		if again := h.d.Handover(context.Background(), "a", drain.Turn{Channel: stopHook, PromptID: "p1", Continued: true}); again.Text != "" {
			t.Fatalf("a second hand-over while the first is unsettled: %+v", again)
		}
		h.until(300 * ms)
		ev.hand("hello")
		h.until(time.Second)
		checkCalls(t, h.store, "Delivered", []call{{at: 400 * ms, id: id, agent: "a", arg: "handed over (stop hook); evidence=transcript"}})
		if last, ch, ok := h.d.LastChannel("a"); !ok || last != id || ch != stopHook {
			t.Errorf("LastChannel = %d %q %v, want %d %q", last, ch, ok, id, stopHook)
		}
		if w := h.agent("a").written(); len(w) != 0 {
			t.Errorf("written: %+v", w)
		}
		h.stop()
	})
}

// A message handed over whose records never show it is held with a notice
// (never handed over or typed again on a guess), and it holds its agent's
// queue as a message typed, not confirmed, does.
func TestHandoverNeverRecordedIsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h, id := handedHello(t, ev, "behind")
		h.until(6 * time.Second)
		h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusIdle })
		h.d.Wake()
		h.until(20 * time.Second)
		holds := h.store.callsOf("Hold")
		if len(holds) != 1 || holds[0].id != id || !strings.Contains(holds[0].arg, "handed over") {
			t.Fatalf("holds %+v, want message %d held as handed over, not confirmed", holds, id)
		}
		ns := h.noticeList()
		if len(ns) != 1 || ns[0].Kind != drain.NoticeHeld || !strings.Contains(ns[0].Text, "handed over to a, not confirmed") {
			t.Fatalf("notices %+v", ns)
		}
		if w := h.agent("a").written(); len(w) != 0 {
			t.Errorf("typed after a hand-over the records never showed: %+v", w)
		}
		if again := h.d.Handover(context.Background(), "a", drain.Turn{Channel: stopHook, PromptID: "p2"}); again.Text != "" {
			t.Errorf("handed over again: %+v", again)
		}
		h.stop()
	})
}

// hand records text as handed over now, as the CLI's transcript does.
func (e *fakeEvidence) hand(text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.handed = append(e.handed, records.Entry{Role: records.RoleHanded, Text: text, At: time.Now(), Source: records.SourceTranscript})
}

// StopHookSilent says once per process that its turn ended with no hook
// call, and never for a process whose hook ran.
func TestStopHookSilentOncePerProcess(t *testing.T) {
	t.Parallel()
	d := drain.New(drain.Config{Store: newFakeStore(time.Now()), Agents: &fakeAgents{m: map[string]*fakeAgent{}}})
	p1, p2 := time.Unix(100, 0), time.Unix(200, 0)
	if !d.StopHookSilent("a", p1) || d.StopHookSilent("a", p1) {
		t.Error("a silent process: want true once, then false")
	}
	d.StopHookRan("a", p2)
	if d.StopHookSilent("a", p2) {
		t.Error("a process whose hook ran was told silent")
	}
	if !d.StopHookSilent("b", p2) {
		t.Error("another agent's silence was not told")
	}
}

// A hand-over whose record comes after evidence_wait (a CLI under load) is
// delivered on it while it waits held, never typed.
func TestHandoverRecordedLateIsDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h, id := handedHello(t, ev)
		h.until(6 * time.Second)
		if holds := h.store.callsOf("Hold"); len(holds) != 1 {
			t.Fatalf("holds %+v, want the hand-over held", holds)
		}
		ev.hand("hello")
		h.d.Wake()
		h.until(10 * time.Second)
		d := h.store.callsOf("Delivered")
		if len(d) != 1 || d[0].id != id || d[0].arg != "handed over (stop hook); evidence=transcript (recorded after it was held)" {
			t.Fatalf("delivered %+v, want the late record to settle it", d)
		}
		if w := h.agent("a").written(); len(w) != 0 {
			t.Errorf("written: %+v", w)
		}
		h.stop()
	})
}

// Whose words are judged again on the message the attempt stamped: an inbox
// delivery's batch is leased by Store.Attempt, so an item from the person
// that arrived after the first check (or one a typed attempt left leased
// to the delivery) is in it only then. When that second look says no, the
// attempt is undone, nothing is marked handed over, and the drain types it.
func TestHandoverWhoseWordsJudgedOnTheStampedMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var asked []queue.Message
		ev := &fakeEvidence{keeps: true, proven: true, record: true}
		h := newHarness(t, []string{"a"}, func(c *drain.Config) {
			c.Evidence = ev
			c.Channel = func(_ context.Context, m queue.Message) (bool, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, m)
				return len(asked) == 1, nil // the person's item joins between the looks
			}
		})
		ev.agent = h.agent("a")
		h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusBusy })
		id := h.store.enqueue("a", "hello")
		got := h.d.Handover(context.Background(), "a", turnEnd)
		if got.Text != "" || !strings.Contains(got.Why, "person's own words") {
			t.Fatalf("Handover = %+v, want nothing handed over: the person's words", got)
		}
		mu.Lock()
		n := len(asked)
		mu.Unlock()
		if n != 2 {
			t.Fatalf("whose words asked %d times, want twice (before and after the attempt)", n)
		}
		var ops []string
		for _, c := range h.store.callsOf("") {
			if c.id == id && (c.op == "Attempt" || c.op == "Handing" || c.op == "Unattempt") {
				ops = append(ops, c.op)
			}
		}
		if strings.Join(ops, " ") != "Attempt Unattempt" {
			t.Fatalf("store marks %v, want the attempt undone and never marked handed over", ops)
		}
		// The drain types it once the agent is idle.
		h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusIdle })
		h.d.Wake()
		h.until(10 * time.Second)
		if w := h.agent("a").written(); len(w) == 0 {
			t.Errorf("nothing typed: the message the channel refused must be typed")
		}
		if d := h.store.callsOf("Delivered"); len(d) != 1 || d[0].id != id || strings.Contains(d[0].arg, "handed") {
			t.Errorf("delivered %+v, want message %d typed and delivered", d, id)
		}
		h.stop()
	})
}

// A stop while a hand-over's records are read ends the polls with one last
// read: what the CLI recorded by then settles it delivered, so no restart
// needs to judge it.
func TestHandoverStopReadsTheRecordsOnceMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h, id := handedHello(t, ev)
		h.until(300 * ms) // the confirmation sleeps between two polls
		ev.hand("hello")  // recorded after the last poll, before the stop
		h.stop()
		d := h.store.callsOf("Delivered")
		if len(d) != 1 || d[0].id != id || d[0].arg != "handed over (stop hook); evidence=transcript" {
			t.Fatalf("delivered %+v, want the hand-over settled on the last read", d)
		}
	})
}

// A stop while a hand-over is being claimed waits for it (the claim is
// counted with the agent's slot, before the store is written), so Run never
// returns with a claim or its confirmation still running on the store.
func TestStopWaitsForAHandoverBeingClaimed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &fakeEvidence{keeps: true, proven: true}
		h := evidenceHarness(t, ev)
		h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusBusy })
		id := h.store.enqueue("a", "hello")
		release := make(chan struct{})
		h.store.mu.Lock()
		h.store.onAttempt = func() { <-release }
		h.store.mu.Unlock()
		got := make(chan drain.Handed, 1)
		go func() { got <- h.d.Handover(context.Background(), "a", turnEnd) }()
		synctest.Wait() // the claim is in Store.Attempt
		h.cancel()
		synctest.Wait()
		select {
		case err := <-h.errc:
			t.Fatalf("Run returned (%v) while a hand-over was being claimed", err)
		default:
		}
		close(release)
		if g := <-got; g.ID != id {
			t.Fatalf("Handover = %+v", g)
		}
		if err := <-h.errc; !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v", err)
		}
		checkHandingMarks(t, h.store, id)
		if again := h.d.Handover(context.Background(), "a", drain.Turn{Channel: stopHook, PromptID: "p2"}); again.Text != "" || !strings.Contains(again.Why, "not running") {
			t.Errorf("a hand-over after the stop: %+v, want none (the drain is not running)", again)
		}
	})
}

// An error that keeps a message from being handed over is reported as one
// (Handed.Err, which the server logs as a warning), not as a gate.
func TestHandoverReportsErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("database is locked")
		h := newHarness(t, []string{"a"}, func(c *drain.Config) {
			c.Channel = func(context.Context, queue.Message) (bool, error) { return false, boom }
		})
		h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusBusy })
		h.store.enqueue("a", "hello")
		got := h.d.Handover(context.Background(), "a", turnEnd)
		if got.Text != "" || !errors.Is(got.Err, boom) || !strings.Contains(got.Why, "checking whose words: database is locked") {
			t.Errorf("Handover = %+v, want nothing handed over, the error in Err and Why", got)
		}
		h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusWaiting })
		if got := h.d.Handover(context.Background(), "a", turnEnd); got.Err != nil || got.Why == "" {
			t.Errorf("a closed gate: %+v, want a why and no error", got)
		}
		h.stop()
	})
}

// handedHello is an evidence harness whose busy agent "a" has "hello" queued,
// then each of behind, and has just handed "hello" over at a turn's end: it
// fails the test unless the hand-over gave that message (id).
func handedHello(t *testing.T, ev *fakeEvidence, behind ...string) (*harness, int64) {
	t.Helper()
	h := evidenceHarness(t, ev)
	h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusBusy })
	id := h.store.enqueue("a", "hello")
	for _, text := range behind {
		h.store.enqueue("a", text)
	}
	if got := h.d.Handover(context.Background(), "a", turnEnd); got.Text != "hello" || got.ID != id {
		t.Fatalf("Handover = %+v", got)
	}
	return h, id
}
