package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/configs"
	"office/engine"
)

// runOneSleeper runs an engine of one config agent, a0 (sleep 600), until
// the test ends; ctx ends with it.
func runOneSleeper(t *testing.T) (*engine.Engine, context.Context) {
	t.Helper()
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
	return e, ctx
}

// `team add` past the most agents an office runs is refused as bad input,
// naming the bound, and adds nothing (no pane, no record): after a remove
// the place is free again.
func TestTeamAddPastMaxAgentsRefused(t *testing.T) {
	t.Parallel()
	e, ctx := runOneSleeper(t)
	e.SetMaxAgents(2)

	spec := func(name string) engine.TeamSpec {
		return engine.TeamSpec{Name: name, Command: []string{"sleep", "600"}}
	}
	if _, err := e.AddTeamAgent(ctx, spec("a1")); err != nil {
		t.Fatal(err)
	}
	_, err := e.AddTeamAgent(ctx, spec("a2"))
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

// Team agents recorded past the most agents an office runs (the office
// file grew since they were added) are not started on restart: the
// roster stays at the bound and the person's inbox names the ones left out,
// once a run.
func TestRestartStartsNoTeamAgentPastMaxAgents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	agent := func(n string) string { return "[[agent]]\nname = \"" + n + "\"\ncommand = [\"sleep\", \"600\"]\n" }
	open := func(body string) (*engine.Engine, context.Context, func()) {
		cc, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte("brief = false\n\n"+body))
		if err != nil {
			t.Fatal(err)
		}
		e, err := engine.Open(engine.Options{Config: cc, StateDir: state, HostEnv: hostEnv()})
		if err != nil {
			t.Fatal(err)
		}
		e.SetMaxAgents(3)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); e.Run(ctx) }()
		return e, ctx, func() { cancel(); e.Close(); <-done }
	}
	e, ctx, stop := open(agent("a0"))
	for _, n := range []string{"t1", "t2"} {
		if _, err := e.AddTeamAgent(ctx, engine.TeamSpec{Name: n, Command: []string{"sleep", "600"}}); err != nil {
			t.Fatal(err)
		}
	}
	stop()

	e, ctx, stop = open(agent("a0") + agent("a1"))
	defer stop()
	waitCond(t, 20*time.Second, "a notice to the person", func() bool {
		items, _ := e.PersonNotices(ctx)
		return len(items) > 0
	})
	if n := len(e.Agents()); n != 3 {
		t.Errorf("restart with 2 file agents and 2 recorded, at most 3: runs %d", n)
	}
	if _, ok := e.Agent("t2"); ok {
		t.Error("t2 (past the bound) was started")
	}
	items, err := e.PersonNotices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || !strings.Contains(items[0].Body, "1 team agent(s) were not started") || !strings.Contains(items[0].Body, ": t2.") {
		t.Errorf("person's notices: %+v, want one naming t2", items)
	}
	// Started again in this run (as when the floor's roster changes): t2
	// is still left out, and not said twice.
	e.StartTeamAgents(ctx)
	if items, err := e.PersonNotices(ctx); err != nil || len(items) != 1 {
		t.Errorf("after another start from the records: %d notices (%v), want still 1", len(items), err)
	}
	if _, ok := e.Agent("t2"); ok {
		t.Error("t2 (past the bound) was started by the second start")
	}
}

// `team rm` waits for the team lock only as long as its context lets it
// (a start from 500 records may hold it long), changing nothing then; once
// the lock is free it removes the agent (and does not deadlock).
func TestTeamRmHonoursItsContext(t *testing.T) {
	t.Parallel()
	e, ctx := runOneSleeper(t)
	if _, err := e.AddTeamAgent(ctx, engine.TeamSpec{Name: "t1", Command: []string{"sleep", "600"}}); err != nil {
		t.Fatal(err)
	}
	release := e.HoldTeamLock()
	short, cancelShort := context.WithCancel(ctx)
	cancelShort()
	if err := e.RemoveTeamAgent(short, "t1", ""); !errors.Is(err, context.Canceled) {
		t.Errorf("team rm while the lock is held, its context ended: %v, want context.Canceled", err)
	}
	if _, ok := e.Agent("t1"); !ok {
		t.Error("the refused team rm removed t1 anyway")
	}
	release()
	if err := e.RemoveTeamAgent(ctx, "t1", ""); err != nil {
		t.Fatalf("team rm: %v", err)
	}
	if _, ok := e.Agent("t1"); ok {
		t.Error("t1 still runs after team rm")
	}
}
