package cluster_test

import (
	"context"
	"strings"
	"testing"

	"office/cluster"
	"office/inbox"
)

// TestItemForANameRunElsewhereIsRefused: an item from another host for an
// agent b has but does not run, because host a has its name (b's team
// agent of a name clash a keeps), is not queued on b, where nothing would
// ever type it: b refuses it, saying why, for the sender's host.
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
}
