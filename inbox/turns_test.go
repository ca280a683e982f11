package inbox

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"office/automation"
)

// ledgerStep is one input to a TurnLedger: a delivery event or a turn end.
type ledgerStep struct {
	delivery *DeliveryEvent
	turn     *automation.TurnEvent
	// want is what the step lets settle: for each turn, its FromInbox and
	// First, in order.
	want []settled
}

type settled struct{ fromInbox, first bool }

func dev(k DeliveryEventKind, id int64, want ...settled) ledgerStep {
	return ledgerStep{delivery: &DeliveryEvent{Kind: k, Agent: "a", MsgID: id}, want: want}
}

func turnEnd(causes []automation.TurnCause, want ...settled) ledgerStep {
	return ledgerStep{turn: &automation.TurnEvent{Kind: automation.TurnEnded, Causes: causes}, want: want}
}

func TestTurnLedger(t *testing.T) {
	person := []automation.TurnCause{automation.PersonEnter()}
	of := func(ids ...int64) []automation.TurnCause {
		var cs []automation.TurnCause
		for _, id := range ids {
			cs = append(cs, automation.DeliveryEnter(id))
		}
		return cs
	}
	rows := []struct {
		name  string
		steps []ledgerStep
	}{
		{"an inbox delivery acknowledged before its turn ends: the turn is from the inbox", []ledgerStep{
			dev(DeliveryAttempted, 7), dev(DeliveryAcked, 7),
			turnEnd(of(7), settled{true, true}),
		}},
		{"the turn ends before the acknowledgement: it waits for it", []ledgerStep{
			dev(DeliveryAttempted, 7),
			turnEnd(of(7)),
			dev(DeliveryAcked, 7, settled{true, true}),
		}},
		{"the delivery is released after its Enter: the turn settles as not from the inbox", []ledgerStep{
			dev(DeliveryAttempted, 7),
			turnEnd(of(7)),
			dev(DeliveryReleased, 7, settled{false, true}),
		}},
		{"held, then acknowledged before its turn ends (a late record): the turn is from the inbox", []ledgerStep{
			dev(DeliveryAttempted, 7), dev(DeliveryHeld, 7), dev(DeliveryAcked, 7),
			turnEnd(of(7), settled{true, true}),
		}},
		{"the delivery is held after its Enter: the turn settles as not from the inbox", []ledgerStep{
			dev(DeliveryAttempted, 7),
			turnEnd(of(7)),
			dev(DeliveryHeld, 7, settled{false, true}),
		}},
		// The bug of the 15 s guess: an abandoned attempt left the engine
		// believing the delivery in flight, so the person's own Enter was
		// taken as its turn.
		{"an abandoned attempt does not make the person's turn that delivery's", []ledgerStep{
			dev(DeliveryAttempted, 7), dev(DeliveryUnattempted, 7),
			turnEnd(person, settled{false, true}),
		}},
		{"the person's turn while a delivery is being attempted is the person's", []ledgerStep{
			dev(DeliveryAttempted, 7),
			turnEnd(person, settled{false, true}),
			dev(DeliveryAcked, 7),
			turnEnd(of(7), settled{true, false}),
		}},
		{"a plain queue message (never attempted as an inbox delivery) is not from the inbox", []ledgerStep{
			turnEnd(of(3), settled{false, true}),
		}},
		{"turns settle in order: a later turn waits behind one waiting for its delivery", []ledgerStep{
			dev(DeliveryAttempted, 7),
			turnEnd(of(7)),
			turnEnd(person),
			dev(DeliveryAcked, 7, settled{true, true}, settled{false, false}),
		}},
		{"a turn with two deliveries waits for both and is from the inbox if one was acknowledged", []ledgerStep{
			dev(DeliveryAttempted, 7), dev(DeliveryAcked, 7), dev(DeliveryAttempted, 9),
			turnEnd(of(7, 9)),
			dev(DeliveryReleased, 9, settled{true, true}),
		}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			var l TurnLedger
			for i, st := range r.steps {
				var got []EndedTurn
				if st.delivery != nil {
					got = l.Delivery(*st.delivery)
				} else {
					got = l.TurnEnded("a", *st.turn)
				}
				var gs []settled
				for _, g := range got {
					if g.Agent != "a" {
						t.Fatalf("step %d: settled agent %q", i, g.Agent)
					}
					gs = append(gs, settled{g.FromInbox, g.First})
				}
				if !reflect.DeepEqual(gs, st.want) {
					t.Fatalf("step %d: settled %+v, want %+v", i, gs, st.want)
				}
			}
		})
	}
}

// A delivery held after its Enter (typed, not confirmed) whose record
// comes late is acknowledged after its turn settled without it: that turn
// settles again, from the inbox (its mail is working now and settles as at
// that turn's end; the journal was checked the first time). Typed again
// instead, it has a turn of its own.
func TestTurnLedgerALateAcknowledgementSettlesItsTurnAgain(t *testing.T) {
	t.Parallel()
	turn := automation.TurnEvent{Kind: automation.TurnEnded, Causes: []automation.TurnCause{automation.DeliveryEnter(7)}}
	var l TurnLedger
	l.Delivery(DeliveryEvent{Kind: DeliveryAttempted, Agent: "a", MsgID: 7})
	if got := l.TurnEnded("a", turn); len(got) != 0 {
		t.Fatalf("settled %+v before the delivery's fate", got)
	}
	if got := l.Delivery(DeliveryEvent{Kind: DeliveryHeld, Agent: "a", MsgID: 7}); len(got) != 1 || got[0].FromInbox || got[0].Again {
		t.Fatalf("held: settled %+v, want the turn, not from the inbox", got)
	}
	got := l.Delivery(DeliveryEvent{Kind: DeliveryAcked, Agent: "a", MsgID: 7})
	if len(got) != 1 || !got[0].FromInbox || !got[0].Again || !got[0].First || !reflect.DeepEqual(got[0].Turn, turn) {
		t.Fatalf("acknowledged late: settled %+v, want that turn again, from the inbox", got)
	}
	if got := l.Delivery(DeliveryEvent{Kind: DeliveryAcked, Agent: "a", MsgID: 7}); len(got) != 0 {
		t.Fatalf("a second acknowledgement settled %+v", got)
	}

	// Released and typed again: the new typing's turn is its own.
	var r TurnLedger
	r.Delivery(DeliveryEvent{Kind: DeliveryAttempted, Agent: "a", MsgID: 7})
	r.TurnEnded("a", turn)
	r.Delivery(DeliveryEvent{Kind: DeliveryHeld, Agent: "a", MsgID: 7})
	r.Delivery(DeliveryEvent{Kind: DeliveryAttempted, Agent: "a", MsgID: 7})
	if got := r.Delivery(DeliveryEvent{Kind: DeliveryAcked, Agent: "a", MsgID: 7}); len(got) != 0 {
		t.Fatalf("typed again and acknowledged: settled %+v, want nothing until its own turn ends", got)
	}
	if got := r.TurnEnded("a", turn); len(got) != 1 || !got[0].FromInbox || got[0].Again {
		t.Fatalf("its own turn: settled %+v, want it from the inbox", got)
	}
}

func TestTurnLedgerBounds(t *testing.T) {
	var l TurnLedger
	// Deliveries attempted and never settled (a typed-not-submitted text
	// whose Enter never came) are forgotten, oldest first.
	for id := int64(1); id <= 3*ledgerDeliveries; id++ {
		l.Delivery(DeliveryEvent{Kind: DeliveryAttempted, Agent: "a", MsgID: id})
	}
	if n := len(l.agent("a").deliveries); n != ledgerDeliveries {
		t.Fatalf("%d deliveries remembered, want %d", n, ledgerDeliveries)
	}
	// Turns waiting on a delivery that never settles are settled once too
	// many wait.
	var done []EndedTurn
	for id := int64(1); id <= ledgerWaiting+1; id++ {
		l.Delivery(DeliveryEvent{Kind: DeliveryAttempted, Agent: "b", MsgID: id})
		done = append(done, l.TurnEnded("b", automation.TurnEvent{Causes: []automation.TurnCause{automation.DeliveryEnter(id)}})...)
	}
	if len(done) != 1 || len(l.agent("b").waiting) != ledgerWaiting {
		t.Fatalf("settled %d, %d waiting; want 1 and %d", len(done), len(l.agent("b").waiting), ledgerWaiting)
	}
	// An exit forgets what waits.
	l.Exited("b")
	if len(l.agent("b").waiting) != 0 {
		t.Fatal("waiting turns kept after the exit")
	}
}

func TestSettleTurnNotifiesTheParentOfAnInboxTurnAndSettlesMail(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "do it", Request: true})
	e.deliverAll("a")
	start := e.clock.Now()
	screen := "line 1\nline 2\n● all done"
	r, err := e.svc.SettleTurn(e.ctx, TurnEnd{
		EndedTurn: EndedTurn{Agent: "a", Turn: automation.TurnEvent{Start: start}, FromInbox: true},
		Parent:    "b", Desc: "reviewer", Result: LastLines(screen, ResultLines, ResultBytes),
	}, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Mail) != 1 || r.Mail[0].State != MailFailed || !r.Notified || !r.Changed() {
		t.Fatalf("settled %+v, want the request failed (no reply) and the parent told", r)
	}
	if st, reason := e.mailState(id); st != MailFailed || reason != ReasonNoReply {
		t.Fatalf("mail %s(%s)", st, reason)
	}
	var notice string
	for _, n := range e.notices("b") {
		if strings.Contains(n, "reviewer") && strings.Contains(n, "all done") {
			notice = n
		}
	}
	if notice == "" {
		t.Fatalf("no turn notice with the screen's last lines to the parent: %q", e.notices("b"))
	}
}

func TestSettleTurnOfThePersonsTurnTellsNoParent(t *testing.T) {
	e := newEnv(t)
	r, err := e.svc.SettleTurn(e.ctx, TurnEnd{EndedTurn: EndedTurn{Agent: "a", First: false}, Parent: "b", Desc: "a"}, e.clock.Now())
	if err != nil || r.Notified || r.Changed() {
		t.Fatalf("settled %+v, %v: want nothing", r, err)
	}
	// The first turn of an agent with a task is reported all the same (and
	// its missing journal gets a continuation).
	r, err = e.svc.SettleTurn(e.ctx, TurnEnd{EndedTurn: EndedTurn{Agent: "a", First: true}, Parent: "b", Desc: "a",
		Task: "t1", Journal: t.TempDir() + "/progress.md"}, e.clock.Now().Add(time.Second))
	if err != nil || !r.Notified || !r.Journal.Continued {
		t.Fatalf("settled %+v, %v: want the parent told and a continuation", r, err)
	}
}

// A turn settled again (a held delivery's late acknowledgement) settles the
// mail now working, tells the parent of a turn from the inbox, and neither
// tells it twice of a task agent's first turn nor checks the journal again.
func TestSettleTurnAgainSettlesTheMailOnly(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "do it"})
	e.deliverAll("a")
	r, err := e.svc.SettleTurn(e.ctx, TurnEnd{EndedTurn: EndedTurn{Agent: "a", FromInbox: true, First: true, Again: true},
		Parent: "b", Desc: "a", Task: "t1", Journal: t.TempDir() + "/progress.md"}, e.clock.Now())
	if err != nil || len(r.Mail) != 1 || r.Notified || r.Journal.Continued {
		t.Fatalf("settled %+v, %v: want the mail only", r, err)
	}
	if st, _ := e.mailState(id); st != MailDone {
		t.Fatalf("mail %s, want done", st)
	}
	r, err = e.svc.SettleTurn(e.ctx, TurnEnd{EndedTurn: EndedTurn{Agent: "a", FromInbox: true, Again: true}, Parent: "b", Desc: "a"}, e.clock.Now())
	if err != nil || !r.Notified {
		t.Fatalf("settled %+v, %v: want the parent told of a turn from the inbox", r, err)
	}
}
