package inbox

import (
	"slices"
	"testing"
)

// TestScheduleSkipsAnAgentRunElsewhere: an agent this host does not run
// because another host of the floor has its name keeps what is for it in
// its inbox, but no delivery is scheduled for it (its queue takes nothing:
// queue.ElsewhereError), and the other agents' deliveries go on; once it
// runs here again its items are scheduled.
func TestScheduleSkipsAnAgentRunElsewhere(t *testing.T) {
	e := newEnv(t)
	if err := e.store.SetElsewhere(e.ctx, "a", "h2"); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"a", "b"} {
		if _, _, err := e.svc.Send(e.ctx, Message{To: to, From: "c", Kind: KindNotification, Body: "for " + to}); err != nil {
			t.Fatalf("send to %s: %v", to, err)
		}
	}
	got, err := e.svc.Schedule(e.ctx)
	if err != nil || !slices.Equal(got, []string{"b"}) {
		t.Fatalf("Schedule: %v, %v; want a delivery for b only", got, err)
	}
	if items, _ := e.svc.Items(e.ctx, "a"); len(items) != 1 {
		t.Fatalf("a's items %+v, want its notice kept", items)
	}
	if err := e.store.SetElsewhere(e.ctx, "a", ""); err != nil {
		t.Fatal(err)
	}
	if got, err := e.svc.Schedule(e.ctx); err != nil || !slices.Equal(got, []string{"a"}) {
		t.Fatalf("Schedule once a runs here: %v, %v; want a's delivery", got, err)
	}
}
