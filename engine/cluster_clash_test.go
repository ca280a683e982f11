package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"office/cluster"
	"office/configs"
	"office/engine"
	"office/queue"
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	text := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"a0\"\nprofile = \"shell\"\n\n[cluster]\nname = \"floor\"\nhost = \"b\"\nlisten = \"127.0.0.1:%d\"\n", port)
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
	// The person can still remove the agent that was not started.
	if err := e.RemoveTeamAgent(context.Background(), "x", ""); err != nil {
		t.Fatalf("team rm of the team agent that was not started: %v", err)
	}
	if err := e.RemoveTeamAgent(context.Background(), "x", ""); !errors.Is(err, queue.ErrUnknownAgent) {
		t.Fatalf("a second team rm of x: %v, want unknown agent", err)
	}
}
