package engine

// cluster_view.go puts the agents of the other hosts of a floor into the
// roster calls ("status", "team") and refuses a `team add` of a name another
// host has: each row says its host, whether that host answers now, when it
// was last seen and whether its status is only the last one known
// (README "Status and team as JSON", docs/cluster.md).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"office/cluster"
	"office/wire"
)

// Placement is wire.Placement (it crosses the client boundary, so wire declares it).
type Placement = wire.Placement

// remoteAgent is one agent of another host as the roster calls show it.
type remoteAgent struct {
	m     cluster.Member
	place Placement
}

// localPlacement is the placement of this host's own agents (the zero
// Placement without a cluster).
func (e *Engine) localPlacement() Placement {
	if !e.floor.on() {
		return Placement{}
	}
	return Placement{Host: e.floor.node.Host(), HostReachable: new(true)}
}

// remoteAgents returns the agents of the other hosts by the last-known
// roster, by host and name (nil without a cluster). Its errors are the
// cluster package's, for the caller to wrap.
func (e *Engine) remoteAgents(ctx context.Context) ([]remoteAgent, error) {
	if !e.floor.on() {
		return nil, nil
	}
	members, err := cluster.Roster(ctx, e.store)
	if err != nil {
		return nil, err
	}
	return placeRemote(e.floor.node.Host(), e.floor.node.Hosts(ctx), members), nil
}

// placeRemote joins the last-known members of the other hosts with what
// this host (self) knows of their hosts now. A member of a host the node
// does not list counts as of an unreachable host.
func placeRemote(self string, hosts []cluster.HostState, members []cluster.Member) []remoteAgent {
	state := make(map[string]cluster.HostState, len(hosts))
	for _, h := range hosts {
		state[h.Host] = h
	}
	stored := map[string]time.Time{}
	for _, m := range members {
		if m.Seen.After(stored[m.Host]) {
			stored[m.Host] = m.Seen
		}
	}
	out := make([]remoteAgent, 0, len(members))
	for _, m := range members {
		if m.Host == self {
			continue
		}
		h := state[m.Host]
		seen := h.LastSeen
		if seen.IsZero() {
			seen = stored[m.Host]
		}
		p := Placement{Host: m.Host, Remote: true, HostReachable: new(h.Reachable), HostLastSeen: seen, LastKnown: !h.Reachable}
		out = append(out, remoteAgent{m: m, place: p})
	}
	return out
}

// FloorStatus is Status with, in a clustered office, every row placed and
// the other hosts' agents after this host's (their status as their host
// last published it; no signal, draft or hold: those live on their host).
func (e *Engine) FloorStatus(ctx context.Context) ([]AgentStatus, error) {
	out := e.Status()
	local := e.localPlacement()
	for i := range out {
		out[i].Placement = local
	}
	remote, err := e.remoteAgents(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: status: %w", err)
	}
	for _, r := range remote {
		m := r.m
		out = append(out, AgentStatus{Name: m.Name, Profile: m.Profile, Role: m.Role, Parent: m.Parent, Status: m.Status, Placement: r.place})
	}
	return out, nil
}

// floorOwner returns the other host of the floor that has (or last had,
// by the last-known roster) an agent called name, or "" (always "" without
// a cluster).
func (e *Engine) floorOwner(ctx context.Context, name string) (string, error) {
	if !e.floor.on() {
		return "", nil
	}
	m, err := cluster.Lookup(ctx, e.store, name)
	if errors.Is(err, cluster.ErrNotOnFloor) || (err == nil && m.Host == e.floor.node.Host()) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return m.Host, nil
}
