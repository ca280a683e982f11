package inbox

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"office/queue"
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

// TestMailToANameRunElsewhereRefused: new mail that reaches this host's
// store for a name it does not run (another host has it; the sender's
// command routes mail there while the floor's roster says where the name
// lives) is refused, naming that host, and nothing is kept for it; a reply
// to a request this host's agent of that name sent is for that agent
// itself and is kept for it.
func TestMailToANameRunElsewhereRefused(t *testing.T) {
	e := newEnv(t)
	req, err := e.svc.SendMail(e.ctx, MailRequestArgs{To: "b", From: "a", Title: "q", Text: "question", Request: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetElsewhere(e.ctx, "a", "h2"); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.SendMail(e.ctx, MailRequestArgs{To: "a", From: "c", Title: "t", Text: "hello"})
	var elsewhere *queue.ElsewhereError
	if !errors.Is(err, ErrUnknownReceiver) || !errors.Is(err, queue.ErrUnknownAgent) || !errors.As(err, &elsewhere) || elsewhere.Host != "h2" ||
		!strings.Contains(err.Error(), `"a": not run on this host, host h2 has that name`) {
		t.Fatalf("mail to a: %v; want refused naming host h2", err)
	}
	if items, _ := e.svc.Items(e.ctx, "a"); len(items) != 0 {
		t.Fatalf("a's items %+v: the refused mail was kept", items)
	}
	if _, err := e.svc.SendMail(e.ctx, MailRequestArgs{To: "a", From: "b", Title: "re", Text: "answer", InReplyTo: req}); err != nil {
		t.Fatalf("reply to a's request: %v", err)
	}
	if items, _ := e.svc.Items(e.ctx, "a"); len(items) != 1 {
		t.Fatalf("a's items %+v: want the reply kept for it", items)
	}
}
