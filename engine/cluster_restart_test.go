package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"office/cluster"
	"office/configs"
	"office/engine"
	"office/queue"
)

// natsSystem starts a real NATS server with JetStream for a floor whose
// hosts join it with url (an existing NATS system): a host's restart does
// not take the floor's JetStream down, so its node publishes at once.
func natsSystem(t *testing.T) string {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	t.Cleanup(ns.Shutdown)
	return ns.ClientURL()
}

// floorHost is one office server of a test floor joined through url.
type floorHost struct {
	t     *testing.T
	cc    *configs.Config
	state string
	e     *engine.Engine
	stop  func()
}

func newFloorHost(t *testing.T, url, host string) *floorHost {
	t.Helper()
	dir := t.TempDir()
	text := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"%s0\"\nprofile = \"shell\"\n\n[cluster]\nname = \"floor\"\nhost = %q\nurl = %q\n", host, host, url)
	cc, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return &floorHost{t: t, cc: cc, state: filepath.Join(dir, "state")}
}

// run opens and runs the host's engine (stopped at the test's end).
func (h *floorHost) run() {
	h.t.Helper()
	e, err := engine.Open(engine.Options{Config: h.cc, StateDir: h.state, HostEnv: hostEnv()})
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.Run(ctx) }()
	h.e = e
	h.stop = func() { cancel(); e.Close(); <-done; h.e = nil }
	h.t.Cleanup(func() {
		if h.e != nil {
			h.stop()
		}
	})
}

// lastSeen is when this host last read host's roster (by its rows of
// host's agents).
func (h *floorHost) lastSeen(host string) time.Time {
	st, err := h.e.FloorStatus(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	for _, s := range st {
		if s.Host == host && s.Remote {
			return s.HostLastSeen
		}
	}
	return time.Time{}
}

// A host that restarts keeps the names of its team agents: the other host,
// which does not start its own agents of those names while this host has
// them, never sees them gone from this host's roster (this host's first
// roster after the restart has its team agents), so it starts none of
// them and the names stay with this host's agents and their conversations.
func TestRestartedHostKeepsItsTeamAgentNames(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two clustered offices and restarts one (about 15 s): not under -short")
	}
	t.Parallel()
	url := natsSystem(t)
	a, b := newFloorHost(t, url, "a"), newFloorHost(t, url, "b")
	ctx := context.Background()
	names := []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}
	a.run()
	for _, n := range names {
		if _, err := a.e.AddTeamAgent(ctx, engine.TeamSpec{Name: n, Profile: "shell"}); err != nil {
			t.Fatal(err)
		}
	}
	// b's team agents of those names (added while the hosts had not met)
	// are not started there: a has the names.
	b.run()
	waitCond(t, 20*time.Second, "b read a's team agents", func() bool {
		m, err := cluster.Lookup(ctx, b.e.Store(), names[len(names)-1])
		return err == nil && m.Host == "a"
	})
	b.stop()
	s, err := queue.Open(filepath.Join(b.state, "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		spec, _ := json.Marshal(engine.TeamSpec{Name: n, Profile: "shell"})
		if err := s.AddAgent(ctx, queue.AgentRecord{Name: n, Spec: string(spec)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	b.run()
	for _, n := range names {
		waitCond(t, 20*time.Second, n+" recorded on b as run on host a", func() bool {
			r, err := b.e.Store().Agent(ctx, n)
			return err == nil && r.Elsewhere == "a"
		})
	}

	a.stop()
	a.run()
	waitCond(t, 20*time.Second, "a's team agents started again", func() bool {
		for _, n := range names {
			if _, ok := a.e.Agent(n); !ok {
				return false
			}
		}
		return true
	})
	// b has read a's roster a few times since: every roster a published
	// after its restart.
	since := time.Now().Add(3 * cluster.RosterEvery)
	waitCond(t, 30*time.Second, "b read a's roster after its restart", func() bool { return b.lastSeen("a").After(since) })
	for _, n := range names {
		if _, ok := b.e.Agent(n); ok {
			t.Errorf("b started its %s while a runs it (a's roster was read without it)", n)
		}
		if r, err := b.e.Store().Agent(ctx, n); err != nil || r.Elsewhere != "a" {
			t.Errorf("b's record of %s: %+v, %v; want run on host a", n, r, err)
		}
		if _, ok := a.e.Agent(n); !ok {
			t.Errorf("a's %s not running: the name moved to b", n)
		}
		if r, err := a.e.Store().Agent(ctx, n); err != nil || r.Elsewhere != "" {
			t.Errorf("a's record of %s: %+v, %v; want run here", n, r, err)
		}
	}
}

// A team agent removed (`office team rm`) after its record was listed for
// a start (the floor's roster changed as the person removed it) is not
// started from that listing: the record is read again, and one removed
// starts nothing, whether it was run here or recorded as run elsewhere.
func TestRemovedTeamAgentNotStartedFromAnOlderListing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := open(t, shellConfig(t, dir), filepath.Join(dir, "state"))
	ctx := context.Background()
	for _, elsewhere := range []string{"", "a"} {
		name := "x" + elsewhere
		if _, err := e.AddTeamAgent(ctx, engine.TeamSpec{Name: name, Profile: "shell"}); err != nil {
			t.Fatal(err)
		}
		listed, err := e.Store().Agent(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		listed.Elsewhere = elsewhere
		if err := e.RemoveTeamAgent(ctx, name, ""); err != nil {
			t.Fatal(err)
		}
		e.StartRecord(ctx, listed)
		if _, ok := e.Agent(name); ok {
			t.Errorf("%s (listed as run elsewhere %q) started after team rm removed it", name, elsewhere)
		}
		if r, err := e.Store().Agent(ctx, name); err != nil || !r.Removed {
			t.Errorf("%s's record %+v, %v: want removed", name, r, err)
		}
	}
}
