package inbox

import (
	"testing"
	"time"
)

// TestNeedsQueriesOpenRequestsStallsAndRefusalNotices: a request to the
// person is open until the person replies (an inform mail is never one); a
// stall is read back with its start; the person's unread refusal notices
// are keyed by the refused item's id and leave once read.
func TestNeedsQueriesOpenRequestsStallsAndRefusalNotices(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	req := e.mail(MailRequestArgs{To: Person, From: "a", Title: "which db?", Text: "postgres or sqlite", Request: true})
	e.mail(MailRequestArgs{To: Person, From: "b", Title: "fyi", Text: "done"})
	open, err := e.svc.OpenRequests(e.ctx, Person)
	if err != nil || len(open) != 1 || open[0].ID != req || open[0].Body != "postgres or sqlite" || open[0].Sender != "a" {
		t.Fatalf("open requests %+v, %v", open, err)
	}
	if _, err := e.svc.Reply(e.ctx, Person, req, "sqlite"); err != nil {
		t.Fatal(err)
	}
	if open, err := e.svc.OpenRequests(e.ctx, Person); err != nil || len(open) != 0 {
		t.Fatalf("after the reply: %+v, %v", open, err)
	}

	busySince := e.clock.Now()
	e.clock.Advance(time.Hour)
	if _, err := e.svc.ObserveStall(e.ctx, StallObservation{Agent: "c", Busy: true, LastActivity: busySince, After: time.Minute}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	stalls, err := e.svc.Stalls(e.ctx)
	if err != nil || len(stalls) != 1 || !stalls["c"].Equal(busySince) {
		t.Fatalf("stalls %v, %v", stalls, err)
	}

	if _, _, err := e.svc.Send(e.ctx, Message{To: Person, Kind: KindNotification, Body: "refused there", DedupeKey: "refused:01R"}); err != nil {
		t.Fatal(err)
	}
	e.send(Person, "a", "an ordinary note")
	notes, err := e.svc.RefusalNotices(e.ctx)
	if err != nil || len(notes) != 1 || notes["01R"].Body != "refused there" {
		t.Fatalf("refusal notices %+v, %v", notes, err)
	}
	if _, err := e.svc.MarkRead(e.ctx, 1<<40); err != nil {
		t.Fatal(err)
	}
	if notes, err := e.svc.RefusalNotices(e.ctx); err != nil || len(notes) != 0 {
		t.Fatalf("after reading: %+v, %v", notes, err)
	}
}
