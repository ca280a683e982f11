package queue

import (
	"context"
	"slices"
	"testing"
)

// A refused probe goes back to the head of its queue, ahead of what was
// queued behind it, with its id, text and attempts as they were.
func TestRequeuePutsARefusedMessageBackAtTheHead(t *testing.T) {
	t.Parallel()
	s := open(t, Options{}, "a")
	ctx := context.Background()
	id := mustEnqueue(t, s, "a", "the probe", EnqueueOptions{Source: "send"})
	mustEnqueue(t, s, "a", "behind it", EnqueueOptions{})
	if _, _, err := s.AttemptFailed(ctx, id, "write: EIO", 3); err != nil {
		t.Fatal(err)
	}
	m, err := s.Attempt(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delivered(ctx, id, "verified; evidence=hook", StateConfirmed); err != nil {
		t.Fatal(err)
	}
	seq := lastSeq(t, s)
	if err := s.Requeue(ctx, m, "the CLI refused its turn: usage limit"); err != nil {
		t.Fatal(err)
	}
	h, ok, err := s.Head(ctx, "a")
	if err != nil || !ok || h.ID != id || h.Text != "the probe" || h.Attempts != 1 || h.Source != "send" {
		t.Fatalf("head after Requeue = %+v ok=%v err=%v, want message %d with its one attempt", h, ok, err, id)
	}
	if got := texts(t, s, "a"); !slices.Equal(got, []string{"the probe", "behind it"}) {
		t.Errorf("queue = %q", got)
	}
	if got := eventKinds(t, s, seq); !slices.Equal(got, []string{EventRefused}) {
		t.Errorf("events = %q, want refused", got)
	}
	if err := s.Requeue(ctx, m, "again"); err == nil {
		t.Error("Requeue of a queued message succeeded")
	}
	if err := s.Requeue(ctx, Message{ID: 99, Agent: "a", Text: "x", Kind: KindInbox}, "inbox"); err == nil {
		t.Error("Requeue of an inbox delivery succeeded")
	}
}
