package inbox

import (
	"errors"
	"testing"

	"office/queue"
)

// heldDelivery schedules a's inbox, types it (Attempt, Writing, Entering)
// and holds it as the drain does for a delivery typed, not confirmed.
func (e *env) heldDelivery() int64 {
	e.t.Helper()
	e.send("a", "b", "x")
	msg := e.schedule("a")
	if _, err := e.ds.Attempt(e.ctx, msg); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.Writing(e.ctx, msg); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.Entering(e.ctx, msg); err != nil {
		e.t.Fatal(err)
	}
	if err := e.ds.Hold(e.ctx, msg, "typed, not confirmed"); err != nil {
		e.t.Fatal(err)
	}
	return msg
}

// TestRemovingAHeldInboxDeliveryMarksItsItemsDone: a held inbox delivery
// (typed, not confirmed) the person removes ("it arrived, or drop it") has
// its items acknowledged in the same transaction: never put back and typed
// a second time by the next Schedule.
func TestRemovingAHeldInboxDeliveryMarksItsItemsDone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	msg := e.heldDelivery()
	its, err := e.svc.Remove(e.ctx, msg, "removed by the person")
	if err != nil || len(its) != 1 {
		t.Fatalf("Remove = %d items, %v; want its one item acknowledged", len(its), err)
	}
	if next := e.schedule("a"); next != 0 {
		t.Fatalf("Schedule made delivery %d after the person removed the held one: typed twice", next)
	}
	if n := len(e.items("a", StateDelivered)); n != 1 {
		t.Fatalf("%d items delivered, want 1", n)
	}
	if _, err := e.store.Get(e.ctx, msg); !errors.Is(err, queue.ErrNotFound) {
		t.Fatalf("held delivery still queued: %v", err)
	}
}

// TestRemovingAnUntypedInboxDeliveryReschedulesItsItems: one never typed
// keeps today's rule: its items are delivered by the next delivery.
func TestRemovingAnUntypedInboxDeliveryReschedulesItsItems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.send("a", "b", "x")
	msg := e.schedule("a")
	if _, err := e.ds.Attempt(e.ctx, msg); err != nil {
		t.Fatal(err)
	}
	if its, err := e.svc.Remove(e.ctx, msg, "removed by the person"); err != nil || len(its) != 0 {
		t.Fatalf("Remove = %d items, %v; want none acknowledged", len(its), err)
	}
	if next := e.schedule("a"); next == 0 || next == msg {
		t.Fatalf("no new delivery for the untyped removed one (%d)", next)
	}
}

// TestAHeldInboxDeliveryIsSetAsideAtRecovery: after a stop, a held inbox
// delivery the CLI's records do not show is set aside (never retyped on a
// guess), its items stay leased to it through ReleaseAllLeases and no new
// delivery is scheduled; the person's rm then marks them done.
func TestAHeldInboxDeliveryIsSetAsideAtRecovery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	msg := e.heldDelivery()
	e.restart()
	got, err := e.store.RecoverInterrupted(e.ctx, func(queue.Message) queue.Verdict {
		return queue.Verdict{Settle: queue.SettleAside, Evidence: "the records do not show it"}
	})
	if err != nil || len(got) != 1 || got[0].Verdict.Settle != queue.SettleAside {
		t.Fatalf("RecoverInterrupted = %+v, %v; want the held delivery set aside", got, err)
	}
	if _, err := e.svc.ReleaseAllLeases(e.ctx); err != nil {
		t.Fatal(err)
	}
	if its := e.items("a", StateLeased); len(its) != 1 || its[0].LeaseMsg != msg {
		t.Fatalf("leased items %+v; want the one leased to %d", its, msg)
	}
	if next := e.schedule("a"); next != msg {
		t.Fatalf("Schedule made delivery %d beside the set-aside %d", next, msg)
	}
	if m, ok, _ := e.store.Head(e.ctx, "a"); ok {
		t.Fatalf("head is %d: a set-aside delivery is typed by nobody but the person", m.ID)
	}
	if _, err := e.svc.Remove(e.ctx, msg, "removed by the person"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.items("a", StateDelivered)); n != 1 {
		t.Fatalf("%d items delivered after rm, want 1", n)
	}
	if next := e.schedule("a"); next != 0 {
		t.Fatalf("Schedule made delivery %d after rm", next)
	}
}

// TestRecoveredInboxItemsSettleWithTheirMessage: the judge's Received runs in
// the transaction that settles the delivery as received, so the message and
// its items settle together; a failing Received leaves both as they were.
func TestRecoveredInboxItemsSettleWithTheirMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	msg := e.heldDelivery()
	e.restart()
	boom := errors.New("boom")
	_, err := e.store.RecoverInterrupted(e.ctx, func(queue.Message) queue.Verdict {
		return queue.Verdict{Settle: queue.SettleDelivered, Evidence: "hook", Received: func(tx *queue.Tx) error {
			if _, err := e.svc.AckTx(tx, msg); err != nil {
				return err
			}
			return boom
		}}
	})
	if !errors.Is(err, boom) {
		t.Fatalf("RecoverInterrupted = %v; want the Received error", err)
	}
	if _, err := e.store.Get(e.ctx, msg); err != nil {
		t.Fatalf("message settled though its items were not: %v", err)
	}
	if n := len(e.items("a", StateLeased)); n != 1 {
		t.Fatalf("%d items leased, want 1 (rolled back)", n)
	}
	got, err := e.store.RecoverInterrupted(e.ctx, func(queue.Message) queue.Verdict {
		return queue.Verdict{Settle: queue.SettleDelivered, Evidence: "hook", Received: func(tx *queue.Tx) error {
			_, err := e.svc.AckTx(tx, msg)
			return err
		}}
	})
	if err != nil || len(got) != 1 {
		t.Fatalf("RecoverInterrupted = %+v, %v", got, err)
	}
	if n := len(e.items("a", StateDelivered)); n != 1 {
		t.Fatalf("%d items delivered, want 1", n)
	}
}
