package queue

import (
	"context"
	"path/filepath"
	"testing"
)

// TestEventStateMigration: a store file of schema 7 (events without their
// typed state) opens upgraded, its old "delivered" row reading State ""
// (readers fall back on its words for such rows only); a delivery recorded
// since carries its state, and a state that is none is refused.
func TestEventStateMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.db")
	ctx := context.Background()
	s := openAt(t, path, Options{}, "a")
	old := mustEnqueue(t, s, "a", "from schema 7", EnqueueOptions{})
	if err := s.Delivered(ctx, old, "verified", StateConfirmed); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`ALTER TABLE events DROP COLUMN state`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`PRAGMA user_version = 7`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openAt(t, path, Options{})
	var uv int
	if err := s.DB().QueryRow(`PRAGMA user_version`).Scan(&uv); err != nil || uv != SchemaVersion() {
		t.Fatalf("user_version %d, %v; want %d", uv, err, SchemaVersion())
	}
	fresh := mustEnqueue(t, s, "a", "since schema 8", EnqueueOptions{})
	if err := s.Delivered(ctx, fresh, "unverified", StateUnconfirmed); err != nil {
		t.Fatal(err)
	}
	other := mustEnqueue(t, s, "a", "no state", EnqueueOptions{})
	if err := s.Delivered(ctx, other, "verified", "verified"); err == nil {
		t.Fatal("a delivery of state \"verified\" was recorded: want a refusal (confirmed or unconfirmed)")
	}
	evs, err := s.Events(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	for _, e := range evs {
		if e.Kind == EventDelivered {
			got[e.MsgID] = e.State
		}
	}
	if st, ok := got[old]; !ok || st != "" {
		t.Errorf("the row written at schema 7: state %q (%v), want \"\"", st, ok)
	}
	if st := got[fresh]; st != StateUnconfirmed {
		t.Errorf("the row written since: state %q, want %q", st, StateUnconfirmed)
	}
	if _, ok := got[other]; ok {
		t.Errorf("the refused delivery was logged")
	}
}
