package cluster

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"office/configs"
	"office/inbox"
	"office/queue"
)

// stallSource is a floor of hosts b and c whose server c has stopped: its
// heartbeat never comes (until released); b answers its heartbeat at once,
// but listing its roster hangs (c led JetStream's cluster layer, which the
// listing needs; no other host leads it yet).
type stallSource struct {
	mu      sync.Mutex
	asked   map[string]int // heartbeats asked, by host
	listed  map[string]int // rosters asked, by host
	release chan struct{}
}

func (s *stallSource) hosts(context.Context) ([]string, error) { return []string{"b", "c"}, nil }

func (s *stallSource) alive(ctx context.Context, host string) error {
	s.mu.Lock()
	s.asked[host]++
	s.mu.Unlock()
	if host == "c" {
		select {
		case <-s.release:
		case <-ctx.Done():
		}
		return errors.New("c does not answer")
	}
	return nil
}

func (s *stallSource) roster(ctx context.Context, host string) ([]Member, error) {
	s.mu.Lock()
	s.listed[host]++
	s.mu.Unlock()
	if host == "b" {
		select {
		case <-s.release:
		case <-ctx.Done():
		}
		return nil, errors.New("no JetStream leader")
	}
	return []Member{{Name: host + "0", Profile: "shell", Status: "idle"}}, nil
}

// bareNode is a node of host a with a store and no NATS: its roster
// source is the test's.
func bareNode(t *testing.T) *Node {
	t.Helper()
	ctx := context.Background()
	store, err := queue.Open(filepath.Join(t.TempDir(), "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := Migrate(ctx, store); err != nil {
		t.Fatal(err)
	}
	svc, err := inbox.Open(ctx, store, inbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return newNode(Options{Cluster: &configs.Cluster{Name: "floor", Host: "a"}, Store: store, Inbox: svc,
		Local: func() []Member { return nil }}, slog.New(slog.DiscardHandler))
}

// leaderlessSource is a floor whose JetStream cluster layer has no leader
// (the host that led it is stopped): b's own server answers its heartbeat,
// but listing its roster (a consumer, made by the leader) fails.
type leaderlessSource struct{}

func (leaderlessSource) hosts(context.Context) ([]string, error) {
	return nil, errors.New("no JetStream leader")
}
func (leaderlessSource) alive(context.Context, string) error { return nil }
func (leaderlessSource) roster(context.Context, string) ([]Member, error) {
	return nil, errors.New("consumer create: no JetStream leader")
}

// TestLeaderlessFloorLeavesHostReachable: a host whose own server answers
// is reachable even while its roster cannot be listed for want of a
// JetStream leader (another host stopped); the failure is its Error.
func TestLeaderlessFloorLeavesHostReachable(t *testing.T) {
	t.Parallel()
	n := bareNode(t)
	n.src = leaderlessSource{}
	n.mu.Lock()
	n.hostLocked("b")
	n.mu.Unlock()
	n.readFloor(context.Background())
	hs := n.Hosts(context.Background())
	if len(hs) != 1 || !hs[0].Reachable || hs[0].Error == "" {
		t.Fatalf("hosts = %+v, want b reachable with the listing's error noted", hs)
	}
}

// TestStalledHostLeavesOthersReachable: with host c stopped (its
// heartbeat hangs) and the listing of b's roster hanging for want of a
// JetStream leader, b's heartbeat is read at every round on a fake clock
// and b stays reachable for longer than Unreachable; a hanging read is not
// started again while it hangs, and c is shown unreachable.
func TestStalledHostLeavesOthersReachable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := bareNode(t)
	src := &stallSource{asked: map[string]int{}, listed: map[string]int{}, release: make(chan struct{})}
	n.src = src
	var (
		clockMu sync.Mutex
		now     = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	)
	n.now = func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	read := make(chan readKey, 64)
	n.afterRead = func(k readKey) { read <- k }
	n.mu.Lock()
	n.hostLocked("b")
	n.hostLocked("c")
	n.mu.Unlock()
	defer func() { close(src.release); cancel(); n.readers.Wait() }()

	rounds := int(2*Unreachable/RosterEvery) + 1 // well past Unreachable
	for i := range rounds {
		returned := make(chan struct{})
		go func() { n.pollFloor(ctx); close(returned) }()
		select {
		case <-returned:
		case <-time.After(OpTimeout):
			t.Fatalf("round %d: pollFloor waits for the stalled host", i)
		}
		// This round's reads end but c's heartbeat and b's roster (each
		// host's heartbeat and roster are read apart).
		for want := map[readKey]bool{{"b", readHeartbeat}: true, {"c", readRoster}: true}; len(want) > 0; {
			select {
			case k := <-read:
				if !want[k] {
					t.Fatalf("round %d: read %v ended, want only %v (c's heartbeat hangs)", i, k, want)
				}
				delete(want, k)
			case <-time.After(OpTimeout):
				t.Fatalf("round %d: reads %v did not end while c's heartbeat hangs", i, want)
			}
		}
		states := map[string]HostState{}
		for _, st := range n.Hosts(ctx) {
			states[st.Host] = st
		}
		if !states["b"].Reachable {
			t.Fatalf("round %d (%s after the first): healthy host b is shown unreachable: %+v", i, time.Duration(i)*RosterEvery, states["b"])
		}
		if states["c"].Reachable {
			t.Fatalf("round %d: stalled host c is shown reachable", i)
		}
		clockMu.Lock()
		now = now.Add(RosterEvery)
		clockMu.Unlock()
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.asked["b"] != rounds || src.asked["c"] != 1 || src.listed["b"] != 1 {
		t.Errorf("heartbeats asked: b %d (want %d, one a round), c %d (want 1: it still hangs); b's roster listed %d times (want 1: it still hangs)",
			src.asked["b"], rounds, src.asked["c"], src.listed["b"])
	}
}
