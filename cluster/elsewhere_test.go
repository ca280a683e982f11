package cluster_test

import (
	"context"
	"strings"
	"testing"

	"office/cluster"
	"office/inbox"
)

// TestItemForANameRunElsewhereIsRefused: a send or new mail from another
// host to the name of an agent b has but does not run, because host a has
// its name (b's team agent of a name clash a keeps), is not stored on b,
// where nothing would type it: b refuses it, saying why, for the sender's
// host. A reply to b's agent's request and a notice to it are for that
// agent itself and kept for it.
func TestItemForANameRunElsewhereIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a clustered NATS server: not under -short")
	}
	ctx := context.Background()
	b := floor(t, map[string][]string{"b": {"bob", "x"}}, "b")[0]
	b.start(t)
	if err := b.store.SetElsewhere(ctx, "x", "a"); err != nil {
		t.Fatal(err)
	}
	for _, it := range []cluster.Item{
		{ID: "01JELSEWHERESEND0000000000", Kind: cluster.KindSend, From: inbox.Person, FromHost: "c", To: "x", ToHost: "b", Text: "hi"},
		{ID: "01JELSEWHEREMA1L0000000000", Kind: cluster.KindMail, From: "carol", FromHost: "c", To: "x", ToHost: "b", Text: "hi", Title: "t"},
	} {
		if stored, err := b.node.Apply(ctx, it); stored || err != nil {
			t.Fatalf("%s for x: stored %v, %v; want refused", it.Kind, stored, err)
		}
		var why string
		if err := b.store.DB().QueryRowContext(ctx, `SELECT error FROM cluster_received WHERE id = ?`, it.ID).Scan(&why); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(why, "not run on this host, host a has that name") {
			t.Fatalf("%s for x refused with %q: want it to say host a has the name", it.Kind, why)
		}
	}
	if n, _ := countQueue(b, "x"); n != 0 {
		t.Fatalf("%d messages queued on b for x", n)
	}
	if n, _ := countMail(b, "x"); n != 0 {
		t.Fatalf("%d mails on b for x", n)
	}
	if n := pending(t, b, "c"); n != 2 {
		t.Fatalf("%d refusals wait on b for host c, want 2", n)
	}
	// What is for b's own x, not for whoever has the name (a reply to a
	// request it sent, a child's notice to it), is kept for it here.
	for _, it := range []cluster.Item{
		{ID: "01JELSEWHEREREP1Y000000000", Kind: cluster.KindMail, From: "carol", FromHost: "c", To: "x", ToHost: "b", Text: "answer", Title: "Re: t",
			InReplyTo: "01JREQVESTFROMX00000000000"},
		{ID: "01JELSEWHERENOT1CE00000000", Kind: cluster.KindInbox, InboxKind: inbox.KindNotification, From: "kid", FromHost: "c", To: "x", ToHost: "b", Text: "kid ended"},
	} {
		if stored, err := b.node.Apply(ctx, it); !stored || err != nil {
			t.Fatalf("%s for b's own x: stored %v, %v; want kept for it", it.Kind, stored, err)
		}
	}
	if items, err := b.svc.Items(ctx, "x"); err != nil || len(items) != 2 {
		t.Fatalf("x's inbox on b: %+v, %v; want the reply and the notice", items, err)
	}
	if n := pending(t, b, "c"); n != 2 {
		t.Fatalf("%d items wait on b for host c, want the 2 refusals only", n)
	}
}
