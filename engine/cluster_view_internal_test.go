package engine

import (
	"testing"
	"time"

	"office/cluster"
)

// Each agent of another host is placed by what the node knows of its host
// now: reachable with its last read, or unreachable with its status marked
// last known and, when the node has not read that host since it started,
// the time the store last took a change of it.
func TestPlaceRemote(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	hosts := []cluster.HostState{
		{Host: "b", Reachable: true, LastSeen: t0},
		{Host: "c", Reachable: false, LastSeen: t0.Add(-time.Minute)},
		{Host: "d"}, // not read since this server started
	}
	members := []cluster.Member{
		{Name: "bob", Host: "b", Status: "busy", Seen: t0.Add(-time.Hour)},
		{Name: "cat", Host: "c", Status: "idle", Seen: t0.Add(-2 * time.Minute)},
		{Name: "dan", Host: "d", Status: "idle", Seen: t0.Add(-3 * time.Hour)},
		{Name: "dora", Host: "d", Status: "waiting", Seen: t0.Add(-2 * time.Hour)},
		{Name: "eve", Host: "e", Status: "idle", Seen: t0.Add(-5 * time.Hour)}, // a host the node does not list
		{Name: "me", Host: "a", Status: "idle", Seen: t0},                      // this host: not remote
	}
	got := placeRemote("a", hosts, members)
	type want struct {
		name, host string
		reachable  bool
		seen       time.Time
	}
	wants := []want{
		{"bob", "b", true, t0},
		{"cat", "c", false, t0.Add(-time.Minute)},
		{"dan", "d", false, t0.Add(-2 * time.Hour)},
		{"dora", "d", false, t0.Add(-2 * time.Hour)},
		{"eve", "e", false, t0.Add(-5 * time.Hour)},
	}
	if len(got) != len(wants) {
		t.Fatalf("placed %d agents, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		g := got[i]
		p := g.place
		if g.m.Name != w.name || p.Host != w.host || !p.Remote || p.HostReachable == nil || *p.HostReachable != w.reachable ||
			p.LastKnown == w.reachable || !p.HostLastSeen.Equal(w.seen) || g.m.Status != members[i].Status {
			t.Errorf("agent %d: %+v %+v, want %+v", i, g.m, p, w)
		}
	}
}
