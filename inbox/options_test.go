package inbox

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// withOptions reopens e's service with opts (the engine's seeding from the
// office file's settings).
func (e *env) withOptions(opts Options) {
	e.t.Helper()
	svc, err := Open(e.ctx, e.store, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.svc = svc
	e.ds = DrainStore{Store: e.store, Svc: svc}
}

func TestOptionsSetBatchSize(t *testing.T) {
	e := newEnv(t)
	e.withOptions(Options{BatchItems: 2})
	for i := range 5 {
		e.send("a", "b", fmt.Sprintf("n%d", i))
	}
	for _, want := range []int{2, 2, 1} {
		if n := strings.Count(e.deliverAll("a"), "<inbox "); n != want {
			t.Fatalf("batch of %d items, want %d (batch_items = 2)", n, want)
		}
	}
}

func TestStallThresholdFromOptionsAndObservation(t *testing.T) {
	e := newEnv(t)
	e.withOptions(Options{Stall: time.Minute})
	t0 := e.clock.Now()
	office := StallObservation{Agent: "a", Parent: "c", Busy: true, LastActivity: t0}
	own := StallObservation{Agent: "b", Parent: "c", Busy: true, LastActivity: t0, After: 10 * time.Minute}
	for _, tc := range []struct {
		obs  StallObservation
		at   time.Duration
		want bool
	}{
		{office, 59 * time.Second, false},
		{office, time.Minute, true},
		{own, 5 * time.Minute, false},
		{own, 10 * time.Minute, true},
	} {
		got, err := e.svc.ObserveStall(e.ctx, tc.obs, t0.Add(tc.at))
		if err != nil || got != tc.want {
			t.Errorf("%s at +%v: noticed %v (%v), want %v", tc.obs.Agent, tc.at, got, err, tc.want)
		}
	}
}

// TestMailTimeoutIsTheTickingOffices: mail sent without --deadline by a
// process that knows no office file (an agent's `office mail send`) times
// out by the mail_timeout of the office that ticks.
func TestMailTimeoutIsTheTickingOffices(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "q", Text: "x"}) // Options{}: 30 min
	e.deliverAll("a")
	start := e.clock.Now()
	e.withOptions(Options{MailDeadline: 5 * time.Minute})
	if out, _ := e.svc.Tick(e.ctx, start.Add(5*time.Minute)); len(out) != 0 {
		t.Fatalf("settled at exactly the office's deadline: %+v", out)
	}
	out, err := e.svc.Tick(e.ctx, start.Add(5*time.Minute+time.Second))
	if err != nil || len(out) != 1 || out[0].Mail.ID != id || out[0].Reason != ReasonTimeout {
		t.Fatalf("tick past the office's 5m: %+v %v", out, err)
	}
}

// TestRetentionFromOptionsNamesItsWindow: with another retention (the office
// file's retention = "36h"), an item undelivered that long becomes a dead
// letter, and its sender's notice and the event say 36h, not 7 days.
func TestRetentionFromOptionsNamesItsWindow(t *testing.T) {
	e := newEnv(t)
	e.withOptions(Options{Retention: 36 * time.Hour})
	e.send("b", "a", "never typed") // b never gets a delivery here
	t0 := e.clock.Now()
	if r, err := e.svc.Purge(e.ctx, t0.Add(36*time.Hour-time.Second)); err != nil || r.Dead != 0 {
		t.Fatalf("purge before 36h: %+v %v", r, err)
	}
	if r, err := e.svc.Purge(e.ctx, t0.Add(36*time.Hour+time.Second)); err != nil || r.Dead != 1 {
		t.Fatalf("purge after 36h: %+v %v, want 1 dead letter", r, err)
	}
	var notes []string
	for _, it := range e.items("a") {
		if it.Kind == KindNotification {
			notes = append(notes, it.Body)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "undelivered after 36h") || strings.Contains(notes[0], "7 days") {
		t.Fatalf("notice to the sender: %q, want it to say undelivered after 36h", notes)
	}
	dead := e.eventsOf(EventInboxDead)
	if len(dead) != 1 || !strings.HasSuffix(dead[0].Detail, ": undelivered after 36h") {
		t.Fatalf("dead-letter events %+v", dead)
	}
}
