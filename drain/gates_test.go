package drain_test

// The gates, in order: paused (manual bypasses), idle, booting, blocks,
// cooldown (drain_test.go), precondition, paste mode; and the re-read of
// status and blocks right before the first write.

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
	"office/queue"
)

// checkHeld runs the agent held by edit for 10 s and checks the hold, that
// nothing was written or attempted, and that the message is still queued.
func checkHeld(t *testing.T, edit func(a *fakeAgent), want drain.Hold) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(edit)
		h.store.enqueue("a", "hi")
		h.d.Wake()
		h.until(10 * time.Second)
		if got := h.d.Holds()["a"]; got != want {
			t.Errorf("hold = %q, want %q", got, want)
		}
		checkCalls(t, h.store, "SetHold", []call{{at: 200 * ms, agent: "a", arg: string(want)}})
		if w := a.written(); len(w) != 0 {
			t.Errorf("writes = %v, want none", w)
		}
		for _, op := range []string{"Attempt", "AttemptFailed", "Drop", "Delivered"} {
			if c := h.store.callsOf(op); len(c) != 0 {
				t.Errorf("%s calls = %+v, want none", op, c)
			}
		}
		if q := h.store.queued("a"); len(q) != 1 || q[0].Attempts != 0 {
			t.Errorf("queue = %+v, want the message, no attempt counted", q)
		}
		h.stop()
	})
}

func TestHolds(t *testing.T) {
	cases := []struct {
		name string
		edit func(a *fakeAgent)
		want drain.Hold
	}{
		{"exited status", func(a *fakeAgent) { a.status = automation.StatusExited }, "exited"},
		{"exited block", func(a *fakeAgent) { a.block = automation.BlockExited }, "exited"},
		{"exited beats waiting", func(a *fakeAgent) { a.status, a.block = automation.StatusWaiting, automation.BlockExited }, "exited"},
		{"waiting", func(a *fakeAgent) { a.status = automation.StatusWaiting }, "waiting"},
		{"busy", func(a *fakeAgent) { a.status = automation.StatusBusy }, "busy"},
		{"starting is booting", func(a *fakeAgent) { a.status = automation.StatusStarting }, "booting"},
		{"picker", func(a *fakeAgent) { a.block = automation.BlockPicker }, "picker open"},
		{"draft", func(a *fakeAgent) { a.block = automation.BlockDraft }, "your draft"},
		{"settling", func(a *fakeAgent) { a.block = automation.BlockSettling }, "settling"},
		{"booting before draft", func(a *fakeAgent) { a.status, a.block = automation.StatusStarting, automation.BlockDraft }, "booting"},
		{"exited before booting", func(a *fakeAgent) { a.status, a.block = automation.StatusStarting, automation.BlockExited }, "exited"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkHeld(t, c.edit, c.want) })
	}
}

func TestWriteFailingBecauseTheAgentExitedIsNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.writeErr, a.exitOnFail = errors.New("pty closed"), true })
		h.store.enqueue("a", "hi")
		h.d.Wake()
		h.until(10 * time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "hi", true}})
		if c := h.store.callsOf("AttemptFailed"); len(c) != 0 {
			t.Errorf("AttemptFailed = %+v, want none for an exited agent", c)
		}
		if q := h.store.queued("a"); len(q) != 1 || q[0].Attempts != 0 {
			t.Errorf("queue = %+v, want the message, no attempt counted", q)
		}
		if got := h.d.Holds()["a"]; got != "exited" {
			t.Errorf("hold = %q, want exited", got)
		}
		h.stop()
	})
}

func TestUnknownAgentIsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil, nil)
		h.store.enqueue("ghost", "hi")
		h.d.Wake()
		h.until(time.Second)
		if got := h.d.Holds()["ghost"]; got != drain.HoldUnknownAgent {
			t.Errorf("hold = %q, want %q", got, drain.HoldUnknownAgent)
		}
		if q := h.store.queued("ghost"); len(q) != 1 {
			t.Errorf("queue = %+v, want the message kept", q)
		}
		h.stop()
	})
}

func TestPausedHoldsAllButManual(t *testing.T) {
	for _, floor := range []bool{false, true} {
		name := map[bool]string{false: "agent", true: "floor"}[floor]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				if floor {
					h.store.setFloorPaused(true)
				} else {
					h.store.setPaused("a", true)
				}
				plain := h.store.enqueue("a", "later")
				h.d.Wake()
				h.until(time.Second)
				if got := h.d.Holds()["a"]; got != "paused" {
					t.Fatalf("hold = %q, want paused", got)
				}
				manual := h.store.enqueue("a", "now please")
				h.store.sendNow(manual)
				h.d.Wake()
				h.until(10 * time.Second)
				checkWrites(t, h.agent("a").written(), []write{{1200 * ms, "now please", false}, {1340 * ms, "\r", false}})
				checkCalls(t, h.store, "Delivered", []call{{at: 1440 * ms, id: manual, agent: "a", arg: "verified"}})
				if q := h.store.queued("a"); len(q) != 1 || q[0].ID != plain {
					t.Errorf("queue = %+v, want only the plain message", q)
				}
				if got := h.d.Holds()["a"]; got != "paused" {
					t.Errorf("hold after the manual delivery = %q, want paused", got)
				}
				h.stop()
			})
		})
	}
}

// The pause is the person's decision and says more than the agent's
// status: a paused agent's head is held "paused" whether the agent is busy,
// waiting or starting; a manual message (which skips the pause) is held by
// the status.
func TestPauseNamesTheHoldBeforeTheStatus(t *testing.T) {
	for _, st := range []automation.Status{automation.StatusBusy, automation.StatusWaiting, automation.StatusStarting} {
		t.Run(st.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				h.agent("a").set(func(a *fakeAgent) { a.status = st })
				h.store.setPaused("a", true)
				h.store.enqueue("a", "later")
				h.d.Wake()
				h.until(time.Second)
				if got := h.d.Holds()["a"]; got != drain.HoldPaused {
					t.Errorf("%s and paused: hold = %q, want paused", st, got)
				}
				h.stop()
			})
		})
	}
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		h.agent("a").set(func(a *fakeAgent) { a.status = automation.StatusBusy })
		h.store.setPaused("a", true)
		h.store.enqueue("a", "now", func(m *queue.Message) { m.Manual = true })
		h.d.Wake()
		h.until(time.Second)
		if got := h.d.Holds()["a"]; got != drain.HoldBusy {
			t.Errorf("a manual message to a busy, paused agent: hold = %q, want busy", got)
		}
		h.stop()
	})
}

func TestManualMessageStillWaitsForIdleAndDraft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		h.store.setPaused("a", true)
		h.agent("a").set(func(a *fakeAgent) { a.block = automation.BlockDraft })
		h.store.enqueue("a", "hi", func(m *queue.Message) { m.Manual = true })
		h.d.Wake()
		h.until(5 * time.Second)
		if got := h.d.Holds()["a"]; got != "your draft" {
			t.Errorf("hold = %q, want your draft (manual bypasses only the pause)", got)
		}
		if w := h.agent("a").written(); len(w) != 0 {
			t.Errorf("writes = %v, want none", w)
		}
		h.stop()
	})
}

func TestBootingThenReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.status = automation.StatusStarting })
		h.store.enqueue("a", "hi")
		h.d.Wake()
		h.until(time.Second)
		if got := h.d.Holds()["a"]; got != "booting" {
			t.Fatalf("hold = %q, want booting", got)
		}
		a.set(func(a *fakeAgent) { a.status = automation.StatusIdle })
		h.until(5 * time.Second) // the 3 s tick notices
		checkWrites(t, a.written(), []write{{3 * time.Second, "hi", false}, {3140 * ms, "\r", false}})
		h.stop()
	})
}

func TestPreconditionFailureDropsWithoutCooldown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var checked []int64
		h := newHarness(t, []string{"a"}, func(c *drain.Config) {
			c.Preconditions = func(ctx context.Context, m queue.Message) (bool, error) {
				checked = append(checked, m.ID) // Run's goroutine only
				return m.Precondition != "inbox pending", nil
			}
		})
		stale := h.store.enqueue("a", "<inbox/>", func(m *queue.Message) { m.Precondition, m.Kind = "inbox pending", queue.KindInbox })
		next := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(time.Second)
		checkCalls(t, h.store, "Drop", []call{{at: 200 * ms, id: stale, agent: "a", arg: "precondition failed: inbox pending"}})
		// No cooldown stamped: the next message goes in the same pass.
		checkWrites(t, h.agent("a").written(), []write{{200 * ms, "hello", false}, {340 * ms, "\r", false}})
		checkCalls(t, h.store, "Attempt", []call{{at: 200 * ms, id: next, agent: "a"}})
		want := drain.Notice{Agent: "a", MsgID: stale, Kind: drain.NoticePreconditionDropped, Text: "<inbox/>"}
		if got := h.noticeList(); len(got) != 1 || got[0] != want {
			t.Errorf("notices = %+v, want [%+v]", got, want)
		}
		if len(checked) != 2 {
			t.Errorf("Preconditions called for %v, want both messages", checked)
		}
		h.stop()
	})
}

func TestNilPreconditionsPassOnlyEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		id := h.store.enqueue("a", "x", func(m *queue.Message) { m.Precondition = "something" })
		h.d.Wake()
		h.until(time.Second)
		checkCalls(t, h.store, "Drop", []call{{at: 200 * ms, id: id, agent: "a", arg: "precondition failed: something"}})
		if w := h.agent("a").written(); len(w) != 0 {
			t.Errorf("writes = %v, want none", w)
		}
		h.stop()
	})
}

func TestStatusFlipsBusyBeforeTheWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var a *fakeAgent
		flip := true
		h := newHarness(t, []string{"a"}, func(c *drain.Config) {
			// Gate 6 runs after the status gate: the agent turns busy between
			// the pass's look and the write.
			c.Preconditions = func(ctx context.Context, m queue.Message) (bool, error) {
				if flip {
					flip = false
					a.set(func(a *fakeAgent) { a.status = automation.StatusBusy })
				}
				return true, nil
			}
		})
		a = h.agent("a")
		id := h.store.enqueue("a", "hi")
		h.d.Wake()
		h.until(time.Second)
		if w := a.written(); len(w) != 0 {
			t.Fatalf("writes = %v, want none", w)
		}
		if c := h.store.callsOf("Attempt"); len(c) != 0 {
			t.Fatalf("Attempt = %+v, want none (abandoned before writing is no attempt)", c)
		}
		if got := h.d.Holds()["a"]; got != "busy" {
			t.Errorf("hold = %q, want busy", got)
		}
		a.set(func(a *fakeAgent) { a.status = automation.StatusIdle })
		h.d.Wake()
		h.until(2 * time.Second)
		// Not cooling down either: the abandoned try stamped nothing.
		checkWrites(t, a.written(), []write{{1200 * ms, "hi", false}, {1340 * ms, "\r", false}})
		checkCalls(t, h.store, "Delivered", []call{{at: 1440 * ms, id: id, agent: "a", arg: "verified"}})
		h.stop()
	})
}

func TestBlockAppearsBeforeTheWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var a *fakeAgent
		h := newHarness(t, []string{"a"}, func(c *drain.Config) {
			c.Preconditions = func(ctx context.Context, m queue.Message) (bool, error) {
				a.set(func(a *fakeAgent) { a.block = automation.BlockDraft }) // the person starts typing
				return true, nil
			}
		})
		a = h.agent("a")
		h.store.enqueue("a", "hi")
		h.d.Wake()
		h.until(5 * time.Second)
		if w := a.written(); len(w) != 0 {
			t.Fatalf("writes = %v, want none", w)
		}
		if got := h.d.Holds()["a"]; got != "your draft" {
			t.Errorf("hold = %q, want your draft", got)
		}
		h.stop()
	})
}

func TestInterruptedMessageIsHeldUntilReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		id := h.store.enqueue("a", "maybe typed already")
		h.store.mu.Lock()
		h.store.find(id).Interrupted = true
		h.store.mu.Unlock()
		h.d.Wake()
		h.until(5 * time.Second)
		if w := a.written(); len(w) != 0 {
			t.Fatalf("an interrupted message was retyped: %+v", w)
		}
		if got := h.d.Holds()["a"]; got != drain.HoldInterrupted {
			t.Fatalf("hold %q, want %q", got, drain.HoldInterrupted)
		}
		h.stop()
	})
}
