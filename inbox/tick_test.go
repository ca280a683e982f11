package inbox

import (
	"strings"
	"testing"
	"time"
)

func TestRetentionDeletesOldDeliveredAndDeadLettersTheUndelivered(t *testing.T) {
	e := newEnv(t)
	delivered := e.send("a", "b", "old and delivered")
	e.deliverAll("a")
	doneMail := e.mail(MailRequestArgs{To: "a", From: "b", Title: "fyi", Text: "x"})
	e.deliverAll("a")
	e.svc.TurnEnded(e.ctx, "a")
	if err := e.store.RemoveAgent(e.ctx, "c"); err != nil { // c never takes its items
		t.Fatal(err)
	}
	// Items sent to c before it was removed stay undelivered.
	undelivered := e.send("b", "a", "never typed") // b never gets a delivery here
	stuckMail := e.mail(MailRequestArgs{To: "b", From: "a", Title: "stuck", Text: "y"})
	t0 := e.clock.Now()
	e.clock.Advance(time.Minute)
	fresh := e.send("a", "b", "fresh") // one minute younger than the rest

	if r, err := e.svc.Purge(e.ctx, t0.Add(7*24*time.Hour-time.Second)); err != nil || r != (PurgeResult{}) {
		t.Fatalf("purge before 7 days: %+v %v", r, err)
	}
	now := t0.Add(7*24*time.Hour + 30*time.Second)
	r, err := e.svc.Purge(e.ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dead != 2 || r.Deleted != 2 || r.MailDeleted != 1 {
		t.Fatalf("purge: %+v, want 2 dead, 2 deleted (item + done mail), 1 mail", r)
	}
	if it, err := e.svc.GetItem(e.ctx, fresh); err != nil || it.State != StatePending {
		t.Fatal("a fresh item was touched")
	}
	if _, err := e.svc.GetItem(e.ctx, delivered); err == nil {
		t.Fatal("old delivered item kept")
	}
	if _, _, err := e.svc.GetMail(e.ctx, doneMail); err == nil {
		t.Fatal("old done mail kept")
	}
	it, err := e.svc.GetItem(e.ctx, undelivered)
	if err != nil || it.State != StateDead {
		t.Fatalf("undelivered item: %+v %v (must be a dead letter, not deleted)", it, err)
	}
	if st, reason := e.mailState(stuckMail); st != MailFailed || reason != ReasonUndelivered {
		t.Fatalf("stuck mail %s(%s)", st, reason)
	}
	// The sender (a) is told once per dead letter.
	var notes []string
	for _, it := range e.items("a") {
		if it.Kind == KindNotification {
			notes = append(notes, it.Body)
		}
	}
	if len(notes) != 2 || !strings.Contains(strings.Join(notes, "\n"), "dead letter") || !strings.Contains(strings.Join(notes, "\n"), ReasonUndelivered) {
		t.Fatalf("notices to the sender: %q", notes)
	}
	// Purging again tells nobody twice.
	if r, _ := e.svc.Purge(e.ctx, now); r.Dead != 0 {
		t.Fatalf("second purge: %+v", r)
	}
	// Dead letters themselves go 7 days after they died.
	if r, _ := e.svc.Purge(e.ctx, now.Add(7*24*time.Hour+time.Hour)); r.Deleted < 2 {
		t.Fatalf("dead letters not purged later: %+v", r)
	}
}
