package inbox

import (
	"errors"
	"strings"
	"testing"
	"time"

	"office/queue"
)

func TestInformMailIsDoneWhenTheTurnEnds(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "FYI", Text: "the build is green"})
	if st, _ := e.mailState(id); st != MailQueued {
		t.Fatalf("new mail %s", st)
	}
	text := e.deliverAll("a")
	if !containsAll(text, "From: b", "Title: FYI", "Text: the build is green", "no action or reply is needed") {
		t.Fatalf("inform prompt:\n%s", text)
	}
	out, err := e.svc.TurnEnded(e.ctx, "a")
	if err != nil || len(out) != 1 || out[0].State != MailDone {
		t.Fatalf("turn end: %+v %v", out, err)
	}
	if st, _ := e.mailState(id); st != MailDone {
		t.Fatalf("state %s", st)
	}
	_, tl, _ := e.svc.GetMail(e.ctx, id)
	var states []string
	for _, x := range tl {
		states = append(states, string(x.State))
	}
	if strings.Join(states, ",") != "queued,claimed,working,done" {
		t.Fatalf("timeline %v", states)
	}
}

func TestRequestIsDoneOnlyWithAReplyAfterWorking(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "Q", Text: "what is 2+2?", Request: true})
	e.deliverAll("a")
	rid, err := e.svc.Reply(e.ctx, "a", id, "4")
	if err != nil {
		t.Fatal(err)
	}
	r, _, _ := e.svc.GetMail(e.ctx, rid)
	if r.Type != MailInform || r.Receiver != "b" || r.Sender != "a" || r.Title != "Re: Q" || r.InReplyTo != id {
		t.Fatalf("reply envelope %+v", r)
	}
	if _, err := e.svc.TurnEnded(e.ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.mailState(id); st != MailDone {
		t.Fatalf("request %s, want done", st)
	}
	// The reply reaches the sender as mail.
	if text := e.deliverAll("b"); !containsAll(text, `in_reply_to="`+id+`"`, "Text: 4") {
		t.Fatalf("reply delivery:\n%s", text)
	}
}

func TestReplyStoredWhileQueuedDoesNotSatisfyTheGate(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "Q", Text: "x", Request: true})
	// A reply written while the mail is still queued (a guess, or a forgery).
	if _, err := e.svc.Reply(e.ctx, "a", id, "early"); err != nil {
		t.Fatal(err)
	}
	e.deliverAll("a")
	if _, err := e.svc.TurnEnded(e.ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if st, reason := e.mailState(id); st != MailFailed || reason != ReasonNoReply {
		t.Fatalf("request %s(%s), want failed(no_reply_found)", st, reason)
	}
	// The sender is told.
	its := e.items("b")
	found := false
	for _, it := range its {
		if it.Kind == KindNotification && containsAll(it.Body, id, ReasonNoReply) {
			found = true
		}
	}
	if !found {
		t.Fatalf("sender not told: %+v", its)
	}
}

func TestReplyFromSomeoneElseDoesNotCount(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "Q", Text: "x", Request: true})
	e.deliverAll("a")
	if _, err := e.svc.Reply(e.ctx, "c", id, "not mine"); !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("reply by c: %v", err)
	}
	// Mail from c with in_reply_to set by hand is not a reply from the receiver.
	e.mail(MailRequestArgs{To: "b", From: "c", Title: "Re: Q", Text: "x", InReplyTo: id})
	e.svc.TurnEnded(e.ctx, "a")
	if st, reason := e.mailState(id); st != MailFailed || reason != ReasonNoReply {
		t.Fatalf("%s(%s)", st, reason)
	}
	if _, err := e.svc.Reply(e.ctx, "a", "01NOSUCHMAIL", "x"); !errors.Is(err, ErrNotFound) || !errors.Is(err, queue.ErrNotFound) {
		t.Fatalf("reply to unknown: %v", err)
	}
}

func TestTickerFailsWorkingMailPastItsDeadline(t *testing.T) {
	e := newEnv(t)
	def := e.mail(MailRequestArgs{To: "a", From: "b", Title: "slow", Text: "x", Request: true})
	short := e.mail(MailRequestArgs{To: "a", From: "b", Title: "quick", Text: "x", Deadline: 45 * time.Second})
	e.deliverAll("a")
	start := e.clock.Now()
	if out, _ := e.svc.Tick(e.ctx, start.Add(45*time.Second)); len(out) != 0 {
		t.Fatalf("settled at exactly the deadline: %+v", out)
	}
	out, err := e.svc.Tick(e.ctx, start.Add(46*time.Second))
	if err != nil || len(out) != 1 || out[0].Mail.ID != short {
		t.Fatalf("tick: %+v %v", out, err)
	}
	if st, reason := e.mailState(short); st != MailFailed || reason != ReasonTimeout {
		t.Fatalf("%s(%s)", st, reason)
	}
	if st, _ := e.mailState(def); st != MailWorking {
		t.Fatal("default deadline (30 min) applied too early")
	}
	if out, _ := e.svc.Tick(e.ctx, start.Add(30*time.Minute+time.Second)); len(out) != 1 || out[0].Reason != ReasonTimeout {
		t.Fatalf("default deadline: %+v", out)
	}
	// Terminal is final: a turn end and a late reply change nothing.
	e.svc.TurnEnded(e.ctx, "a")
	if _, err := e.svc.Reply(e.ctx, "a", def, "sorry, late"); err != nil {
		t.Fatal(err)
	}
	if st, reason := e.mailState(def); st != MailFailed || reason != ReasonTimeout {
		t.Fatalf("final state changed: %s(%s)", st, reason)
	}
	_, tl, _ := e.svc.GetMail(e.ctx, def)
	if last := tl[len(tl)-1]; !strings.Contains(last.Detail, "late reply") {
		t.Fatalf("late reply not on the timeline: %+v", last)
	}
}

func TestReplyThatRacesTheTickerEndsDone(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "Q", Text: "x", Request: true, Deadline: time.Minute})
	e.deliverAll("a")
	// The reply lands just as the deadline passes, before the turn ends.
	e.clock.Advance(59 * time.Second)
	if _, err := e.svc.Reply(e.ctx, "a", id, "just in time"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Tick(e.ctx, e.clock.Advance(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if st, reason := e.mailState(id); st != MailDone {
		t.Fatalf("%s(%s), want done", st, reason)
	}
	e.svc.TurnEnded(e.ctx, "a")
	if st, _ := e.mailState(id); st != MailDone {
		t.Fatal("turn end changed a final state")
	}
}

func TestCancelOnlyBeforeWorkingAndOnlyBySenderOrPerson(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "x"})
	if err := e.svc.Cancel(e.ctx, "c", id); !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("cancel by c: %v", err)
	}
	if err := e.svc.Cancel(e.ctx, "b", id); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.mailState(id); st != MailCancelled {
		t.Fatal(st)
	}
	if e.schedule("a") != 0 {
		t.Fatal("cancelled mail still scheduled")
	}
	id2 := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "y"})
	e.deliverAll("a")
	if err := e.svc.Cancel(e.ctx, Person, id2); !errors.Is(err, ErrFinal) {
		t.Fatalf("cancel working: %v", err)
	}
}

func TestMailToAnAgentThatCannotStartFailsWithoutWorking(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "t", Text: "x", Request: true})
	n, err := e.svc.FailUndeliverable(e.ctx, "a", ReasonSpawnFailed)
	if err != nil || n != 1 {
		t.Fatal(n, err)
	}
	if st, reason := e.mailState(id); st != MailFailed || reason != ReasonSpawnFailed {
		t.Fatalf("%s(%s)", st, reason)
	}
	_, tl, _ := e.svc.GetMail(e.ctx, id)
	for _, x := range tl {
		if x.State == MailWorking {
			t.Fatal("passed working")
		}
	}
	if e.schedule("a") != 0 {
		t.Fatal("failed mail still scheduled")
	}
	if its := e.items("b"); len(its) != 1 || !strings.Contains(its[0].Body, ReasonSpawnFailed) {
		t.Fatalf("sender not told: %+v", its)
	}
}

func TestMailFromThePersonAndToThePerson(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", Title: "hello", Text: "from me", Request: true})
	m, _, _ := e.svc.GetMail(e.ctx, id)
	if m.Sender != Person {
		t.Fatalf("sender %q", m.Sender)
	}
	if text := e.deliverAll("a"); !strings.Contains(text, `from="person"`) {
		t.Fatal(text)
	}
	if _, err := e.svc.Reply(e.ctx, "a", id, "hi person"); err != nil {
		t.Fatal(err)
	}
	its := e.items(Person)
	if len(its) != 1 || its[0].Mail == nil || its[0].Mail.InReplyTo != id {
		t.Fatalf("person's inbox %+v", its)
	}
	if n, _ := e.svc.MarkRead(e.ctx, its[0].Seq); n != 1 || len(e.items(Person)) != 0 {
		t.Fatal("mark read")
	}
}

// TestNotFoundMatchesBothSentinelsSaidOnce: a missing mail or item matches
// inbox.ErrNotFound and queue.ErrNotFound (callers that know only the
// store's), and its text says "not found" once.
func TestNotFoundMatchesBothSentinelsSaidOnce(t *testing.T) {
	e := newEnv(t)
	_, _, merr := e.svc.GetMail(e.ctx, "nope")
	_, ierr := e.svc.GetItem(e.ctx, "nope")
	for _, err := range []error{merr, ierr} {
		if !errors.Is(err, ErrNotFound) || !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("%v: does not match both ErrNotFound sentinels", err)
		}
		if err != nil && strings.Count(err.Error(), "not found") != 1 {
			t.Errorf("%q: says not found more than once", err)
		}
	}
	_, berr := cleanBody(" \n ")
	if !errors.Is(berr, ErrBlankBody) || !errors.Is(berr, queue.ErrBlank) || strings.Count(berr.Error(), "blank") != 1 {
		t.Errorf("blank body: %q", berr)
	}
}

// An agent that answers at once replies before the drain has confirmed the
// Enter: the reply is stored while the request is still claimed, then the
// acknowledgement moves it to working. The gate counts that reply.
func TestReplyStoredWhileClaimedSatisfiesTheGate(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "Q", Text: "what is 2+2?", Request: true})
	msg := e.schedule("a")
	if _, err := e.ds.Attempt(e.ctx, msg); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.mailState(id); st != MailClaimed {
		t.Fatalf("leased request %s, want claimed", st)
	}
	if _, err := e.svc.Reply(e.ctx, "a", id, "4"); err != nil {
		t.Fatal(err)
	}
	if err := e.ds.Delivered(e.ctx, msg, "test", queue.StateUnconfirmed); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.TurnEnded(e.ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if st, reason := e.mailState(id); st != MailDone {
		_, tl, _ := e.svc.GetMail(e.ctx, id)
		t.Fatalf("request %s(%s), want done; timeline %+v", st, reason, tl)
	}
}

// A delivery typed before a crash: the agent replied, the office died before
// the acknowledgement, and the restart leased the request again. The reply
// stored before the second lease still answers it.
func TestReplyBeforeACrashRetypeSatisfiesTheGate(t *testing.T) {
	e := newEnv(t)
	id := e.mail(MailRequestArgs{To: "a", From: "b", Title: "Q", Text: "x", Request: true})
	if _, err := e.ds.Attempt(e.ctx, e.schedule("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Reply(e.ctx, "a", id, "done"); err != nil {
		t.Fatal(err)
	}
	e.restart()
	if _, err := e.svc.ReleaseAllLeases(e.ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.mailState(id); st != MailQueued {
		t.Fatalf("released request %s, want queued", st)
	}
	e.deliver(e.schedule("a"))
	if _, err := e.svc.TurnEnded(e.ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if st, reason := e.mailState(id); st != MailDone {
		t.Fatalf("request %s(%s), want done", st, reason)
	}
}
