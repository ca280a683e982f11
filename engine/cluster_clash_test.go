package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"office/cluster"
	"office/configs"
	"office/engine"
	"office/inbox"
	"office/queue"
	"office/test/testcerts"
	"office/test/testports"
)

// An agent added with `team add` whose name another host of the floor has
// (by the last-known roster) is not started again when the server starts;
// one no other host has is.
func TestTeamAgentWithAnotherHostsNameNotStarted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a clustered office twice (about 7 s): not under -short")
	}
	t.Parallel()
	dir := t.TempDir()
	port := testports.Port(t)
	text := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"a0\"\nprofile = \"shell\"\n\n[cluster]\nname = \"floor\"\nhost = \"b\"\nlisten = \"127.0.0.1:%d\"\n%s", port, testcerts.New(t, "floor").TOML(t, "b"))
	cc, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	run := func() (*engine.Engine, context.CancelFunc) {
		e, err := engine.Open(engine.Options{Config: cc, StateDir: state, HostEnv: hostEnv()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); e.Run(ctx) }()
		return e, func() { cancel(); e.Close(); <-done }
	}
	e, stop := run()
	for _, name := range []string{"x", "y"} {
		if _, err := e.AddTeamAgent(context.Background(), engine.TeamSpec{Name: name, Profile: "shell"}); err != nil {
			t.Fatal(err)
		}
	}
	stop()

	// Host a was seen with an agent x (two team adds at one moment, while
	// the hosts had not met).
	s, err := queue.Open(filepath.Join(state, "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`INSERT INTO cluster_roster (name, host, seen) VALUES ('x', 'a', ?)`, time.Now().UnixNano()); err != nil {
		t.Fatal(err)
	}
	if m, err := cluster.Lookup(context.Background(), s, "x"); err != nil || m.Host != "a" {
		t.Fatalf("x in the last-known roster: %+v, %v", m, err)
	}
	s.Close()

	e, stop = run()
	defer stop()
	waitCond(t, 20*time.Second, "team agent y started again", func() bool { _, ok := e.Agent("y"); return ok })
	if _, ok := e.Agent("x"); ok {
		t.Fatal("team agent x started although host a has that name")
	}
	ctx := context.Background()
	// x is no receiver here of what is sent to its name while host a has
	// it: nothing for it waits in this host's queue. A notice for this
	// host's x itself (from its child) is kept for it, not sent to a's x.
	waitCond(t, 20*time.Second, "x recorded as run on host a", func() bool {
		r, err := e.Store().Agent(ctx, "x")
		return err == nil && r.Elsewhere == "a"
	})
	var elsewhere *queue.ElsewhereError
	if _, err := e.Store().Enqueue(ctx, "x", "hello", queue.EnqueueOptions{}); !errors.As(err, &elsewhere) || elsewhere.Host != "a" || !errors.Is(err, queue.ErrUnknownAgent) {
		t.Fatalf("enqueue to x: %v, want refused naming host a", err)
	}
	if _, err := e.Inbox().NotifyParent(ctx, "x", inbox.Notice{Kind: inbox.NoticeCancelled, Desc: "kid", Agent: "y"}, ""); err != nil {
		t.Fatalf("notice to x as y's parent: %v", err)
	}
	if p, err := cluster.Pending(ctx, e.Store()); err != nil || p["a"] != 0 {
		t.Fatalf("outbox %v, %v: nothing for a's x", p, err)
	}
	if n, err := e.Store().List(ctx, "x"); err != nil || len(n) != 0 {
		t.Fatalf("x's queue here %+v, %v: want empty", n, err)
	}
	if items, err := e.Inbox().Items(ctx, "x"); err != nil || len(items) != 1 {
		t.Fatalf("x's inbox here %+v, %v: want the notice", items, err)
	}
	// Host a's agent x is gone from the floor's roster: a change of the
	// roster starts this host's x, a receiver here again.
	if _, err := e.Store().DB().Exec(`DELETE FROM cluster_roster WHERE name = 'x'`); err != nil {
		t.Fatal(err)
	}
	e.StartYielded(ctx)
	if _, ok := e.Agent("x"); !ok {
		t.Fatal("x not started once no other host has its name")
	}
	if r, err := e.Store().Agent(ctx, "x"); err != nil || r.Elsewhere != "" {
		t.Fatalf("x's record %+v, %v: want run here", r, err)
	}
	// The notice kept for it goes to it now, not at some later kick.
	waitCond(t, 10*time.Second, "the notice kept for x scheduled for it", func() bool {
		items, err := e.Inbox().Items(ctx, "x")
		return err == nil && len(items) == 1 && (items[0].LeaseMsg != 0 || !items[0].Delivered.IsZero())
	})
	if _, err := e.Store().Enqueue(ctx, "x", "hello", queue.EnqueueOptions{}); err != nil {
		t.Fatalf("enqueue to x run here: %v", err)
	}
	// The person can still remove the agent that was not started.
	if err := e.RemoveTeamAgent(context.Background(), "x", ""); err != nil {
		t.Fatalf("team rm of the team agent that was not started: %v", err)
	}
	if err := e.RemoveTeamAgent(context.Background(), "x", ""); !errors.Is(err, queue.ErrUnknownAgent) {
		t.Fatalf("a second team rm of x: %v, want unknown agent", err)
	}
}
