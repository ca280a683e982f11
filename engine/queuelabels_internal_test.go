package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"office/configs"
	"office/queue"
	"office/wire"
)

// A set-aside message is not its agent's head: the message behind it is
// ("next" here, its agent's hold when one holds it), in QueueLabels and so
// in the server's "queue.list" (the UI's queue panel), as in `office queue`.
func TestQueueListSetAsideIsNotTheHead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	ctx := context.Background()
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(state, StoreFile)
	s, err := queue.Open(path, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureAgents(ctx, []string{"a0"}); err != nil {
		t.Fatal(err)
	}
	aside, err := s.Enqueue(ctx, "a0", "was being typed", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Attempt(ctx, aside); err != nil {
		t.Fatal(err)
	}
	if err := s.Writing(ctx, aside); err != nil {
		t.Fatal(err)
	}
	if err := s.Entering(ctx, aside); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = queue.Open(path, queue.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecoverInterrupted(ctx, func(queue.Message) queue.Verdict {
		return queue.Verdict{Settle: queue.SettleAside, Evidence: "no record of it"}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Enqueue(ctx, "a0", "behind it", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte("brief = false\n[[agent]]\nname = \"a0\"\ncommand = [\"sleep\", \"600\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Options{Config: c, StateDir: state, HostEnv: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got, err := e.handle(Request{Op: "queue.list"})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, m := range got.([]wire.QueuedMessage) {
		labels = append(labels, m.Held)
	}
	if len(labels) != 2 || labels[0] != "set aside" || labels[1] != "next" {
		t.Errorf("queue.list labels %q, want [set aside next]", labels)
	}

	msgs, err := e.store.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	held := QueueLabels(msgs, QueueState{Running: true, Holds: map[string]string{"a0": "your draft"}})
	if len(held) != 2 || held[0] != "set aside" || held[1] != "your draft" {
		t.Errorf("labels with a0 held by a draft: %q, want [set aside, your draft]", held)
	}
	if l := QueueLabels(msgs, QueueState{}); l[1] != "office not running" {
		t.Errorf("no server: %q, want office not running", l)
	}
}
