package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/cluster"
	"office/configs"
	"office/engine"
	"office/queue"
)

// `office status` and `office team` only read: on an office without a
// cluster they print no floor, and a paused floor stays paused (they once
// made a call that also set the floor-wide pause, to false).
func TestStatusAndTeamLeaveTheFloorPaused(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	c, err := configs.Load(o.config)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Options{Config: c, StateDir: o.state, HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if r := o.cmd("", "pause", "--all"); r.code != 0 {
		t.Fatalf("pause --all: %+v", r)
	}
	for _, args := range [][]string{{"status"}, {"team"}, {"status", "--json"}, {"team", "--json"}} {
		r := o.cmd("", args...)
		if r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
		if strings.Contains(r.stdout, "floor") || strings.Contains(r.stdout, "HOST") || strings.Contains(r.stdout, `"host`) {
			t.Errorf("%v of an office without a cluster shows a floor:\n%s", args, r.stdout)
		}
	}
	s, err := queue.Open(filepath.Join(o.state, "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if paused, err := s.FloorPaused(context.Background()); err != nil || !paused {
		t.Fatalf("the floor after status and team: paused %v (%v), want still paused", paused, err)
	}
}

// The tables of a clustered office: a HOST column, this host's agents and
// the other hosts', an agent of an unreachable host with its last-known
// status and since when, no queue or inbox depth for another host's agent,
// and the other hosts' own rows.
func TestFloorTables(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	up, down := true, false
	here := engine.Placement{Host: "a", HostReachable: &up}
	gone := engine.Placement{Host: "b", Remote: true, HostReachable: &down, HostLastSeen: now.Add(-42 * time.Second), LastKnown: true}
	live := engine.Placement{Host: "c", Remote: true, HostReachable: &up, HostLastSeen: now.Add(-time.Second)}

	var b bytes.Buffer
	if err := printStatus(&b, []engine.AgentStatus{
		{Name: "alice", Profile: "claude", Status: "idle", Signal: "prompt", Placement: here},
		{Name: "bob", Profile: "codex", Status: "busy", Placement: gone},
		{Name: "dan", Profile: "shell", Status: "idle", Placement: live},
	}, now); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"AGENT  HOST  PROFILE  STATUS                                                    SIGNAL  DRAFT  HELD",
		"alice  a     claude   idle                                                      prompt         ",
		"bob    b     codex    busy (last known; host b unreachable, last seen 42s ago)                 ",
		"dan    c     shell    idle                                                                     ",
	}
	if got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("status table:\n%s\nwant:\n%s", b.String(), strings.Join(want, "\n"))
	}

	b.Reset()
	if err := printTeam(&b, []engine.TeamMember{
		{Name: "alice", Role: "writes", Profile: "claude", Status: "idle", Queue: 2, Inbox: 1, Placement: here},
		{Name: "bob", Role: "reviews", Profile: "codex", Parent: "carol", Status: "busy", Placement: gone},
	}, now); err != nil {
		t.Fatal(err)
	}
	want = []string{
		"NAME   HOST  ROLE     PROFILE  PARENT  STATUS                                                    QUEUE  INBOX",
		"alice  a     writes   claude           idle                                                      2      1",
		"bob    b     reviews  codex    carol   busy (last known; host b unreachable, last seen 42s ago)  -      -",
	}
	if got := strings.TrimSuffix(b.String(), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("team table:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}

	b.Reset()
	if err := printFloorHosts(&b, engine.Floor{Host: "a", Name: "floor", Hosts: []cluster.HostState{
		{Host: "b", LastSeen: now.Add(-42 * time.Second), Outbox: 3},
		{Host: "c", Reachable: true, LastSeen: now.Add(-time.Second)},
		{Host: "d"},
	}, Clashes: []cluster.NameClash{{Agent: "x", Host: "b", Later: "a"}}}, now); err != nil {
		t.Fatal(err)
	}
	want = []string{
		"",
		"floor floor, this host a",
		"HOST  REACHABLE    LAST SEEN  OUTBOX",
		"b     unreachable  42s ago    3",
		"c     reachable    1s ago     0",
		"d     unreachable  never      0",
		"name clash: agent x is on host a and on host b (host a's joined later); names are unique on the floor: remove one (office team rm)",
	}
	if got := strings.TrimSuffix(b.String(), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("hosts table:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// An office without a cluster prints its tables as before: no HOST column.
func TestTablesWithoutCluster(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := printTeam(&b, []engine.TeamMember{{Name: "a1", Profile: "shell", Status: "idle", Queue: 1}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := "NAME  ROLE  PROFILE  PARENT  STATUS  QUEUE  INBOX\na1          shell            idle    1      0\n"
	if b.String() != want {
		t.Errorf("team table:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := printStatus(&b, []engine.AgentStatus{{Name: "a1", Profile: "shell", Status: "idle", Signal: "quiet"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "AGENT  PROFILE  STATUS") || strings.Contains(b.String(), "HOST") {
		t.Errorf("status table:\n%s", b.String())
	}
}

// An exited agent whose restart waits its back-off says in the table that
// it restarts and in how long; one with none pending says its exit code.
func TestStatusTableSaysWhenARestartRuns(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	three := 3
	var b bytes.Buffer
	if err := printStatus(&b, []engine.AgentStatus{
		{Name: "crash", Profile: "shell", Status: "exited", ExitCode: &three, Restart: "on-failure", RestartAt: now.Add(8 * time.Second)},
		{Name: "once", Profile: "shell", Status: "exited", ExitCode: &three, Restart: "never"},
	}, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"exited (3), restarting in 8s", "exited (3) "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status table:\n%s\nwant %q", b.String(), want)
		}
	}
	if strings.Count(b.String(), "restarting") != 1 {
		t.Errorf("status table:\n%s\nwant one restarting agent", b.String())
	}
}
