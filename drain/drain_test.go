package drain_test

// Scheduling: the fixed debounce after Wake, the tick, the per-agent
// cooldown, independent agents, stopping.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
)

// checkWrites compares recorded writes with want, times included.
func checkWrites(t *testing.T, got, want []write) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("writes:\n got %v\nwant %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("write %d:\n got %+v\nwant %+v\n(all: %v)", i, got[i], want[i], got)
		}
	}
}

// checkCalls compares the store's recorded calls of one op with want.
func checkCalls(t *testing.T, s *fakeStore, op string, want []call) {
	t.Helper()
	got := s.callsOf(op)
	if len(got) != len(want) {
		t.Fatalf("%s calls:\n got %+v\nwant %+v", op, got, want)
	}
	for i := range want {
		w := want[i]
		w.op = op
		if got[i] != w {
			t.Fatalf("%s call %d:\n got %+v\nwant %+v", op, i, got[i], w)
		}
	}
}

func TestWakeDeliversAfterDebounceAndEnterDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(time.Second)
		checkWrites(t, h.agent("a").written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}})
		checkCalls(t, h.store, "Attempt", []call{{at: 200 * ms, id: id, agent: "a"}})
		// The prompt row is empty at the first look, 100 ms after Enter.
		checkCalls(t, h.store, "Delivered", []call{{at: 440 * ms, id: id, agent: "a", arg: "verified"}})
		if q := h.store.queued("a"); len(q) != 0 {
			t.Errorf("queue after delivery = %v, want empty", q)
		}
		h.stop()
	})
}

func TestSecondWakeDoesNotExtendDebounce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		h.d.Wake() // some unrelated change at 0
		h.until(150 * ms)
		h.store.enqueue("a", "hi")
		h.d.Wake() // inside the window: folded into the pass at 200 ms
		h.until(time.Second)
		checkWrites(t, h.agent("a").written(), []write{{200 * ms, "hi", false}, {340 * ms, "\r", false}})
		h.stop()
	})
}

func TestTickDeliversWithoutWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		h.store.enqueue("a", "hi")
		h.until(2999 * ms)
		if w := h.agent("a").written(); len(w) != 0 {
			t.Fatalf("wrote before the tick: %v", w)
		}
		h.until(4 * time.Second)
		checkWrites(t, h.agent("a").written(), []write{{3 * time.Second, "hi", false}, {3140 * ms, "\r", false}})
		h.stop()
	})
}

func TestCooldownBetweenAttemptsToOneAgent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		h.store.enqueue("a", "one")
		h.store.enqueue("a", "two")
		h.d.Wake()
		h.until(time.Second)
		if got := h.d.Holds()["a"]; got != drain.HoldCoolingDown {
			t.Errorf("hold at 1 s = %q, want %q", got, drain.HoldCoolingDown)
		}
		h.until(6 * time.Second)
		// 4.5 s after the first attempt began, exactly: the cooldown's end
		// schedules a pass of its own.
		checkWrites(t, h.agent("a").written(), []write{
			{200 * ms, "one", false}, {340 * ms, "\r", false},
			{4700 * ms, "two", false}, {4840 * ms, "\r", false},
		})
		if got := h.d.Holds(); len(got) != 0 {
			t.Errorf("holds after both delivered = %v, want none", got)
		}
		h.stop()
	})
}

func TestFailedAttemptsWaitCooldownThenDropLoudly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.writeErr = errors.New("pty: input/output error") })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(time.Second)
		q := h.store.queued("a")
		if len(q) != 1 || q[0].Attempts != 1 || q[0].LastError != "pty: input/output error" {
			t.Fatalf("after one failure the queue = %+v, want the message at the head with 1 attempt and its error", q)
		}
		h.until(20 * time.Second)
		checkWrites(t, a.written(), []write{
			{200 * ms, "hello", true}, {4700 * ms, "hello", true}, {9200 * ms, "hello", true},
		})
		checkCalls(t, h.store, "Attempt", []call{
			{at: 200 * ms, id: id, agent: "a"}, {at: 4700 * ms, id: id, agent: "a"}, {at: 9200 * ms, id: id, agent: "a"},
		})
		if n := len(h.store.callsOf("AttemptFailed")); n != 3 {
			t.Errorf("AttemptFailed calls = %d, want 3", n)
		}
		if q := h.store.queued("a"); len(q) != 0 {
			t.Errorf("queue after the 3rd failure = %+v, want empty (dropped)", q)
		}
		want := []drain.Notice{{Agent: "a", MsgID: id, Kind: drain.NoticeDropped, Text: "hello"}}
		if got := h.noticeList(); len(got) != 1 || got[0] != want[0] {
			t.Errorf("notices = %+v, want %+v", got, want)
		}
		if log := h.log.String(); !strings.Contains(log, "level=WARN msg=\"message dropped after failed delivery attempts\"") {
			t.Errorf("no loud drop in the log:\n%s", log)
		}
		h.stop()
	})
}

func TestBlockedWriteDoesNotDelayOtherAgents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a", "b"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.hang = make(chan struct{}) })
		h.store.enqueue("a", "stuck")
		h.store.enqueue("a", "next")
		h.store.enqueue("b", "free")
		h.d.Wake()
		h.until(9 * time.Second)
		checkWrites(t, h.agent("b").written(), []write{{200 * ms, "free", false}, {340 * ms, "\r", false}})
		// At most one submit per agent: a's second message waits behind the
		// blocked write.
		checkWrites(t, a.written(), []write{{200 * ms, "stuck", false}})
		if q := h.store.queued("a"); len(q) != 2 {
			t.Errorf("a's queue = %+v, want both messages", q)
		}
		if n := len(h.store.callsOf("AttemptFailed")); n != 0 {
			t.Errorf("AttemptFailed calls = %d while the write is still within its timeout, want 0", n)
		}
		// The write timeout (10 s) ends the blocked write: a failed attempt,
		// retried after the cooldown like any other.
		h.until(10300 * ms)
		if n := len(h.store.callsOf("AttemptFailed")); n != 1 {
			t.Errorf("AttemptFailed calls = %d after the write timeout, want 1", n)
		}
		h.stop()
	})
}

func TestRunAbandonsAWriteThatIgnoresCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore(time.Now())
		release := make(chan struct{})
		agents := &stubbornAgents{a: &stubbornAgent{fakeAgent: newFakeAgent(t, time.Now()), release: release}}
		d := drain.New(drain.Config{Store: store, Agents: agents, Clock: fakeClock{}})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- d.Run(ctx) }()
		store.enqueue("a", "hi")
		d.Wake()
		time.Sleep(time.Second) // the write began at 200 ms and never returns
		start := time.Now()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
		if waited := time.Since(start); waited != time.Second {
			t.Errorf("Run returned %v after cancel, want 1s (then it abandons the write)", waited)
		}
		close(release) // let the abandoned goroutine end before the bubble does
		synctest.Wait()
	})
}

// stubbornAgent's Write blocks until release, ignoring ctx.
type stubbornAgent struct {
	*fakeAgent
	release chan struct{}
}

func (s *stubbornAgent) Write(ctx context.Context, p []byte) error {
	<-s.release
	return errors.New("closed")
}

type stubbornAgents struct{ a *stubbornAgent }

func (s *stubbornAgents) Agent(name string) (drain.Agent, bool) { return s.a, name == "a" }

func TestRunNeedsStoreAndAgents(t *testing.T) {
	if err := drain.New(drain.Config{}).Run(context.Background()); err == nil {
		t.Fatal("Run on a zero Config returned nil, want an error")
	}
}

func TestSetHoldOnlyOnChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.status = automation.StatusBusy })
		id := h.store.enqueue("a", "hi")
		h.d.Wake()
		h.until(10 * time.Second) // passes at 0.2, 3, 6, 9 s: all "busy"
		checkCalls(t, h.store, "SetHold", []call{{at: 200 * ms, agent: "a", arg: "busy"}})
		if got := h.d.Holds(); len(got) != 1 || got["a"] != "busy" {
			t.Errorf("Holds() = %v, want a: busy", got)
		}
		a.set(func(a *fakeAgent) { a.status = automation.StatusIdle })
		h.d.Wake()
		h.until(20 * time.Second)
		checkCalls(t, h.store, "SetHold", []call{
			{at: 200 * ms, agent: "a", arg: "busy"},
			{at: 10200 * ms, agent: "a", arg: ""},
		})
		checkCalls(t, h.store, "Delivered", []call{{at: 10440 * ms, id: id, agent: "a", arg: "verified"}})
		h.stop()
	})
}

func TestHoldClearedWhenQueueEmptiedElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusBusy })
		id := h.store.enqueue("a", "hi")
		h.d.Wake()
		h.until(time.Second)
		h.store.mu.Lock()
		h.store.remove(id) // the person deleted it
		h.store.mu.Unlock()
		h.d.Wake()
		h.until(2 * time.Second)
		checkCalls(t, h.store, "SetHold", []call{
			{at: 200 * ms, agent: "a", arg: "busy"},
			{at: 1200 * ms, agent: "a", arg: ""},
		})
		if got := h.d.Holds(); len(got) != 0 {
			t.Errorf("Holds() = %v, want none", got)
		}
		h.stop()
	})
}
