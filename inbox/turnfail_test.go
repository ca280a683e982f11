package inbox

import (
	"strings"
	"testing"

	"office/automation"
)

// A turn that ended on an API error: the request it was to answer, with no
// reply, fails with the CLI's text (not no_reply_found), its sender is
// told so, and the parent's notice says the turn failed.
func TestSettleTurnOfAFailedTurn(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "do it", Request: true})
	e.deliverAll("a")
	apiErr := "⎿  API Error: Request rejected (429) · Rate limited"
	r, err := e.svc.SettleTurn(e.ctx, TurnEnd{
		EndedTurn: EndedTurn{Agent: "a", Turn: automation.TurnEvent{Start: e.clock.Now()}, FromInbox: true},
		Parent:    "b", Desc: "reviewer", Result: apiErr, Failed: apiErr,
	}, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	one := "⎿ API Error: Request rejected (429) · Rate limited" // on one line, spaces squeezed
	want := ReasonTurnFailed + ": " + one
	if len(r.Mail) != 1 || r.Mail[0].State != MailFailed || r.Mail[0].Reason != want || !r.Notified {
		t.Fatalf("settled %+v, want the request failed(%s) and the parent told", r, want)
	}
	if st, reason := e.mailState(id); st != MailFailed || reason != want {
		t.Fatalf("mail %s(%s), want failed(%s)", st, reason, want)
	}
	var failed, told bool
	for _, n := range e.notices("b") {
		if strings.Contains(n, `"reviewer"`) && strings.Contains(n, "failed.") && strings.Contains(n, "Error: the turn ended on an API error: "+one) {
			failed = true
		}
		if strings.Contains(n, id) && strings.Contains(n, "Rate limited") {
			told = true
		}
	}
	if !failed || !told {
		t.Fatalf("notices to b (turn failed %v, mail failed %v): %q", failed, told, e.notices("b"))
	}
}

// A failed turn whose request was answered all the same settles it done.
func TestFailedTurnWithAReplyIsDone(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "Q", Text: "x", Request: true})
	e.deliverAll("a")
	if _, err := e.svc.Reply(e.ctx, "a", id, "4"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SettleTurn(e.ctx, TurnEnd{EndedTurn: EndedTurn{Agent: "a"}, Failed: "API Error: 529 Overloaded"}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.mailState(id); st != MailDone {
		t.Fatalf("request %s, want done", st)
	}
}
