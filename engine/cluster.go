package engine

// cluster.go joins the engine to its floor when the office file has a
// [cluster] table (package cluster, docs/cluster.md): the node runs with
// the engine, a poke also sends the outbox (wake.go), and the "cluster.floor" call
// tells clients the other hosts and their agents.

import (
	"context"
	"fmt"
	"time"

	"office/cluster"
	"office/queue"
	"office/wire"
)

// ClashCheckWait bounds the roster read at start that checks this host's
// agent names against the floor's (a host that does not answer in time is
// checked by its last-known roster).
const ClashCheckWait = 3 * time.Second

// Floor is wire.Floor (it crosses the client boundary, so wire declares it).
type Floor = wire.Floor

// openCluster starts the node of a clustered office (nothing without a
// [cluster] table) and refuses an agent name another host of the floor has.
func (e *Engine) openCluster() error {
	cfg := e.opts.Config.Cluster
	if cfg == nil || e.inbox == nil {
		return nil
	}
	n, err := cluster.Open(cluster.Options{
		Cluster:  cfg,
		StateDir: e.opts.StateDir,
		Store:    e.store,
		Inbox:    e.inbox.svc,
		Local:    e.floorMembers,
		Received: func() { e.wake(wakeFloor) },
		Approve:  e.approveForFloor,
		// A team agent not run here for another host's agent of its name
		// starts once that agent is gone.
		RosterChanged: e.startYielded,
		Logger:        e.log,
	})
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	e.floor.node = n
	ctx, cancel := context.WithTimeout(context.Background(), ClashCheckWait)
	defer cancel()
	n.Sync(ctx)
	names := make([]string, 0, len(e.opts.Config.Agents))
	for _, a := range e.opts.Config.Agents {
		names = append(names, a.Name)
	}
	if err := n.Clash(context.Background(), names); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	e.serve.ops[wire.OpApprove.Name] = e.approveOnFloor(n, e.serve.ops[wire.OpApprove.Name])
	register(e, wire.OpClusterFloor, func(ctx context.Context, _ Request, _ wire.None) (Floor, error) {
		members, err := cluster.Roster(ctx, e.store)
		if err != nil {
			return Floor{}, err
		}
		return Floor{Host: cfg.Host, Name: cfg.Name, Hosts: n.Hosts(ctx), Members: members, Clashes: n.Clashes()}, nil
	})
	return nil
}

// floorClash is the start-up name check of an agent added with `team add`
// (persisted in the store, started again by the server): an error naming
// both hosts when another host of the floor has name (by the roster read
// when the node opened, or the last-known one); nil without a cluster.
func (e *Engine) floorClash(ctx context.Context, name string) error {
	if !e.floor.on() {
		return nil
	}
	if err := e.floor.node.Clash(ctx, []string{name}); err != nil {
		return fmt.Errorf("engine: %w; it is not started here while the other host has that name", err)
	}
	return nil
}

// yieldName records that team agent r is not run here because another host
// of the floor has its name (clash, from floorClash): the name is no local
// receiver while that lasts, so a send to it goes to that host
// (queue.Store.SetElsewhere). It is logged at start, and on a retry
// (retry: the floor's roster changed) only when the host changed.
func (e *Engine) yieldName(ctx context.Context, r queue.AgentRecord, clash error, retry bool) {
	host, err := e.floorOwner(ctx, r.Name)
	if err != nil || host == "" {
		e.log.Error("team agent not started", "agent", r.Name, "err", clash, "owner_err", err)
		return
	}
	if retry && r.Elsewhere == host {
		return
	}
	e.log.Error("team agent not started: sends to its name go to the other host", "agent", r.Name, "host", host, "err", clash)
	if r.Elsewhere == host {
		return
	}
	if err := e.store.SetElsewhere(ctx, r.Name, host); err != nil {
		e.log.Error("recording a team agent not run here", "agent", r.Name, "err", err)
	}
}

// floorMembers is this host's roster as the floor sees it.
func (e *Engine) floorMembers() []cluster.Member {
	st := map[string]string{}
	for _, s := range e.Status() {
		st[s.Name] = s.Status
	}
	// When each joined (its name registered here) orders a name clash.
	since := map[string]time.Time{}
	ctx, cancel := context.WithTimeout(context.Background(), cluster.OpTimeout)
	defer cancel()
	if recs, err := e.store.ListAgents(ctx); err == nil {
		for _, r := range recs {
			since[r.Name] = r.Added
		}
	}
	var out []cluster.Member
	for _, a := range e.Agents() {
		out = append(out, cluster.Member{Name: a.Config.Name, Profile: a.Profile.Name, Role: a.Config.Role,
			Parent: a.Config.Parent, Status: st[a.Config.Name], Since: since[a.Config.Name]})
	}
	return out
}

// floor is the engine's link to its floor: the cluster node, nil without
// a [cluster] table (set once by openCluster, before anything reads it).
// Its methods do nothing without a node.
type floor struct{ node *cluster.Node }

// on reports whether the office is on a floor.
func (f floor) on() bool { return f.node != nil }

// wake makes the node send its outbox now (wake.go).
func (f floor) wake() {
	if f.node != nil {
		f.node.Wake()
	}
}

// run runs the node until ctx ends.
func (f floor) run(ctx context.Context) {
	if f.node != nil {
		f.node.Run(ctx)
	}
}

// close stops the node (items not yet acknowledged stay in the outbox).
func (f floor) close() {
	if f.node != nil {
		f.node.Close()
	}
}
