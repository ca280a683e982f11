package cluster_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"office/cluster"
	"office/configs"
	"office/inbox"
	"office/queue"
	"office/test/testcerts"
	"office/test/testports"
)

// host is one host of a test floor: its own state dir and store.
type host struct {
	name   string
	dir    string
	cfg    *configs.Cluster
	store  *queue.Store
	svc    *inbox.Service
	agents []string
	// approve answers approvals from other hosts (the engine's part in
	// an office server); nil refuses them.
	approve cluster.ApproveFunc
	// since is when its agents joined (zero: unknown).
	since  time.Time
	node   *cluster.Node
	cancel context.CancelFunc
	done   chan struct{}
}

// floor makes hosts named after names with agents; ports are free ports on
// 127.0.0.1, every host routes to every other, over mutual TLS.
func floor(t testing.TB, agents map[string][]string, names ...string) []*host {
	t.Helper()
	ports := map[string]int{}
	for _, n := range names {
		ports[n] = testports.Port(t)
	}
	ca := testcerts.New(t, "floor")
	var out []*host
	for _, n := range names {
		h := &host{name: n, dir: t.TempDir(), agents: agents[n]}
		cert, key := ca.Host(t, n)
		h.cfg = &configs.Cluster{Name: "floor", Host: n, Listen: "127.0.0.1:" + strconv.Itoa(ports[n]),
			TLSCert: cert, TLSKey: key, TLSCA: ca.CA}
		for _, p := range names {
			if p != n {
				h.cfg.Peers = append(h.cfg.Peers, "127.0.0.1:"+strconv.Itoa(ports[p]))
			}
		}
		out = append(out, h)
	}
	return out
}

// start opens h's store and node and runs it.
func (h *host) start(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	if h.store == nil {
		s, err := queue.Open(filepath.Join(h.dir, "office.db"), queue.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := s.EnsureAgents(ctx, h.agents); err != nil {
			t.Fatal(err)
		}
		svc, err := inbox.Open(ctx, s, inbox.Options{})
		if err != nil {
			t.Fatal(err)
		}
		h.store, h.svc = s, svc
	}
	n, err := cluster.Open(cluster.Options{Cluster: h.cfg, StateDir: h.dir, Store: h.store, Inbox: h.svc, Approve: h.approve,
		Local: func() []cluster.Member {
			var ms []cluster.Member
			for _, a := range h.agents {
				ms = append(ms, cluster.Member{Name: a, Profile: "shell", Status: "idle", Since: h.since})
			}
			return ms
		}})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	h.node, h.cancel, h.done = n, cancel, make(chan struct{})
	go func() { defer close(h.done); n.Run(rctx) }()
	t.Cleanup(h.stop)
}

// stop ends h's node (its store stays open).
func (h *host) stop() {
	if h.node == nil {
		return
	}
	h.cancel()
	<-h.done
	h.node.Close()
	h.node = nil
}

// eventually polls cond (a state on another host, which no local event
// announces) until it holds or d passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	end := time.Now().Add(d)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stash puts n items of kind for to (on host toHost) into h's outbox.
func (h *host) stash(t testing.TB, kind, from, to, toHost string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		err := h.store.Update(context.Background(), func(tx *queue.Tx) error {
			id, err := cluster.StashTx(tx, cluster.Item{Kind: kind, From: from, FromHost: h.name, To: to, ToHost: toHost,
				Text: fmt.Sprintf("%s %d", kind, i), Title: fmt.Sprintf("t%d", i)})
			ids = append(ids, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if h.node != nil {
		h.node.Wake()
	}
	return ids
}

func countQueue(h *host, agent string) (int, error) {
	ms, err := h.store.List(context.Background(), agent)
	return len(ms), err
}

func countMail(h *host, agent string) (int, error) {
	ms, err := h.svc.ListMail(context.Background(), "")
	n := 0
	for _, m := range ms {
		if m.Receiver == agent {
			n++
		}
	}
	return n, err
}

func TestFloorRosterAndExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers (about 5 s): not under -short")
	}
	hs := floor(t, map[string][]string{"a": {"alice"}, "b": {"bob", "b.two"}}, "a", "b")
	a, b := hs[0], hs[1]
	a.start(t)
	b.start(t)
	eventually(t, 20*time.Second, "a knows b's agents", func() (bool, error) {
		m, err := cluster.Lookup(context.Background(), a.store, "b.two")
		return err == nil && m.Host == "b", nil
	})
	if _, err := cluster.Lookup(context.Background(), a.store, "nobody"); err == nil {
		t.Fatal("a name no host has was found")
	}
	a.stash(t, cluster.KindSend, "alice", "bob", "b", 1)
	a.stash(t, cluster.KindMail, "alice", "b.two", "b", 30)
	eventually(t, 20*time.Second, "items reach b", func() (bool, error) {
		q, err := countQueue(b, "bob")
		if err != nil {
			return false, err
		}
		m, err := countMail(b, "b.two")
		return q == 1 && m == 30, err
	})
	p, err := cluster.Pending(context.Background(), a.store)
	if err != nil || p["b"] != 0 {
		t.Fatalf("a's outbox after the acks: %v, %v", p, err)
	}

	// b goes away: items wait in a's outbox and arrive once when it is back.
	b.stop()
	a.stash(t, cluster.KindSend, "alice", "bob", "b", 5)
	eventually(t, 20*time.Second, "a sees b unreachable", func() (bool, error) {
		for _, st := range a.node.Hosts(context.Background()) {
			if st.Host == "b" {
				return !st.Reachable && st.Outbox == 5, nil
			}
		}
		return false, nil
	})
	b.start(t)
	eventually(t, 30*time.Second, "the waiting items reach b", func() (bool, error) {
		q, err := countQueue(b, "bob")
		return q == 6, err
	})
	// A redelivery (the same ULID again) stores nothing.
	ids := a.stash(t, cluster.KindMail, "alice", "b.two", "b", 1)
	eventually(t, 20*time.Second, "the last mail reaches b", func() (bool, error) {
		m, err := countMail(b, "b.two")
		return m == 31, err
	})
	stored, err := b.node.Apply(context.Background(), cluster.Item{ID: ids[0], Kind: cluster.KindMail, From: "alice", FromHost: "a", To: "b.two", ToHost: "b", Text: "again", Title: "again"})
	if err != nil || stored {
		t.Fatalf("a second Apply of %s: stored %v, err %v", ids[0], stored, err)
	}
	if m, _ := countMail(b, "b.two"); m != 31 {
		t.Fatalf("b.two has %d mails, want 31", m)
	}
}

func TestFloorNameClash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers: not under -short")
	}
	hs := floor(t, map[string][]string{"a": {"x"}, "b": {"x"}}, "a", "b")
	a, b := hs[0], hs[1]
	a.start(t)
	b.start(t)
	eventually(t, 20*time.Second, "b sees a's roster", func() (bool, error) {
		return b.node.Clash(context.Background(), []string{"x"}) != nil, nil
	})
	err := b.node.Clash(context.Background(), []string{"x"})
	if got := err.Error(); got != `cluster: agent "x" is on host a and on host b: agent names are unique on the floor "floor"` {
		t.Fatalf("clash error = %q", got)
	}
}

// sendRequest does what `office mail send --request` on h does for an agent
// of another host: the item in the outbox and h's own envelope, one ULID.
func (h *host) sendRequest(t testing.TB, from, to, toHost, title string) string {
	t.Helper()
	var id string
	err := h.store.Update(context.Background(), func(tx *queue.Tx) error {
		var err error
		id, err = cluster.StashTx(tx, cluster.Item{Kind: cluster.KindMail, From: from, FromHost: h.name, To: to, ToHost: toHost,
			Text: "please " + title, Title: title, Request: true})
		if err != nil {
			return err
		}
		_, err = h.svc.SendMailTx(tx, inbox.MailRequestArgs{ID: id, Remote: true, From: from, To: to, Title: title, Text: "please " + title, Request: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	h.node.Wake()
	return id
}

// deliver types h's pending items for agent (lease, then ack, as the drain
// does), moving their mail claimed, then working.
func (h *host) deliver(t testing.TB, agent string, msgID int64) {
	t.Helper()
	err := h.store.Update(context.Background(), func(tx *queue.Tx) error {
		if _, _, err := h.svc.LeaseTx(tx, msgID, agent); err != nil {
			return err
		}
		_, err := h.svc.AckTx(tx, msgID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mailState(h *host, id string) (inbox.MailState, string, error) {
	m, _, err := h.svc.GetMail(context.Background(), id)
	return m.State, m.Reason, err
}

// TestFloorRequestStateLivesWithSender: a request from a to an agent of b is
// one ULID on both hosts; b's states cross back, a reply made on b reaches
// the sender on a, and a's envelope ends done (answered) or
// failed(no_reply_found) (not answered), with the sender told.
func TestFloorRequestStateLivesWithSender(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers (about 5 s): not under -short")
	}
	ctx := context.Background()
	hs := floor(t, map[string][]string{"a": {"alice"}, "b": {"bob"}}, "a", "b")
	a, b := hs[0], hs[1]
	a.start(t)
	b.start(t)
	eventually(t, 20*time.Second, "a knows bob", func() (bool, error) {
		_, err := cluster.Lookup(ctx, a.store, "bob")
		return err == nil, nil
	})

	answered := a.sendRequest(t, "alice", "bob", "b", "answered")
	if st, _, err := mailState(a, answered); err != nil || st != inbox.MailQueued {
		t.Fatalf("a's envelope of the request: %s, %v", st, err)
	}
	eventually(t, 20*time.Second, "the request reaches b under its ULID", func() (bool, error) {
		st, _, err := mailState(b, answered)
		return err == nil && st == inbox.MailQueued, nil
	})
	b.deliver(t, "bob", 1)
	eventually(t, 20*time.Second, "working crosses back to a", func() (bool, error) {
		st, _, err := mailState(a, answered)
		return st == inbox.MailWorking, err
	})
	origin, ok, err := cluster.Origin(ctx, b.store, answered)
	if err != nil || !ok || origin != "a" {
		t.Fatalf("origin of the request on b: %q %v %v", origin, ok, err)
	}
	orig, _, err := b.svc.GetMail(ctx, answered)
	if err != nil {
		t.Fatal(err)
	}
	var rid string
	err = b.store.Update(ctx, func(tx *queue.Tx) error {
		if _, err := cluster.ReplyTx(tx, b.svc, "b", origin, "mallory", orig, "no"); err == nil {
			t.Error("a reply from someone the request was not sent to was taken")
		}
		var err error
		rid, err = cluster.ReplyTx(tx, b.svc, "b", origin, "bob", orig, "here it is")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	b.node.Wake()
	if _, err := b.svc.TurnEnded(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := mailState(b, answered); st != inbox.MailDone {
		t.Fatalf("the request on b is %s, want done (its reply gate sees the reply)", st)
	}
	eventually(t, 20*time.Second, "done crosses back to a, and the reply reaches alice", func() (bool, error) {
		st, _, err := mailState(a, answered)
		if err != nil || st != inbox.MailDone {
			return false, err
		}
		r, _, err := a.svc.GetMail(ctx, rid)
		if err != nil {
			return false, nil
		}
		if r.Receiver != "alice" || r.InReplyTo != answered || r.Sender != "bob" {
			t.Fatalf("the reply on a: %+v", r)
		}
		return true, nil
	})
	items, err := a.svc.Items(ctx, "alice")
	if err != nil || len(items) != 1 || items[0].ID != rid {
		t.Fatalf("alice's items on a: %+v, %v (want the reply once)", items, err)
	}

	silent := a.sendRequest(t, "alice", "bob", "b", "silent")
	eventually(t, 20*time.Second, "the second request reaches b", func() (bool, error) {
		_, _, err := mailState(b, silent)
		return err == nil, nil
	})
	b.deliver(t, "bob", 2)
	if _, err := b.svc.TurnEnded(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "failed(no_reply_found) crosses back to a", func() (bool, error) {
		st, reason, err := mailState(a, silent)
		return st == inbox.MailFailed && reason == inbox.ReasonNoReply, err
	})
	items, err = a.svc.Items(ctx, "alice")
	if err != nil || len(items) != 2 || items[1].Kind != inbox.KindNotification {
		t.Fatalf("alice's items on a: %+v, %v (want the reply and the failure notice)", items, err)
	}
}

// TestFloorReplyWaitsForSenderHost: the sender's host is down while the
// request is answered on b: the reply and the state changes wait in b's
// outbox and, when a is back, arrive once and in order (a ends done, with
// the reply for alice once).
func TestFloorReplyWaitsForSenderHost(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers and restarts one (about 10 s): not under -short")
	}
	ctx := context.Background()
	hs := floor(t, map[string][]string{"a": {"alice"}, "b": {"bob"}}, "a", "b")
	a, b := hs[0], hs[1]
	a.start(t)
	b.start(t)
	eventually(t, 20*time.Second, "a knows bob", func() (bool, error) {
		_, err := cluster.Lookup(ctx, a.store, "bob")
		return err == nil, nil
	})
	id := a.sendRequest(t, "alice", "bob", "b", "while away")
	eventually(t, 20*time.Second, "the request reaches b", func() (bool, error) {
		_, _, err := mailState(b, id)
		return err == nil, nil
	})
	a.stop()
	b.deliver(t, "bob", 1)
	orig, _, err := b.svc.GetMail(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var rid string
	err = b.store.Update(ctx, func(tx *queue.Tx) error {
		var err error
		rid, err = cluster.ReplyTx(tx, b.svc, "b", "a", "bob", orig, "done while you were away")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.TurnEnded(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	// claimed, working, the reply, done: all wait for a.
	eventually(t, 20*time.Second, "b sees a unreachable with 4 items waiting", func() (bool, error) {
		for _, st := range b.node.Hosts(ctx) {
			if st.Host == "a" {
				return !st.Reachable && st.Outbox == 4, nil
			}
		}
		return false, nil
	})
	if st, _, _ := mailState(a, id); st != inbox.MailQueued {
		t.Fatalf("a's envelope while a was down: %s, want queued", st)
	}
	a.start(t)
	eventually(t, 30*time.Second, "done and the reply reach a", func() (bool, error) {
		st, _, err := mailState(a, id)
		if err != nil || st != inbox.MailDone {
			return false, err
		}
		_, _, err = a.svc.GetMail(ctx, rid)
		return err == nil, nil
	})
	items, err := a.svc.Items(ctx, "alice")
	if err != nil || len(items) != 1 || items[0].ID != rid {
		t.Fatalf("alice's items on a: %+v, %v (want the reply once)", items, err)
	}
	_, tl, err := a.svc.GetMail(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, e := range tl {
		states = append(states, string(e.State))
	}
	if got := strings.Join(states, ","); !strings.HasPrefix(got, "queued,claimed,working") || !strings.HasSuffix(got, "done") {
		t.Fatalf("a's timeline of the request: %s", got)
	}
}

// TestFloorNameClashSeenByBoth: two hosts that run one name (two `team add`
// at one moment) both see the clash when their rosters meet, and both name
// the same host as the later one: by when the agents joined, or, with that
// unknown, by host name.
func TestFloorNameClashSeenByBoth(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clustered NATS servers: not under -short")
	}
	hs := floor(t, map[string][]string{"a": {"x", "y"}, "b": {"x", "z"}}, "a", "b")
	a, b := hs[0], hs[1]
	now := time.Now()
	a.since, b.since = now, now.Add(-time.Hour) // b's x joined first
	a.start(t)
	b.start(t)
	eventually(t, 20*time.Second, "both hosts see the clash", func() (bool, error) {
		return len(a.node.Clashes()) == 1 && len(b.node.Clashes()) == 1, nil
	})
	if got := a.node.Clashes()[0]; got != (cluster.NameClash{Agent: "x", Host: "b", Later: "a"}) {
		t.Fatalf("a's clash: %+v, want x with b, a's the later", got)
	}
	if got := b.node.Clashes()[0]; got != (cluster.NameClash{Agent: "x", Host: "a", Later: "a"}) {
		t.Fatalf("b's clash: %+v, want x with a, a's the later", got)
	}

	// a leaves the name: the clash ends on both.
	a.stop()
	a.agents = []string{"y"}
	a.since = time.Time{}
	a.start(t)
	eventually(t, 20*time.Second, "the clash ended on both hosts", func() (bool, error) {
		return len(a.node.Clashes()) == 0 && len(b.node.Clashes()) == 0, nil
	})
}
