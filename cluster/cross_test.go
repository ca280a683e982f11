package cluster_test

// Tests of what else crosses hosts: a child's notices to its parent on
// another host, the cancel of crossed mail, and the refusal of an item the
// receiving host cannot store. Each runs two real embedded NATS servers.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"office/cluster"
	"office/inbox"
	"office/queue"
)

// startFloor starts hosts a and b with their agents and waits until each
// knows the other's.
func startFloor(t *testing.T, aAgents, bAgents []string) (a, b *host) {
	t.Helper()
	ctx := context.Background()
	hs := floor(t, map[string][]string{"a": aAgents, "b": bAgents}, "a", "b")
	a, b = hs[0], hs[1]
	a.start(t)
	b.start(t)
	eventually(t, 20*time.Second, "each host knows the other's agents", func() (bool, error) {
		_, errA := cluster.Lookup(ctx, a.store, bAgents[0])
		_, errB := cluster.Lookup(ctx, b.store, aAgents[0])
		return errA == nil && errB == nil, nil
	})
	return a, b
}

// pending returns how many items for host wait in h's outbox.
func pending(t testing.TB, h *host, to string) int {
	t.Helper()
	p, err := cluster.Pending(context.Background(), h.store)
	if err != nil {
		t.Fatal(err)
	}
	return p[to]
}

// notices returns the bodies of h's undelivered notifications for agent.
func notices(t testing.TB, h *host, agent string) []string {
	t.Helper()
	items, err := h.svc.Items(context.Background(), agent)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		if it.Kind == inbox.KindNotification {
			out = append(out, it.Body)
		}
	}
	return out
}

// TestFloorNoticeToParentCrossesOnce: the notices of a child on b whose
// parent is on a reach the parent once each (a repeated dedupe key sends
// nothing), also when a is down when they are made.
func TestFloorNoticeToParentCrossesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers and restarts one (about 15 s): not under -short")
	}
	ctx := context.Background()
	a, b := startFloor(t, []string{"lead"}, []string{"child"})
	done := inbox.Notice{Kind: inbox.NoticeCompleted, Desc: "the child", Agent: "child", Result: "all green"}
	first, err := b.svc.NotifyParent(ctx, "lead", done, "turn:child:1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := b.svc.NotifyParent(ctx, "lead", done, "turn:child:1")
	if err != nil || again != first {
		t.Fatalf("the same notice again: %q, %v; want %q (one item)", again, err, first)
	}
	if _, err := b.svc.ForwardPermission(ctx, "lead", "child", "Run make?", []string{"1. Yes", "2. No"}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.NotifyParent(ctx, "nobody-anywhere", done, ""); !errors.Is(err, inbox.ErrUnknownReceiver) {
		t.Fatalf("a notice to a name no host has: %v, want ErrUnknownReceiver", err)
	}
	eventually(t, 20*time.Second, "the notice and the dialog reach lead on a", func() (bool, error) {
		items, err := a.svc.Items(ctx, "lead")
		return len(items) == 2, err
	})
	items, _ := a.svc.Items(ctx, "lead")
	if items[0].ID != first || items[0].Kind != inbox.KindNotification || items[0].Sender != "child" ||
		!strings.Contains(items[0].Body, "all green") || !strings.Contains(items[1].Body, "Run make?") {
		t.Fatalf("lead's items on a: %+v", items)
	}

	a.stop()
	stall := inbox.Notice{Kind: inbox.NoticeStalled, Desc: "the child", Agent: "child", Quiet: time.Minute}
	if _, err := b.svc.NotifyParent(ctx, "lead", stall, "stall:child:1"); err != nil {
		t.Fatalf("a notice while the parent's host is down: %v", err)
	}
	if n := pending(t, b, "a"); n != 1 {
		t.Fatalf("%d items wait on b for a, want the notice", n)
	}
	a.start(t)
	eventually(t, 30*time.Second, "the notice made while a was down reaches lead", func() (bool, error) {
		items, err := a.svc.Items(ctx, "lead")
		return len(items) >= 3 && pending(t, b, "a") == 0, err
	})
	if got := notices(t, a, "lead"); len(got) != 2 || !strings.Contains(got[1], "child") {
		t.Fatalf("lead's notices on a: %q (want the completion and the stall, once each)", got)
	}
}

// TestFloorCancelCrossesToReceiver: `office mail cancel` of mail that
// crossed goes to the receiver's host (waiting in the outbox while it is
// down) and cancels it there before it is typed, both envelopes ending
// cancelled; once typed in there, the canceller is told it came too late
// and both envelopes follow the receiver's host. A cancel that arrives
// before its mail cancels the mail as it arrives.
func TestFloorCancelCrossesToReceiver(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers and restarts both (about 20 s): not under -short")
	}
	ctx := context.Background()
	a, b := startFloor(t, []string{"alice"}, []string{"bob"})

	b.stop()
	early := a.sendRequest(t, "alice", "bob", "b", "early")
	if _, err := a.svc.CancelMail(ctx, "mallory", early); !errors.Is(err, inbox.ErrNotAllowed) {
		t.Fatalf("a cancel by someone else: %v, want ErrNotAllowed", err)
	}
	c, err := a.svc.CancelMail(ctx, "alice", early)
	if err != nil || c.Host != "b" {
		t.Fatalf("cancel of crossed mail: %+v, %v; want it sent to host b", c, err)
	}
	if st, _, _ := mailState(a, early); st != inbox.MailQueued {
		t.Fatalf("a's envelope after the cancel was stored: %s, want queued until b answers", st)
	}
	if n := pending(t, a, "b"); n != 2 {
		t.Fatalf("%d items wait on a for b, want the mail and its cancel", n)
	}
	b.start(t)
	eventually(t, 30*time.Second, "cancelled on both hosts", func() (bool, error) {
		sa, ra, err := mailState(a, early)
		sb, _, _ := mailState(b, early)
		return sa == inbox.MailCancelled && ra == "cancelled by alice" && sb == inbox.MailCancelled, err
	})
	if items, err := b.svc.Items(ctx, "bob"); err != nil || len(items) != 0 {
		t.Fatalf("bob's items on b: %+v, %v (the cancelled mail must never be typed)", items, err)
	}

	late := a.sendRequest(t, "alice", "bob", "b", "late")
	eventually(t, 20*time.Second, "the second mail reaches b", func() (bool, error) {
		_, _, err := mailState(b, late)
		return err == nil, nil
	})
	a.stop()
	b.deliver(t, "bob", 10) // typed in on b while a has not heard yet
	if st, _, _ := mailState(a, late); st != inbox.MailQueued {
		t.Fatalf("a's envelope: %s, want queued (b's news waits)", st)
	}
	if c, err := a.svc.CancelMail(ctx, "alice", late); err != nil || c.Host != "b" {
		t.Fatalf("cancel of the typed mail: %+v, %v", c, err)
	}
	a.start(t)
	eventually(t, 30*time.Second, "alice told the cancel came too late", func() (bool, error) {
		for _, n := range notices(t, a, "alice") {
			if strings.Contains(n, late) && strings.Contains(n, "too late") {
				return true, nil
			}
		}
		return false, nil
	})
	eventually(t, 20*time.Second, "both envelopes working", func() (bool, error) {
		sa, _, err := mailState(a, late)
		sb, _, _ := mailState(b, late)
		return sa == inbox.MailWorking && sb == inbox.MailWorking, err
	})
	if got := notices(t, a, "alice"); len(got) != 1 {
		t.Fatalf("alice's notices: %q, want the one too-late notice", got)
	}
	_, tl, _ := a.svc.GetMail(ctx, late)
	var notes []string
	for _, e := range tl {
		notes = append(notes, e.Detail)
	}
	if all := strings.Join(notes, "|"); !strings.Contains(all, "cancel by alice sent to host b") || !strings.Contains(all, "cancel refused by host b: too late") {
		t.Fatalf("a's timeline of the late mail: %s", all)
	}

	// A cancel that overtakes its mail (a redelivery out of order).
	const id = "01JCANCE1F1RST0000000000AA"
	cancelFirst := cluster.Item{ID: "01JCANCE1F1RST0000000000AB", Kind: cluster.KindCancel, From: "alice", FromHost: "a", To: "bob", ToHost: "b",
		Text: "cancel mail " + id, MailID: id}
	if _, err := b.node.Apply(ctx, cancelFirst); err != nil {
		t.Fatal(err)
	}
	mail := cluster.Item{ID: id, Kind: cluster.KindMail, From: "alice", FromHost: "a", To: "bob", ToHost: "b", Text: "overtaken", Title: "overtaken"}
	if _, err := b.node.Apply(ctx, mail); err != nil {
		t.Fatal(err)
	}
	if st, _, err := mailState(b, id); err != nil || st != inbox.MailCancelled {
		t.Fatalf("mail whose cancel came first: %s, %v; want cancelled", st, err)
	}
	if items, _ := b.svc.Items(ctx, "bob"); len(items) != 0 {
		t.Fatalf("bob's items on b: %+v (the overtaken mail must never be typed)", items)
	}
}

// TestFloorRefusalEndsItemOnSender: items b can never store (their agent
// is no agent of b, a second pending compaction command) are refused back
// once: a's mail ends failed(refused_by_host) with its sender told, the
// person is told of the refused sends, a keeps the refusals, nothing waits
// or comes again; a redelivery of a refused item refuses nothing more.
func TestFloorRefusalEndsItemOnSender(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers (about 10 s): not under -short")
	}
	ctx := context.Background()
	a, b := startFloor(t, []string{"alice"}, []string{"bob"})
	mail := a.sendRequest(t, "alice", "ghost", "b", "to nobody")
	ghost := a.stash(t, cluster.KindSend, inbox.Person, "ghost", "b", 1)[0]
	var compact []string
	for range 2 {
		err := a.store.Update(ctx, func(tx *queue.Tx) error {
			id, err := cluster.StashTx(tx, cluster.Item{Kind: cluster.KindSend, From: inbox.Person, FromHost: "a", To: "bob", ToHost: "b", Text: "/compact"})
			compact = append(compact, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	a.node.Wake()
	eventually(t, 30*time.Second, "three refusals back on a", func() (bool, error) {
		rs, err := cluster.Refused(ctx, a.store)
		return len(rs) == 3 && pending(t, a, "b") == 0 && pending(t, b, "a") == 0, err
	})
	st, reason, _ := mailState(a, mail)
	if st != inbox.MailFailed || reason != inbox.ReasonRefused {
		t.Fatalf("a's refused mail: %s(%s), want failed(%s)", st, reason, inbox.ReasonRefused)
	}
	if got := notices(t, a, "alice"); len(got) != 1 || !strings.Contains(got[0], inbox.ReasonRefused) {
		t.Fatalf("alice's notices: %q, want the failure of her mail", got)
	}
	person := strings.Join(notices(t, a, inbox.Person), "\n")
	if !strings.Contains(person, ghost) || !strings.Contains(person, compact[1]) || strings.Contains(person, compact[0]) {
		t.Fatalf("the person's notices on a: %s (want the ghost send and the second /compact)", person)
	}
	why := map[string]string{}
	rs, _ := cluster.Refused(ctx, a.store)
	for _, r := range rs {
		if r.Host != "b" {
			t.Errorf("refusal %+v: host %q, want b", r, r.Host)
		}
		why[r.ID] = r.Reason
	}
	if !strings.Contains(why[mail], `"ghost"`) || !strings.Contains(why[ghost], `"ghost"`) || !strings.Contains(why[compact[1]], "compaction") {
		t.Fatalf("refusal reasons: %q", why)
	}
	// The same item again (a redelivery after the ack was lost) refuses
	// nothing more.
	again := cluster.Item{ID: ghost, Kind: cluster.KindSend, From: inbox.Person, FromHost: "a", To: "ghost", ToHost: "b", Text: "send 0"}
	if stored, err := b.node.Apply(ctx, again); stored || err != nil {
		t.Fatalf("a refused item applied again: stored %v, %v", stored, err)
	}
	if n := pending(t, b, "a"); n != 0 {
		t.Fatalf("%d items wait on b for a after the redelivery, want none", n)
	}
	// A cancel of the refused mail finds it ended: nothing waits for it.
	cancel := cluster.Item{ID: "01JCANCE10FREFVSED00000000", Kind: cluster.KindCancel, From: "alice", FromHost: "a", To: "ghost", ToHost: "b",
		Text: "cancel mail " + mail, MailID: mail}
	if _, err := b.node.Apply(ctx, cancel); err != nil {
		t.Fatal(err)
	}
	var waiting int
	if err := b.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM cluster_cancels`).Scan(&waiting); err != nil || waiting != 0 {
		t.Fatalf("%d cancels wait on b for mail (%v), want none: the mail was refused", waiting, err)
	}
}

// TestFloorRefusedDialogGoesToPerson: a child's forwarded dialog to a
// parent the other host no longer has comes back refused and goes to the
// person on the child's host (who answers a dialog with no parent), once
// although refused twice; a refused notice about the child is listed and
// logged, told to no one.
func TestFloorRefusedDialogGoesToPerson(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers (about 10 s): not under -short")
	}
	ctx := context.Background()
	a, b := startFloor(t, []string{"lead", "gone"}, []string{"child"})
	eventually(t, 20*time.Second, "b knows gone on a", func() (bool, error) {
		_, err := cluster.Lookup(ctx, b.store, "gone")
		return err == nil, nil
	})
	if err := a.store.RemoveAgent(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	dialog, err := b.svc.ForwardPermission(ctx, "gone", "child", "Run make?", []string{"1. Yes", "2. No"}, "")
	if err != nil {
		t.Fatal(err)
	}
	done := inbox.Notice{Kind: inbox.NoticeCompleted, Desc: "the child", Agent: "child", Result: "all green"}
	if _, err := b.svc.NotifyParent(ctx, "gone", done, "turn:child:1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "both refused back on b", func() (bool, error) {
		rs, err := cluster.Refused(ctx, b.store)
		return len(rs) == 2, err
	})
	items, err := b.svc.Items(ctx, inbox.Person)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Kind != inbox.KindText || !strings.Contains(items[0].Body, "Run make?") ||
		!strings.Contains(items[0].Body, "For gone on host a") || !strings.Contains(items[0].Body, "office approve child OPTION") {
		t.Fatalf("the person's items on b: %+v, want the dialog once", items)
	}
	// The refusal again (a redelivery) gives the person nothing more.
	again := cluster.Item{ID: "01JREFVSED0D1A10G000000000", Kind: cluster.KindRefused, From: "gone", FromHost: "a", To: "child", ToHost: "b",
		Text: "refused", RefID: dialog, RefKind: cluster.KindInbox, Reason: "gone", InboxKind: inbox.KindText, Body: "Run make?"}
	if _, err := b.node.Apply(ctx, again); err != nil {
		t.Fatal(err)
	}
	if items, _ := b.svc.Items(ctx, inbox.Person); len(items) != 1 {
		t.Fatalf("the person's items on b after a second refusal: %+v", items)
	}
}

// TestSenderOfAnItemJoinsTheLastKnownRoster: a message from an agent of
// another host makes that agent known here at once (an answer to it, such
// as `office approve` of the dialog it forwarded, finds it), before that
// host's roster is read; a message from the person adds no one.
func TestSenderOfAnItemJoinsTheLastKnownRoster(t *testing.T) {
	ctx := context.Background()
	a := floor(t, map[string][]string{"a": {"lead"}}, "a")[0]
	a.start(t)
	if _, err := cluster.Lookup(ctx, a.store, "newbie"); !errors.Is(err, cluster.ErrNotOnFloor) {
		t.Fatalf("newbie before any item: %v, want not on the floor", err)
	}
	items := []cluster.Item{
		{ID: "01KB0000000000000000000001", Kind: cluster.KindInbox, From: "newbie", FromHost: "b", To: "lead", ToHost: "a",
			Text: "<permission-request>", InboxKind: inbox.KindText},
		{ID: "01KB0000000000000000000002", Kind: cluster.KindSend, From: inbox.Person, FromHost: "c", To: "lead", ToHost: "a", Text: "hi"},
	}
	for _, it := range items {
		if stored, err := a.node.Apply(ctx, it); !stored || err != nil {
			t.Fatalf("apply %s: stored %v, %v", it.ID, stored, err)
		}
	}
	if m, err := cluster.Lookup(ctx, a.store, "newbie"); err != nil || m.Host != "b" {
		t.Fatalf("newbie after its notice: %+v, %v; want on host b", m, err)
	}
	if _, err := cluster.Lookup(ctx, a.store, inbox.Person); !errors.Is(err, cluster.ErrNotOnFloor) {
		t.Fatalf("the person joined the roster: %v", err)
	}
}
