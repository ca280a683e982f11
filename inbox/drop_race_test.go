package inbox

import (
	"strings"
	"testing"

	"office/queue"
)

// TestADeliveryDroppedAsAnItemArrivesLeavesOneForIt: the drain drops an
// inbox delivery whose items are gone (its mail was cancelled: the
// precondition failed), and in the same instant a new item arrives; the
// scheduler, seeing that delivery still queued, queued none for it. The
// drop, in its own transaction, queues the delivery the new item needs:
// it is never left pending with no delivery to carry it.
func TestADeliveryDroppedAsAnItemArrivesLeavesOneForIt(t *testing.T) {
	e := newEnv(t)
	mail := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "first"})
	first := e.schedule("a")
	if first == 0 {
		t.Fatal("no delivery for the mail")
	}
	if err := e.svc.Cancel(e.ctx, "b", mail); err != nil {
		t.Fatal(err)
	}
	if ok, err := e.svc.Precondition(e.ctx, mustGet(t, e, first)); err != nil || ok {
		t.Fatalf("precondition of the delivery of a cancelled mail: %v, %v; want false", ok, err)
	}
	// The drain decided to drop it; before it does, an item arrives.
	e.send("a", "c", "second")
	if got := e.schedule("a"); got != first {
		t.Fatalf("scheduler: delivery %d, want still %d (one is queued)", got, first)
	}
	if err := e.ds.Drop(e.ctx, first, "precondition failed: inbox pending"); err != nil {
		t.Fatal(err)
	}
	next, ok, err := e.store.Head(e.ctx, "a")
	if err != nil || !ok || next.Kind != queue.KindInbox || next.ID == first {
		t.Fatalf("a's head after the drop: %+v, %v, %v; want a new inbox delivery", next, ok, err)
	}
	if text := e.deliver(next.ID); !strings.Contains(text, "second") {
		t.Fatalf("the new delivery typed %q, want the new item", text)
	}
}

func mustGet(t *testing.T, e *env, id int64) queue.Message {
	t.Helper()
	m, err := e.store.Get(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
