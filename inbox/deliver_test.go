package inbox

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"office/queue"
)

func TestOneInboxDeliveryPerAgentWithPrecondition(t *testing.T) {
	e := newEnv(t)
	e.send("a", "b", "one")
	e.send("a", "b", "two")
	e.send("b", "", "three")
	e.send(Person, "a", "for the person")
	queued, err := e.svc.Schedule(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(queued, ",") != "a,b" {
		t.Fatalf("queued for %v, want a and b (never the person)", queued)
	}
	// Again: nothing new (at most one pending per agent).
	if queued, _ := e.svc.Schedule(e.ctx); len(queued) != 0 {
		t.Fatalf("second schedule queued %v", queued)
	}
	msgs, _ := e.store.List(e.ctx, "a")
	if len(msgs) != 1 || msgs[0].Kind != queue.KindInbox || msgs[0].Precondition != Precondition {
		t.Fatalf("queue of a: %+v", msgs)
	}
	ok, err := e.svc.Precondition(e.ctx, msgs[0])
	if err != nil || !ok {
		t.Fatalf("precondition with items pending: %v %v", ok, err)
	}
	// Plain messages keep their own rule.
	if ok, _ := e.svc.Precondition(e.ctx, queue.Message{Agent: "a"}); !ok {
		t.Fatal("plain message without precondition refused")
	}
}

func TestLeaseRendersAndAckDeliversInTheSameTransactions(t *testing.T) {
	e := newEnv(t)
	mid := e.mail(MailRequestArgs{To: "a", From: "b", Title: "Review", Text: "please look", Request: true})
	tid := e.send("a", "", "a system note")
	msg := e.schedule("a")
	m, err := e.ds.Attempt(e.ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	if !containsAll(m.Text, `id="`+mid+`"`, `type="request"`, `title="Review"`, "office mail reply "+mid, `from="system"`, `id="`+tid+`"`) {
		t.Fatalf("rendered:\n%s", m.Text)
	}
	if strings.Index(m.Text, mid) > strings.Index(m.Text, tid) {
		t.Fatal("not in send order")
	}
	// The queued message carries the rendered text too (same transaction).
	if q, _ := e.store.Get(e.ctx, msg); q.Text != m.Text {
		t.Fatal("message text not set at attempt")
	}
	if st, _ := e.mailState(mid); st != MailClaimed {
		t.Fatalf("mail state after lease: %s", st)
	}
	if its := e.items("a", StateLeased); len(its) != 2 || its[0].LeaseMsg != msg {
		t.Fatalf("leased: %+v", its)
	}
	if err := e.ds.Delivered(e.ctx, msg, "ok", queue.StateUnconfirmed); err != nil {
		t.Fatal(err)
	}
	if its := e.items("a", StateDelivered); len(its) != 2 {
		t.Fatalf("delivered: %d", len(its))
	}
	if _, err := e.store.Get(e.ctx, msg); !errors.Is(err, queue.ErrNotFound) {
		t.Fatal("queue message not acknowledged")
	}
	if st, _ := e.mailState(mid); st != MailWorking {
		t.Fatalf("mail state after ack: %s", st)
	}
	// Nothing left: the precondition now fails and Attempt refuses.
	msg2, err := e.store.Enqueue(e.ctx, "a", "x\ny", queue.EnqueueOptions{Kind: queue.KindInbox})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.svc.Deliverable(e.ctx, "a", msg2); ok {
		t.Fatal("precondition holds with nothing pending")
	}
	if _, err := e.ds.Attempt(e.ctx, msg2); !errors.Is(err, ErrNothingPending) {
		t.Fatalf("attempt with nothing pending: %v", err)
	}
	if q, _ := e.store.Get(e.ctx, msg2); !q.LastAttempt.IsZero() {
		t.Fatal("a refused attempt was stamped")
	}
}

func TestCrashBetweenTypingAndAckRedeliversOnceAndLosesNothing(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for i := range 3 {
		ids = append(ids, e.send("a", "b", fmt.Sprintf("item %d", i)))
	}
	msg := e.schedule("a")
	first, err := e.ds.Attempt(e.ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	// kill -9 here: typed, never acknowledged.
	e.restart()
	if n, err := e.svc.ReleaseAllLeases(e.ctx); err != nil || n != 3 {
		t.Fatalf("released %d (%v), want 3", n, err)
	}
	// A new item arrives meanwhile.
	ids = append(ids, e.send("a", "c", "item 3"))
	// The same queue message survived the crash; its next attempt re-renders.
	if again := e.schedule("a"); again != msg {
		t.Fatalf("inbox message %d, want the surviving %d", again, msg)
	}
	second := e.deliver(msg)
	for _, id := range ids[:3] {
		if !strings.Contains(first.Text, id) || !strings.Contains(second, id) {
			t.Fatalf("item %s not in both deliveries", id)
		}
	}
	if !strings.Contains(second, ids[3]) {
		t.Fatal("new item missing")
	}
	if its := e.items("a", StateDelivered); len(its) != 4 {
		t.Fatalf("%d delivered, want 4", len(its))
	}
	for _, it := range e.items("a", StateDelivered) {
		want := 2
		if it.ID == ids[3] {
			want = 1
		}
		if it.Attempts != want {
			t.Fatalf("item %s leased %d times, want %d (redelivered once)", it.Body, it.Attempts, want)
		}
	}
	if e.schedule("a") != 0 {
		t.Fatal("a further delivery was queued")
	}
}

func TestBatchIsCappedAtHundredItemsAndThirtyTwoKiB(t *testing.T) {
	e := newEnv(t)
	for i := range 130 {
		e.send("a", "b", fmt.Sprintf("n%03d", i))
	}
	text := e.deliverAll("a")
	if n := strings.Count(text, "<inbox "); n != 100 {
		t.Fatalf("first batch %d items, want 100 (batch_items)", n)
	}
	if !strings.Contains(text, "n099") || strings.Contains(text, "n100") {
		t.Fatal("first batch is not the oldest 100")
	}
	text = e.deliverAll("a")
	if n := strings.Count(text, "<inbox "); n != 30 || !strings.Contains(text, "n100") {
		t.Fatalf("second batch %d items", n)
	}
	// Size: 10 items of 10 KiB go three to a batch (about 30 KiB each).
	for i := range 10 {
		e.send("b", "a", fmt.Sprintf("big%d %s", i, strings.Repeat("x", 10*1024)))
	}
	text = e.deliverAll("b")
	if n := strings.Count(text, "<inbox "); n != 3 || len(text) > 32<<10+1024 {
		t.Fatalf("size-capped batch: %d items, %d bytes", n, len(text))
	}
}

func TestDroppedDeliveryReleasesItsItems(t *testing.T) {
	e := newEnv(t)
	mid := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "x"})
	msg := e.schedule("a")
	if _, err := e.ds.Attempt(e.ctx, msg); err != nil {
		t.Fatal(err)
	}
	if err := e.ds.Drop(e.ctx, msg, "nothing left to type after sanitizing"); err != nil {
		t.Fatal(err)
	}
	if its := e.items("a", StatePending); len(its) != 1 {
		t.Fatalf("pending after drop: %d", len(its))
	}
	if st, _ := e.mailState(mid); st != MailQueued {
		t.Fatalf("mail %s after drop, want queued", st)
	}
	// Typed but not submitted: the text sits on the agent's prompt, so the
	// items are delivered (never typed twice) and the mail is working.
	msg = e.schedule("a")
	if _, err := e.ds.Attempt(e.ctx, msg); err != nil {
		t.Fatal(err)
	}
	if err := e.ds.TypedNotSubmitted(e.ctx, msg); err != nil {
		t.Fatal(err)
	}
	if its := e.items("a", StatePending); len(its) != 0 {
		t.Fatalf("items typed onto the prompt went back to pending: %d", len(its))
	}
	if st, _ := e.mailState(mid); st != MailWorking {
		t.Fatalf("mail %s after typed-not-submitted, want working", st)
	}
	e.mail(MailRequestArgs{To: "a", From: "b", Title: "t2", Text: "y"})
	// Failed attempts: released only when the third drops the message.
	msg = e.schedule("a")
	for i := 1; i <= 3; i++ {
		if _, err := e.ds.Attempt(e.ctx, msg); err != nil {
			t.Fatal(err)
		}
		dropped, _, err := e.ds.AttemptFailed(e.ctx, msg, "write failed", 3)
		if err != nil || dropped != (i == 3) {
			t.Fatalf("attempt %d: dropped %v %v", i, dropped, err)
		}
	}
	if its := e.items("a", StatePending); len(its) != 1 {
		t.Fatal("items lost with the dropped delivery")
	}
}

func TestLeasesOfARemovedQueueMessageAreReleasedBySchedule(t *testing.T) {
	e := newEnv(t)
	e.send("a", "b", "x")
	msg := e.schedule("a")
	if _, err := e.ds.Attempt(e.ctx, msg); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Remove(e.ctx, msg, "removed by the person"); err != nil {
		t.Fatal(err)
	}
	if next := e.schedule("a"); next == 0 || next == msg {
		t.Fatalf("no new delivery after the person removed the leased one (%d)", next)
	}
	if its := e.items("a", StatePending); len(its) != 1 {
		t.Fatal("item not released")
	}
}

func TestDeliveryRemovedWhileBeingTypedStillCountsItsItems(t *testing.T) {
	e := newEnv(t)
	e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "x"})
	msg := e.schedule("a")
	if _, err := e.ds.Attempt(e.ctx, msg); err != nil {
		t.Fatal(err)
	}
	// The person removes the queue message while its text is on the way.
	if err := e.ds.Store.Remove(e.ctx, msg, "removed by the person"); err != nil {
		t.Fatal(err)
	}
	if err := e.ds.Delivered(e.ctx, msg, "verified", queue.StateConfirmed); err != nil {
		t.Fatalf("Delivered after removal: %v", err)
	}
	if its := e.items("a", StatePending); len(its) != 0 {
		t.Fatalf("%d items back to pending: they would be typed a second time", len(its))
	}
	if its := e.items("a", StateDelivered); len(its) != 1 {
		t.Fatalf("delivered items: %d, want 1", len(its))
	}
}
