package cluster

// node.go is one host's part of the floor, run by its office server: it
// publishes this host's roster, reads the other hosts' rosters into the
// store, sends the outbox and takes in what other hosts sent here.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"office/configs"
	"office/inbox"
	"office/queue"
	"office/wire"
)

// Timings and bounds of a node. The liveness timings (RosterEvery,
// Unreachable, OutboxEvery, FetchWait, AckWait, OpTimeout, and the
// connection's in server.go) are constants of the build, not settings of an
// office file: every host of a floor must agree on them, since one host's
// Unreachable is counted in the other hosts' RosterEvery (docs/cluster.md,
// "Each host is judged on its own"); TestLivenessTimings holds their
// relations.
const (
	// RosterEvery is how often a node publishes its roster and heartbeat
	// and reads the other hosts': the delay before a person sees another
	// host's agent added, gone or changed, against one small read and write
	// per host and period (2 s keeps a floor of a few hosts current at
	// about the pace a person looks, for a few bytes a second).
	RosterEvery = 2 * time.Second
	// Unreachable is how long a host's server may go without answering
	// before the host is shown as unreachable: three heartbeats, so two
	// missed in a row (a GC pause, a loaded machine, one lost read) do not
	// flap a host that is there.
	Unreachable = 3 * RosterEvery
	// OutboxEvery is how often the outbox is retried when nothing wakes it
	// (a store change or a reconnect wakes it at once): the longest an item
	// waits after its route comes back.
	OutboxEvery = time.Second
	// FetchWait bounds one wait for items on the inbound stream: short, so
	// a consumer lost with its server is noticed within it and made again,
	// no longer than OutboxEvery so the receiving side is no slower than
	// the sending one.
	FetchWait = time.Second
	// OpTimeout bounds one NATS call (a publish, a roster read): longer
	// than a heartbeat period, so a call that is merely slow on a loaded
	// host finishes; past it the host is treated as not answering.
	OpTimeout = 5 * time.Second
	// AckWait is how long the receiving host's stream waits for the ack of
	// an item it handed out before it hands it out again: far past the
	// store commit an ack waits for (milliseconds), so an item is handed
	// out twice only when its receiver died holding it (the store's unique
	// key on the ULID makes the second a no-op).
	AckWait = 30 * time.Second
	// DedupWindow is how long the stream remembers a message id: a retry
	// within it is stored once by JetStream itself; after it, the receiving
	// store's unique key on the ULID still makes it a no-op.
	DedupWindow = time.Hour
	// FetchBatch is the most items taken from the stream at once.
	FetchBatch = 64
	// OutboxBatch is the most outbox items read per pass.
	OutboxBatch = 256
	// MaxPayload is the embedded server's largest message: a 1 MiB body
	// JSON-escaped, with room for the envelope.
	MaxPayload = 8 << 20
)

// Names on NATS.
const (
	streamPrefix = "office_in_"
	bucketPrefix = "office_roster_"
	subjectRoot  = "office.in."
	consumerName = "office"
	heartbeatKey = "_host"
)

func streamOf(host string) string { return streamPrefix + host }
func bucketOf(host string) string { return bucketPrefix + host }

// subjectOf is the subject of items for agent on host: one per agent (a '.'
// in the name, which splits subjects, becomes '~', which names never hold).
func subjectOf(host, agent string) string {
	return subjectRoot + host + "." + strings.ReplaceAll(agent, ".", "~")
}

// Options configure a Node.
type Options struct {
	// Cluster is the office file's [cluster] table.
	Cluster *configs.Cluster
	// StateDir is the office's state directory (JetStream's files go under
	// it).
	StateDir string
	// Store and Inbox are this host's store and inbox layer.
	Store *queue.Store
	Inbox *inbox.Service
	// Local returns this host's agents now (Host is filled in by the node).
	Local func() []Member
	// Received is called after items from other hosts were stored (the
	// engine wakes its drain and schedules inbox deliveries); it must not
	// block.
	Received func()
	// RosterChanged, if set, is called (on the node's one goroutine that
	// schedules the floor's reads, with Run's context) after the
	// last-known roster of another host changed in the store.
	RosterChanged func(ctx context.Context)
	// Approve answers a dialog of an agent of this host for an approver
	// of another host (the engine's `office approve`); nil refuses every
	// such approval.
	Approve ApproveFunc
	// Logger receives the node's log; nil discards it.
	Logger *slog.Logger
}

// HostState is wire.HostState (it crosses the client boundary, so wire declares it).
type HostState = wire.HostState

// Node is one host of the floor. Open starts it, Run keeps it working,
// Close stops it. Its methods are safe for concurrent use.
type Node struct {
	opts Options
	cfg  *configs.Cluster
	log  *slog.Logger
	ns   *server.Server // nil with url
	nc   *nats.Conn
	js   jetstream.JetStream

	wake chan struct{} // capacity 1: the outbox has news

	mu     sync.Mutex
	hosts  map[string]*HostState // other hosts, guarded by mu
	ready  bool                  // own stream, consumer and bucket exist; guarded by mu
	pushed map[string]string     // roster values last put, guarded by mu
	// published: the roster was put once by this run (the keys an
	// earlier run left were read); guarded by mu.
	published bool
	// clashes are this host's agent names another host has too, by name;
	// guarded by mu.
	clashes map[string]NameClash

	approving sync.WaitGroup // approvals from other hosts being typed

	// Each other host is read on its own (pollFloor), its heartbeat and
	// its roster apart: reading names the reads under way (readKey),
	// guarded by mu; rosterErr is why each host's last roster read failed,
	// guarded by mu; listing: the listing of the floor's buckets is under
	// way, guarded by mu; readers are those reads; news has a roster
	// change to tell RosterChanged; saving makes the store's roster writes
	// one at a time.
	reading   map[readKey]bool
	rosterErr map[string]string
	listing   bool
	readers   sync.WaitGroup
	news      chan struct{}
	saving    sync.Mutex
	// src reads the floor's rosters (JetStream; a test's own), now is the
	// clock of LastSeen and Reachable, and afterRead (tests) is told when
	// a read of pollFloor has ended.
	src       rosterSource
	now       func() time.Time
	afterRead func(readKey)

	closeOnce sync.Once
}

// Open migrates the store, starts the embedded NATS server (unless the
// config gives url) and connects. The floor need not be reachable yet: Run
// keeps trying.
func Open(o Options) (*Node, error) {
	if o.Cluster == nil || o.Store == nil || o.Inbox == nil {
		return nil, errors.New("cluster: open: no cluster config, store or inbox")
	}
	if o.Local == nil {
		o.Local = func() []Member { return nil }
	}
	if o.Received == nil {
		o.Received = func() {}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := Migrate(context.Background(), o.Store); err != nil {
		return nil, err
	}
	if err := saveSelf(context.Background(), o.Store, o.Cluster.Host); err != nil {
		return nil, fmt.Errorf("cluster: open: %w", err)
	}
	n := newNode(o, log.With("host", o.Cluster.Host))
	var pass string
	if o.Cluster.URL == "" {
		ns, p, err := startServer(o.Cluster, o.StateDir, n.log)
		if err != nil {
			return nil, err
		}
		n.ns, pass = ns, p
	}
	nc, err := connect(o.Cluster, n.ns, pass)
	if err != nil {
		n.Close()
		return nil, err
	}
	n.nc = nc
	js, err := jetstream.New(nc)
	if err != nil {
		n.Close()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	n.js = js
	roster, err := Roster(context.Background(), o.Store)
	if err != nil {
		n.Close()
		return nil, err
	}
	for _, m := range roster {
		if m.Host != n.cfg.Host {
			n.hostLocked(m.Host)
		}
	}
	o.Inbox.SetRemote(&remote{host: o.Cluster.Host, wake: n.Wake})
	return n, nil
}

// newNode is a node of o not yet connected: its maps, channels and the
// JetStream roster source.
func newNode(o Options, log *slog.Logger) *Node {
	n := &Node{opts: o, cfg: o.Cluster, log: log, wake: make(chan struct{}, 1),
		hosts: map[string]*HostState{}, pushed: map[string]string{}, clashes: map[string]NameClash{},
		reading: map[readKey]bool{}, rosterErr: map[string]string{}, news: make(chan struct{}, 1), now: time.Now}
	n.src = jsRosters{n}
	return n
}

// Host returns this host's name.
func (n *Node) Host() string { return n.cfg.Host }

// hostLocked returns the state of host, made on first use (n.mu held or
// not yet shared).
func (n *Node) hostLocked(host string) *HostState {
	h, ok := n.hosts[host]
	if !ok {
		h = &HostState{Host: host}
		n.hosts[host] = h
	}
	return h
}

// Wake makes the node send its outbox now (after a command stashed items).
func (n *Node) Wake() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Close stops the node: the connection, then the embedded server. Items
// not yet acknowledged stay in the outbox and in the stream.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		if n.nc != nil {
			n.nc.Close()
		}
		if n.ns != nil {
			n.ns.Shutdown()
			n.ns.WaitForShutdown()
		}
	})
	return nil
}

// Run publishes the roster, reads the floor's, sends the outbox and takes
// in items until ctx ends.
func (n *Node) Run(ctx context.Context) {
	n.recoverApprovals(ctx)
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); n.runRoster(ctx) }()
	go func() { defer wg.Done(); n.runFloor(ctx) }()
	go func() { defer wg.Done(); n.runOutbox(ctx) }()
	go func() { defer wg.Done(); n.runInbound(ctx) }()
	wg.Wait()
	n.readers.Wait()
	n.approving.Wait()
}

// ---- setup ----

// ensure creates this host's stream, its consumer and its roster bucket
// (each placed on this host's server) if they are not there yet.
func (n *Node) ensure(ctx context.Context) (jetstream.Consumer, jetstream.KeyValue, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	var place *jetstream.Placement
	if n.ns != nil {
		place = &jetstream.Placement{Tags: []string{tagOf(n.cfg.Host)}}
	}
	st, err := n.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        streamOf(n.cfg.Host),
		Description: "office: items for the agents of host " + n.cfg.Host,
		Subjects:    []string{subjectRoot + n.cfg.Host + ".>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    1,
		Duplicates:  DedupWindow,
		Placement:   place,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: stream %s: %w", streamOf(n.cfg.Host), err)
	}
	cons, err := st.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:    consumerName,
		AckPolicy:  jetstream.AckExplicitPolicy,
		AckWait:    AckWait,
		MaxDeliver: -1,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: consumer of %s: %w", streamOf(n.cfg.Host), err)
	}
	kv, err := n.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      bucketOf(n.cfg.Host),
		Description: "office: the roster of host " + n.cfg.Host,
		Storage:     jetstream.FileStorage,
		Replicas:    1,
		Placement:   place,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: roster bucket %s: %w", bucketOf(n.cfg.Host), err)
	}
	return cons, kv, nil
}

// ---- roster ----

func (n *Node) runRoster(ctx context.Context) {
	var kv jetstream.KeyValue
	t := time.NewTicker(RosterEvery)
	defer t.Stop()
	for {
		if kv == nil {
			if _, k, err := n.ensure(ctx); err != nil {
				n.log.Debug("own roster bucket not ready", "err", err)
			} else {
				kv = k
			}
		}
		if kv != nil {
			if err := n.publishRoster(ctx, kv); err != nil && ctx.Err() == nil {
				n.log.Warn("publishing the roster", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runFloor reads the floor's rosters every RosterEvery (pollFloor) and
// tells RosterChanged of what changed. It is apart from runRoster, whose
// own bucket's calls may wait for JetStream's cluster layer: nothing the
// floor's reads wait for holds this host's view of another.
func (n *Node) runFloor(ctx context.Context) {
	t := time.NewTicker(RosterEvery)
	defer t.Stop()
	n.pollFloor(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n.pollFloor(ctx)
		case <-n.news:
			if n.opts.RosterChanged != nil {
				n.opts.RosterChanged(ctx)
			}
		}
	}
}

// pollFloor starts a read of every other host's roster that has none under
// way, and the listing of the floor's buckets (for hosts not met yet) if
// none is under way, and returns at once. Each host is judged on its own:
// a host whose read hangs (stopped, cut off) holds up only its own next
// read, so a stalled host never makes a healthy one look unreachable.
func (n *Node) pollFloor(ctx context.Context) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.listing {
		n.listing = true
		n.readers.Add(1)
		go func() {
			defer n.readers.Done()
			n.listHosts(ctx)
			n.mu.Lock()
			n.listing = false
			n.mu.Unlock()
		}()
	}
	for h := range n.hosts {
		for _, k := range []readKey{{h, readHeartbeat}, {h, readRoster}} {
			if n.reading[k] {
				continue
			}
			n.reading[k] = true
			n.readers.Add(1)
			go func() {
				defer n.readers.Done()
				changed := false
				if k.what == readHeartbeat {
					n.beat(ctx, h)
				} else {
					changed = n.rosterOf(ctx, h)
				}
				n.mu.Lock()
				delete(n.reading, k)
				n.mu.Unlock()
				if changed {
					select {
					case n.news <- struct{}{}:
					default:
					}
				}
				if n.afterRead != nil {
					n.afterRead(k)
				}
			}()
		}
	}
}

// readKey names one read of pollFloor: host's heartbeat or its roster.
type readKey struct{ host, what string }

// The reads of a host.
const (
	readHeartbeat = "heartbeat"
	readRoster    = "roster"
)

// publishRoster puts this host's members that changed, deletes the ones
// gone, and refreshes the heartbeat.
func (n *Node) publishRoster(ctx context.Context, kv jetstream.KeyValue) error {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	local := n.opts.Local()
	now := map[string]string{}
	for _, m := range local {
		m.Host, m.Seen = n.cfg.Host, time.Time{}
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		now[m.Name] = string(b)
	}
	n.mu.Lock()
	pushed := maps.Clone(n.pushed)
	first := !n.published
	n.mu.Unlock()
	if first {
		// What an earlier run left in the bucket: an agent gone since then
		// (removed, or out of the office file) is deleted below.
		keys, err := kv.ListKeys(ctx)
		if err != nil && !errors.Is(err, jetstream.ErrNoKeysFound) {
			return fmt.Errorf("list own roster: %w", err)
		}
		if err == nil {
			for key := range keys.Keys() {
				if _, ok := pushed[key]; !ok && key != heartbeatKey {
					pushed[key] = ""
				}
			}
		}
	}
	for name, v := range now {
		if pushed[name] == v {
			continue
		}
		if _, err := kv.PutString(ctx, name, v); err != nil {
			return fmt.Errorf("put %q: %w", name, err)
		}
		pushed[name] = v
	}
	for name := range pushed {
		if _, ok := now[name]; !ok {
			if err := kv.Delete(ctx, name); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
				return fmt.Errorf("delete %q: %w", name, err)
			}
			delete(pushed, name)
		}
	}
	if _, err := kv.PutString(ctx, heartbeatKey, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	n.mu.Lock()
	n.pushed, n.published = pushed, true
	n.mu.Unlock()
	return nil
}

// readFloor reads every other host's roster it can reach, all at once,
// and writes the changes into the store's last-known roster; it returns
// when every read has ended (each within OpTimeout) or ctx has. It reports
// whether the store's roster changed.
func (n *Node) readFloor(ctx context.Context) (changed bool) {
	hosts := n.knownHosts(ctx)
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n.beat(ctx, h)
			if n.rosterOf(ctx, h) {
				mu.Lock()
				changed = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return changed
}

// beat asks host's own server for its heartbeat and notes when it
// answered (LastSeen), or why not. The heartbeat is answered by that host's
// server alone, and read apart from the roster, whose listing also needs
// JetStream's cluster layer (a consumer): a stalled host of the floor can
// hold that up (its leader gone until another is elected), which is no
// sign of this host.
func (n *Node) beat(ctx context.Context, h string) {
	err := n.src.alive(ctx, h)
	n.mu.Lock()
	defer n.mu.Unlock()
	st := n.hostLocked(h)
	if err != nil {
		st.Error = err.Error()
		n.log.Debug("host does not answer", "peer", h, "err", err)
		return
	}
	st.LastSeen, st.Error = n.now(), n.rosterErr[h]
}

// rosterOf reads host's roster and writes a change into the store's
// last-known roster; it reports whether the store's roster changed.
func (n *Node) rosterOf(ctx context.Context, h string) bool {
	members, err := n.src.roster(ctx, h)
	n.mu.Lock()
	st := n.hostLocked(h)
	if err != nil {
		n.rosterErr[h] = err.Error()
		st.Error = err.Error()
	} else {
		delete(n.rosterErr, h)
	}
	n.mu.Unlock()
	if err != nil {
		n.log.Debug("host's roster unreadable", "peer", h, "err", err)
		return false
	}
	n.saving.Lock()
	n.meet(h, members)
	saved, err := n.saveRoster(ctx, h, members)
	n.saving.Unlock()
	if err != nil && ctx.Err() == nil {
		n.log.Error("saving the floor's roster", "peer", h, "err", err)
	}
	return saved
}

// knownHosts is every other host: those whose roster bucket NATS lists now,
// and those this host has seen before.
func (n *Node) knownHosts(ctx context.Context) []string {
	n.listHosts(ctx)
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Sorted(maps.Keys(n.hosts))
}

// listHosts adds to the hosts known those whose roster bucket NATS lists
// now (JetStream's cluster layer answers it, so it may wait for it).
func (n *Node) listHosts(ctx context.Context) {
	hosts, err := n.src.hosts(ctx)
	if err != nil {
		n.log.Debug("listing the floor's roster buckets", "err", err)
	}
	n.mu.Lock()
	for _, h := range hosts {
		if h != n.cfg.Host {
			n.hostLocked(h)
		}
	}
	n.mu.Unlock()
}

// rosterSource reads the floor's rosters: JetStream's buckets (jsRosters)
// or a test's stand-in.
type rosterSource interface {
	// hosts lists the hosts that have a roster bucket.
	hosts(ctx context.Context) ([]string, error)
	// alive asks host's own server for its heartbeat: nil when it
	// answered.
	alive(ctx context.Context, host string) error
	// roster reads one host's roster whole.
	roster(ctx context.Context, host string) ([]Member, error)
}

// jsRosters reads the rosters from the node's JetStream.
type jsRosters struct{ n *Node }

func (r jsRosters) hosts(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	var out []string
	names := r.n.js.KeyValueStoreNames(ctx)
	for name := range names.Name() {
		if h, ok := strings.CutPrefix(name, bucketPrefix); ok {
			out = append(out, h)
		}
	}
	return out, names.Error()
}

func (r jsRosters) alive(ctx context.Context, host string) error {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	kv, err := r.n.js.KeyValue(ctx, bucketOf(host))
	if err != nil {
		return err
	}
	// A bucket with no heartbeat yet was answered by its server all the
	// same.
	if _, err := kv.Get(ctx, heartbeatKey); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return err
	}
	return nil
}

func (r jsRosters) roster(ctx context.Context, host string) ([]Member, error) {
	return r.n.readRoster(ctx, host)
}

// readRoster reads host's roster bucket whole.
func (n *Node) readRoster(ctx context.Context, host string) ([]Member, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	kv, err := n.js.KeyValue(ctx, bucketOf(host))
	if err != nil {
		return nil, err
	}
	lister, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []Member
	for key := range lister.Keys() {
		if key == heartbeatKey {
			continue
		}
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var m Member
		if err := json.Unmarshal(e.Value(), &m); err != nil || m.Name != key {
			n.log.Warn("a roster entry that is not a member", "peer", host, "key", key)
			continue
		}
		m.Host = host
		out = append(out, m)
	}
	return out, nil
}

// saveRoster replaces host's members in the store's last-known roster when
// they changed, and reports whether it wrote. A name another host already
// holds there keeps that host (the clash is the newer host's to resolve; see
// Clash).
func (n *Node) saveRoster(ctx context.Context, host string, members []Member) (bool, error) {
	old, err := Roster(ctx, n.opts.Store)
	if err != nil {
		return false, err
	}
	var had []Member
	owner := map[string]string{}
	for _, m := range old {
		owner[m.Name] = m.Host
		if m.Host == host {
			m.Seen = time.Time{}
			had = append(had, m)
		}
	}
	slices.SortFunc(members, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	kept := make([]Member, len(members))
	for i, m := range members {
		m.Since = time.Time{} // not kept
		kept[i] = m
	}
	if slices.Equal(had, kept) {
		return false, nil
	}
	err = n.opts.Store.Update(ctx, func(tx *queue.Tx) error {
		if _, err := tx.SQL().ExecContext(tx.Context(), `DELETE FROM cluster_roster WHERE host = ?`, host); err != nil {
			return err
		}
		for _, m := range members {
			if o, ok := owner[m.Name]; ok && o != host {
				n.log.Error("an agent name is on two hosts", "agent", m.Name, "hosts", o+" and "+host)
				continue
			}
			if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO cluster_roster (name, host, profile, role, parent, status, seen) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				m.Name, host, m.Profile, m.Role, m.Parent, m.Status, tx.Now().UnixNano()); err != nil {
				return err
			}
		}
		return nil
	})
	return err == nil, err
}

// NameClash is wire.NameClash (it crosses the client boundary, so wire declares it).
type NameClash = wire.NameClash

// meet compares host's members, just read, with this host's agents and
// keeps (and logs, once) the names both have.
func (n *Node) meet(host string, members []Member) {
	local := map[string]Member{}
	for _, m := range n.opts.Local() {
		local[m.Name] = m
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	before := map[string]NameClash{}
	for name, c := range n.clashes {
		if c.Host == host {
			before[name] = c
			delete(n.clashes, name)
		}
	}
	for _, m := range members {
		mine, ok := local[m.Name]
		if !ok {
			continue
		}
		later := host
		known := !mine.Since.IsZero() && !m.Since.IsZero()
		switch {
		case known && mine.Since.After(m.Since):
			later = n.cfg.Host
		case known && mine.Since.Before(m.Since):
		case n.cfg.Host > host:
			later = n.cfg.Host
		}
		c := NameClash{Agent: m.Name, Host: host, Later: later}
		if before[m.Name] != c {
			n.log.Error("an agent name is on two hosts: names are unique on the floor; remove one of them (office team rm)",
				"agent", m.Name, "hosts", n.cfg.Host+" and "+host, "later", later)
		}
		n.clashes[m.Name] = c
	}
}

// Clashes returns the agent names of this host another host has too, by
// name.
func (n *Node) Clashes() []NameClash {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]NameClash, 0, len(n.clashes))
	for _, name := range slices.Sorted(maps.Keys(n.clashes)) {
		out = append(out, n.clashes[name])
	}
	return out
}

// Sync reads the floor's rosters once now (at start, before the clash
// check). Hosts it cannot reach keep their last-known roster.
func (n *Node) Sync(ctx context.Context) { n.readFloor(ctx) }

// Clash returns an error naming both hosts for the first of names that
// another host of the floor has (by the last-known roster), or nil.
func (n *Node) Clash(ctx context.Context, names []string) error {
	roster, err := Roster(ctx, n.opts.Store)
	if err != nil {
		return err
	}
	for _, m := range roster {
		if m.Host != n.cfg.Host && slices.Contains(names, m.Name) {
			return fmt.Errorf("cluster: agent %q is on host %s and on host %s: agent names are unique on the floor %q", m.Name, m.Host, n.cfg.Host, n.cfg.Name)
		}
	}
	return nil
}

// Hosts returns what this host knows of the other hosts, by name.
func (n *Node) Hosts(ctx context.Context) []HostState {
	pending, _ := Pending(ctx, n.opts.Store)
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]HostState, 0, len(n.hosts))
	for _, h := range slices.Sorted(maps.Keys(n.hosts)) {
		st := *n.hosts[h]
		st.Reachable = !st.LastSeen.IsZero() && n.now().Sub(st.LastSeen) < Unreachable
		st.Outbox = pending[h]
		out = append(out, st)
	}
	return out
}

// ---- outbox ----

func (n *Node) runOutbox(ctx context.Context) {
	t := time.NewTicker(OutboxEvery)
	defer t.Stop()
	for {
		if err := n.flush(ctx); err != nil && ctx.Err() == nil {
			n.log.Error("sending the outbox", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-n.wake:
		}
	}
}

// outRow is one outbox row.
type outRow struct {
	id, host, agent, payload string
}

// flush publishes the outbox in order, host by host: a host whose stream
// does not answer keeps its items (in order) for the next pass. An item is
// deleted only after its PubAck (a duplicate ack included: JetStream has it).
func (n *Node) flush(ctx context.Context) error {
	for {
		rows, err := n.outbox(ctx)
		if err != nil || len(rows) == 0 {
			return err
		}
		failed := map[string]bool{}
		sent := 0
		for _, r := range rows {
			if failed[r.host] {
				continue
			}
			if err := n.publish(ctx, r); err != nil {
				failed[r.host] = true
				n.note(ctx, r, err)
				continue
			}
			sent++
		}
		if sent == 0 || len(rows) < OutboxBatch {
			return nil
		}
	}
}

func (n *Node) outbox(ctx context.Context) ([]outRow, error) {
	q, err := n.opts.Store.DB().QueryContext(ctx, `SELECT id, host, agent, payload FROM cluster_outbox ORDER BY seq LIMIT ?`, OutboxBatch)
	if err != nil {
		return nil, fmt.Errorf("cluster: outbox: %w", err)
	}
	defer q.Close()
	var rows []outRow
	for q.Next() {
		var r outRow
		if err := q.Scan(&r.id, &r.host, &r.agent, &r.payload); err != nil {
			return nil, fmt.Errorf("cluster: outbox: %w", err)
		}
		rows = append(rows, r)
	}
	return rows, q.Err()
}

// publish sends one outbox item with its ULID as the message id and removes
// it from the outbox once the stream acknowledged it.
func (n *Node) publish(ctx context.Context, r outRow) error {
	pctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	msg := &nats.Msg{Subject: subjectOf(r.host, r.agent), Data: []byte(r.payload)}
	ack, err := n.js.PublishMsg(pctx, msg, jetstream.WithMsgID(r.id), jetstream.WithExpectStream(streamOf(r.host)))
	if err != nil {
		return err
	}
	return n.opts.Store.Update(ctx, func(tx *queue.Tx) error {
		if _, err := tx.SQL().ExecContext(tx.Context(), `DELETE FROM cluster_outbox WHERE id = ?`, r.id); err != nil {
			return err
		}
		return tx.AppendEvent(queue.Event{Agent: r.agent, Kind: EventSent,
			Detail: fmt.Sprintf("%s to host %s (stream seq %d%s)", r.id, r.host, ack.Sequence, dupNote(ack.Duplicate))})
	})
}

func dupNote(dup bool) string {
	if dup {
		return ", already there"
	}
	return ""
}

// note records a failed attempt on the item (the first error of a series
// is logged).
func (n *Node) note(ctx context.Context, r outRow, err error) {
	var attempts int
	_ = n.opts.Store.DB().QueryRowContext(ctx, `SELECT attempts FROM cluster_outbox WHERE id = ?`, r.id).Scan(&attempts)
	if attempts == 0 {
		n.log.Warn("host does not take items now; they wait in the outbox", "peer", r.host, "err", err)
	}
	uerr := n.opts.Store.Update(ctx, func(tx *queue.Tx) error {
		_, e := tx.SQL().ExecContext(tx.Context(), `UPDATE cluster_outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?`, err.Error(), r.id)
		return e
	})
	if uerr != nil && ctx.Err() == nil {
		n.log.Error("noting an outbox attempt", "err", uerr)
	}
}

// ---- inbound ----

func (n *Node) runInbound(ctx context.Context) {
	var cons jetstream.Consumer
	for ctx.Err() == nil {
		if cons == nil {
			c, _, err := n.ensure(ctx)
			if err != nil {
				n.log.Debug("own stream not ready", "err", err)
				select {
				case <-ctx.Done():
					return
				case <-time.After(OutboxEvery):
				}
				continue
			}
			cons = c
			n.mu.Lock()
			n.ready = true
			n.mu.Unlock()
		}
		batch, err := cons.Fetch(FetchBatch, jetstream.FetchMaxWait(FetchWait))
		if err != nil {
			n.log.Debug("fetching items", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(OutboxEvery):
			}
			continue
		}
		got := 0
		for msg := range batch.Messages() {
			if it, ok := n.take(ctx, msg); ok {
				got++
				if it.Kind == KindApprove {
					n.approving.Add(1)
					go func() { defer n.approving.Done(); n.runApproval(ctx, it) }()
				}
			}
		}
		if got > 0 {
			n.opts.Received()
		}
	}
}

// Ready reports whether this host's stream and consumer exist (it can take
// items from other hosts).
func (n *Node) Ready() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ready
}

// take stores one item from the stream and acknowledges it only after the
// commit. It returns the item and whether something new was stored.
func (n *Node) take(ctx context.Context, msg jetstream.Msg) (Item, bool) {
	var it Item
	if err := json.Unmarshal(msg.Data(), &it); err != nil || it.ID == "" {
		n.log.Error("an item that is not one; dropped", "subject", msg.Subject(), "err", err)
		_ = msg.Term()
		return it, false
	}
	stored, err := n.Apply(ctx, it)
	if err != nil {
		n.log.Warn("storing an item from another host; it comes again", "id", it.ID, "err", err)
		_ = msg.NakWithDelay(OutboxEvery)
		return it, false
	}
	actx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	if err := msg.DoubleAck(actx); err != nil {
		n.log.Warn("ack of a stored item lost; its redelivery is a no-op", "id", it.ID, "err", err)
	}
	return it, stored
}

// Apply stores it in this host's queue (send) or inbox (mail, inbox item)
// under the unique key of its ULID, or applies it here (a state report, a
// cancel, a refusal), in one transaction: a second Apply of the same item
// stores nothing and returns false. An item that can never be stored here
// (its agent is not of this host, its body breaks the rules, a limit) is
// recorded as received with the reason, and its refusal is stashed for
// the sender's host in the same transaction; it is not retried.
func (n *Node) Apply(ctx context.Context, it Item) (stored bool, err error) {
	err = n.opts.Store.Update(ctx, func(tx *queue.Tx) error {
		var seen string
		err := tx.SQL().QueryRowContext(tx.Context(), `SELECT id FROM cluster_received WHERE id = ?`, it.ID).Scan(&seen)
		if err == nil {
			return nil
		}
		local, err := n.applyTx(tx, it)
		if err != nil {
			return err
		}
		if err := n.learnSenderTx(tx, it); err != nil {
			return err
		}
		stored = true
		if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO cluster_received (id, local_id, from_host, at) VALUES (?, ?, ?, ?)`,
			it.ID, local, it.FromHost, tx.Now().UnixNano()); err != nil {
			return err
		}
		return tx.AppendEvent(queue.Event{Agent: it.To, Kind: EventReceived,
			Detail: fmt.Sprintf("%s %s from %s on host %s: here %s", it.Kind, it.ID, it.From, it.FromHost, local)})
	})
	if err != nil && permanent(err) {
		n.log.Warn("an item from another host cannot be stored here; refused", "id", it.ID, "kind", it.Kind, "from", it.From, "from_host", it.FromHost, "to", it.To, "err", err)
		rerr := n.opts.Store.Update(ctx, func(tx *queue.Tx) error {
			res, e := tx.SQL().ExecContext(tx.Context(), `INSERT OR IGNORE INTO cluster_received (id, error, at) VALUES (?, ?, ?)`, it.ID, err.Error(), tx.Now().UnixNano())
			if e != nil {
				return e
			}
			if k, _ := res.RowsAffected(); k == 0 {
				return nil // refused before
			}
			if e := tx.AppendEvent(queue.Event{Agent: it.To, Kind: EventRefused,
				Detail: fmt.Sprintf("%s %s from %s on host %s refused: %v", it.Kind, it.ID, it.From, it.FromHost, err)}); e != nil {
				return e
			}
			return refuseTx(tx, n.log, n.cfg.Host, it, refusalOf(err))
		})
		if rerr == nil {
			n.Wake()
		}
		return false, rerr
	}
	return stored, err
}

// learnSenderTx adds the sender of a message, mail or notice to the
// last-known roster when that has no agent of its name yet: the item proves
// the agent runs on its host, and an answer to it (a reply, `office approve`
// of the dialog it forwarded) must find it there although that host's
// roster, read on its own schedule, has not brought it yet. The next read
// of that host's roster replaces the row with the full entry.
func (n *Node) learnSenderTx(tx *queue.Tx, it Item) error {
	switch it.Kind {
	case KindSend, KindMail, KindInbox:
	default:
		return nil
	}
	if it.From == inbox.Person || it.From == inbox.System || it.FromHost == "" || it.FromHost == n.cfg.Host {
		return nil
	}
	_, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO cluster_roster (name, host, seen) SELECT ?, ?, ?
		WHERE NOT EXISTS (SELECT 1 FROM cluster_roster WHERE name = ?)`, it.From, it.FromHost, tx.Now().UnixNano(), it.From)
	return err
}

// applyTx stores the item as what it is and returns its local id.
func (n *Node) applyTx(tx *queue.Tx, it Item) (string, error) {
	switch it.Kind {
	case KindSend:
		id, err := tx.Enqueue(it.To, it.Text, queue.EnqueueOptions{Source: "host " + it.FromHost})
		if err != nil {
			return "", err
		}
		return fmt.Sprint(id), nil
	case KindMail:
		// New mail to a name this host does not run (another host has it)
		// is refused by the inbox (a reply is for this host's agent itself).
		id, err := n.opts.Inbox.SendMailTx(tx, inbox.MailRequestArgs{ID: it.ID, To: it.To, From: it.From, Title: it.Title, Text: it.Text,
			Request: it.Request, Deadline: it.Deadline, InReplyTo: it.InReplyTo})
		if err != nil {
			return "", err
		}
		return id, n.cancelWaitingTx(tx, id)
	case KindInbox:
		id, _, err := n.opts.Inbox.SendTx(tx, inbox.Message{ID: it.ID, To: it.To, From: it.From, Kind: it.InboxKind, Body: it.Text,
			DedupeKey: it.Dedupe, HereOnly: true})
		return id, err
	case KindCancel:
		return n.applyCancelTx(tx, it)
	case KindRefused:
		return n.applyRefusedTx(tx, it)
	case KindApprove:
		return n.applyApproveTx(tx, it)
	case KindApproved:
		return n.applyApprovedTx(tx, it)
	case KindState:
		st, ok := inbox.ParseMailState(it.State)
		if !ok || it.MailID == "" {
			return "", fmt.Errorf("cluster: item %s: state %q of mail %q (%w)", it.ID, it.State, it.MailID, errBadItem)
		}
		if _, err := n.opts.Inbox.MoveTx(tx, it.MailID, st, it.Reason); err != nil {
			return "", err
		}
		return it.MailID, nil
	}
	return "", fmt.Errorf("cluster: item %s: kind %q is not one this host knows (%w)", it.ID, it.Kind, errBadItem)
}

// errBadItem: an item no version of this host can store.
var errBadItem = errors.New("bad item")

// permanent reports whether err means the item can never be stored here:
// its receiver is not here, it breaks the body rules or a limit (a second
// pending compaction command), it is not allowed, or it is no item.
func permanent(err error) bool {
	return errors.Is(err, queue.ErrUnknownAgent) || errors.Is(err, queue.ErrBlank) || errors.Is(err, queue.ErrTooLarge) ||
		errors.Is(err, queue.ErrDuplicate) || errors.Is(err, inbox.ErrNotAllowed) || errors.Is(err, errBadItem)
}

// refusalOf is the reason a refusal gives for err: the receiving host's
// words without their package prefixes.
func refusalOf(err error) string {
	msg := err.Error()
	for _, p := range []string{"queue: ", "inbox: ", "cluster: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}

func encodeItem(it Item) (string, error) {
	b, err := json.Marshal(it)
	if err != nil {
		return "", fmt.Errorf("cluster: encode item: %w", err)
	}
	return string(b), nil
}
