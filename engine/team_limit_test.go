package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"office/configs"
	"office/engine"
)

// `team add` past the most agents an office runs is refused as bad input,
// naming the bound, and adds nothing (no pane, no record): after a remove
// the place is free again.
func TestTeamAddPastMaxAgentsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cc, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte("brief = false\n\n[[agent]]\nname = \"a0\"\ncommand = [\"sleep\", \"600\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Options{Config: cc, StateDir: filepath.Join(dir, "state"), HostEnv: hostEnv()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.Run(ctx) }()
	t.Cleanup(func() { cancel(); e.Close(); <-done })
	e.SetMaxAgents(2)

	spec := func(name string) engine.TeamSpec {
		return engine.TeamSpec{Name: name, Command: []string{"sleep", "600"}}
	}
	if _, err := e.AddTeamAgent(ctx, spec("a1")); err != nil {
		t.Fatal(err)
	}
	_, err = e.AddTeamAgent(ctx, spec("a2"))
	if !errors.Is(err, engine.ErrBadInput) || !strings.Contains(err.Error(), "already runs 2 agents") {
		t.Fatalf("third agent of 2 at most: %v, want bad input naming the bound", err)
	}
	if _, ok := e.Agent("a2"); ok {
		t.Error("the refused agent was added to the roster")
	}
	team, err := e.Team(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(team) != 2 {
		t.Errorf("team after the refusal: %d members, want 2", len(team))
	}
	if err := e.RemoveTeamAgent(ctx, "a1", "person"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddTeamAgent(ctx, spec("a2")); err != nil {
		t.Errorf("after a remove: %v", err)
	}
}
