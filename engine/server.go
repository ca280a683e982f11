package engine

// server.go makes the engine the office's server: clients (the UI, `office
// events`, `office wait`, `office attach --stdio` for ssh) hold long-lived
// connections on a second Unix socket, ClientSocketFile, and speak the wire
// protocol (docs/protocol.md). Each client gets the roster, the state and a
// full snapshot of every screen first, then only what changed. A client's
// writer is its own goroutine with bounded pending state (a dirty flag per
// agent, the latest state, a bounded event queue), so a slow or stalled
// client skips intermediate frames and never slows the server, an agent or
// another client.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"office/automation"
	"office/drain"
	"office/pool"
	"office/wire"
)

// ClientSocketFile is the clients' Unix socket in the state directory (mode
// 0600, like SocketFile; never TCP).
const ClientSocketFile = wire.SocketFile

// Server timing and bounds.
const (
	// helloTimeout bounds the handshake.
	helloTimeout = 10 * time.Second
	// frameInterval is the shortest time between two screen flushes to one
	// client: changes in between are merged into one update. The focused
	// agent's screen does not wait for it (client.urgent), so it paces only
	// background panes, at the rate the UI draws them (30 a second): a
	// faster pace would only wake the client for updates it merges anyway.
	frameInterval = time.Second / 30
	// writeStall is how long a client may leave a write pending (it stopped
	// reading) before it is disconnected; until then it only costs its own
	// bounded pending state.
	writeStall = 60 * time.Second
	// stateTick is how often the office's state is re-read while clients
	// are attached and something may change without a terminal event or a
	// request: messages queued, holds, agents starting, or the state changed
	// less than stateLinger ago (the drain's trailing writes).
	stateTick = 250 * time.Millisecond
	// stateLinger is how long the state stays read at stateTick after it
	// last changed.
	stateLinger = 2 * time.Second
	// quietTick re-reads the state of a quiet office (every agent settled,
	// no message queued): requests, calls and terminal events wake the loop
	// at once, this only bounds how late a store change nobody announced
	// (a writer that could not reach the socket) is seen.
	quietTick = 5 * time.Second
	// minLoopGap spaces the state loop's passes.
	minLoopGap = 40 * time.Millisecond
	// maxPendingEvents bounds one client's queued events; beyond it events
	// are counted as lost and the client is told (wire.EventLost).
	maxPendingEvents = 4096
	// maxCallsInFlight bounds one client's concurrent calls.
	maxCallsInFlight = 8
	// eventBatch bounds one read of the store's event log.
	eventBatch = 500
	// byeWait is how long Close gives clients to receive Bye.
	byeWait = time.Second
)

// server is the engine's client side. Its methods are safe for concurrent use.
type server struct {
	e   *Engine
	log *slog.Logger
	uid int

	mu        sync.Mutex
	ln        net.Listener // the clients' socket; replaced by checkSocket
	sockID    socketID     // the identity of its file
	clients   map[int64]*client
	nextID    int64
	activity  int64 // counter ordering the clients' activity (resize rule)
	live      []wire.Event
	instances map[*pool.Terminal]int64
	nextInst  int64
	seq       int64 // last store event the loop has seen
	closed    bool

	wake     chan struct{}
	stopReq  chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	wg       sync.WaitGroup
}

// startServer listens on the clients' socket and starts the state loop.
func (e *Engine) startServer() error {
	ln, id, err := listenAt(filepath.Join(e.opts.StateDir, ClientSocketFile))
	if err != nil {
		return err
	}
	s := &server{e: e, ln: ln, sockID: id, log: e.log.With("part", "server"), uid: os.Getuid(),
		clients: map[int64]*client{}, instances: map[*pool.Terminal]int64{},
		wake: make(chan struct{}, 1), stopReq: make(chan struct{}), done: make(chan struct{})}
	if err := e.store.DB().QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&s.seq); err != nil {
		ln.Close()
		return fmt.Errorf("engine: read the event log: %w", err)
	}
	e.srv.Store(s)
	s.wg.Add(2)
	go s.accept(ln)
	go s.loop()
	return nil
}

// StopRequested is closed when a client asked the office to stop (`office
// stop`); whoever runs the engine then closes it.
func (e *Engine) StopRequested() <-chan struct{} {
	s := e.srv.Load()
	if s == nil {
		return nil
	}
	return s.stopReq
}

func (s *server) requestStop() { s.stopOnce.Do(func() { close(s.stopReq) }) }

// close says Bye to every client and stops serving.
func (s *server) close(bye wire.Bye) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	clients := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		clients = append(clients, c)
	}
	ln := s.ln
	s.mu.Unlock()
	ln.Close()
	_ = os.Remove(filepath.Join(s.e.opts.StateDir, ClientSocketFile))
	close(s.done)
	for _, c := range clients {
		c.bye(bye)
	}
	deadline := time.After(byeWait)
	for _, c := range clients {
		select {
		case <-c.gone:
		case <-deadline:
		}
		c.conn.Close()
	}
	s.wg.Wait()
}

// poke wakes the state loop.
func (s *server) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// terminalEvent is called for every terminal change (engine.terminalEvent).
func (s *server) terminalEvent(ev pool.Event) {
	if ev.Kind == pool.EventOutput {
		s.markDirty(ev.Agent)
		return
	}
	s.poke()
}

// notice turns a drain notice into a live event.
func (s *server) notice(n drain.Notice) {
	s.addLive(wire.Event{Type: wire.EventNotice, At: time.Now(), Agent: n.Agent, MsgID: n.MsgID, Kind: string(n.Kind), Text: n.Text})
}

func (s *server) addLive(ev wire.Event) {
	s.mu.Lock()
	if len(s.clients) > 0 && len(s.live) < maxPendingEvents {
		s.live = append(s.live, ev)
	}
	s.mu.Unlock()
	s.poke()
}

// markDirty tells every screen client that agent's screen changed.
func (s *server) markDirty(agent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients {
		if c.hello.Screens {
			c.markDirty(agent)
		}
	}
}

// checkSocket makes the clients' socket again if its file was removed or
// replaced (engine.checkSocket does the same for SocketFile).
func (s *server) checkSocket() error {
	path := filepath.Join(s.e.opts.StateDir, ClientSocketFile)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if id, ok := statSocket(path); ok && id == s.sockID {
		return nil
	}
	// The old listener must not unlink the path on close: it names the new
	// socket from now on (or something else, removed by listenAt).
	if ul, ok := s.ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	s.ln.Close()
	ln, id, err := listenAt(path)
	if err != nil {
		return fmt.Errorf("engine: the clients' socket %s was removed and could not be made again: %w", path, err)
	}
	s.ln, s.sockID = ln, id
	s.wg.Add(1)
	go s.accept(ln)
	s.log.Warn("the clients' socket was removed or replaced; made it again", "path", path)
	return nil
}

// accept serves connections until ln closes.
func (s *server) accept(ln net.Listener) {
	defer s.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		// Not in s.wg: a connection still in its handshake may take up to
		// helloTimeout, and Close must not wait for it (register refuses
		// it once closed; attached ones are closed by Close).
		go s.serveConn(conn)
	}
}

// PeerError refuses a connection from another user.
type PeerError struct {
	UID, Want int
}

func (p *PeerError) Error() string {
	return fmt.Sprintf("connection from uid %d refused: this office belongs to uid %d", p.UID, p.Want)
}

// CheckPeer returns nil when the process at the other end of conn (a Unix
// socket) runs as uid want, and a *PeerError (or the error reading its
// credentials) otherwise.
func CheckPeer(conn net.Conn, want int) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix socket connection (%T)", conn)
	}
	uid, err := peerUID(uc)
	if err != nil {
		return fmt.Errorf("reading the peer's credentials: %w", err)
	}
	if uid != want {
		return &PeerError{UID: uid, Want: want}
	}
	return nil
}

// serveConn runs one client from its handshake to its end.
func (s *server) serveConn(conn net.Conn) {
	defer conn.Close()
	w := wire.NewWriter(conn)
	refuse := func(reason string) {
		_ = conn.SetWriteDeadline(time.Now().Add(helloTimeout))
		_ = w.Write(wire.Refused{T: wire.TRefused, Version: wire.Version, Reason: reason})
		_ = w.Flush()
	}
	if err := CheckPeer(conn, s.uid); err != nil {
		s.log.Warn("client refused", "err", err)
		refuse(err.Error())
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(helloTimeout))
	r := wire.NewReader(conn, wire.MaxClientFrame)
	typ, p, err := r.Next()
	if err != nil {
		s.log.Info("client left before its hello", "err", err)
		return
	}
	var h wire.Hello
	if typ != wire.THello || wire.Decode(p, &h) != nil {
		refuse(fmt.Sprintf("the first message must be hello, got %q", typ))
		return
	}
	if h.Version != wire.Version {
		refuse(wire.VersionMismatch(wire.Version, h.Version))
		return
	}
	if len(h.Agents) > wire.MaxPanes {
		refuse(fmt.Sprintf("hello names %d agents, at most %d", len(h.Agents), wire.MaxPanes))
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	var last int64
	if err := s.e.store.DB().QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&last); err != nil {
		refuse("reading the event log: " + err.Error())
		return
	}
	c := s.register(conn, w, h, last)
	if c == nil {
		refuse("the office is stopping")
		return
	}
	s.log.Info("client attached", "client", c.id, "program", h.Client, "screens", h.Screens, "events", h.Events)
	defer func() {
		s.unregister(c)
		s.log.Info("client detached", "client", c.id)
	}()
	go c.writeLoop()
	c.readLoop(r)
}

// register adds a client and queues its welcome and first picture; last is
// the store log's last event now (the client's stream starts after it unless
// it resumes from Hello.Since).
func (s *server) register(conn net.Conn, w *wire.Writer, h wire.Hello, last int64) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if len(s.clients) == 0 && last > s.seq {
		s.seq = last // nobody followed the log meanwhile: it is not news
	}
	now := max(s.seq, last)
	s.nextID++
	s.activity++
	c := &client{id: s.nextID, s: s, conn: conn, w: w, hello: h, active: s.activity,
		wake: make(chan struct{}, 1), gone: make(chan struct{}), quit: make(chan struct{}),
		calls: make(chan struct{}, maxCallsInFlight), dirty: map[string]bool{}, sent: map[string]*sentScreen{},
		seq: now}
	if h.Events && h.Since > 0 && h.Since < c.seq {
		c.seq = h.Since
	}
	if len(h.Agents) > 0 {
		c.agents = map[string]bool{}
		for _, a := range h.Agents {
			c.agents[a] = true
		}
	}
	cfg := ""
	if s.e.opts.Config != nil {
		cfg = s.e.opts.Config.Path
	}
	welcome, _ := json.Marshal(wire.Welcome{T: wire.TWelcome, Version: wire.Version, Pid: os.Getpid(),
		State: s.e.opts.StateDir, Config: cfg, Client: c.id, Seq: now})
	c.pending = append(c.pending, welcome)
	c.rosterDirty, c.stateDirty = true, true
	s.clients[c.id] = c
	s.poke()
	c.signal()
	return c
}

func (s *server) unregister(c *client) {
	s.mu.Lock()
	delete(s.clients, c.id)
	s.resizeLocked()
	s.mu.Unlock()
	c.stop()
}

// touch makes c the most recently active client (keys, a resize); the
// agents' sizes follow it.
func (s *server) touch(c *client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.active == s.activity {
		return // already the latest
	}
	s.activity++
	c.active = s.activity
	s.resizeLocked()
}

// resizeLocked applies the resize rule: each agent gets the pane size of the
// most recently active client that shows it, and is resized only when that
// differs from its current size. s.mu must be held.
func (s *server) resizeLocked() {
	for _, a := range s.e.Agents() {
		if a.Term == nil {
			continue
		}
		var want wire.Size
		var at int64 = -1
		for _, c := range s.clients {
			if sz, ok := c.panes[a.Config.Name]; ok && c.active > at {
				want, at = sz, c.active
			}
		}
		if at < 0 {
			continue
		}
		if cols, rows := a.Term.Size(); cols == want.Cols && rows == want.Rows {
			continue
		}
		if err := a.Term.Resize(want.Cols, want.Rows); err != nil {
			s.log.Warn("resize", "agent", a.Config.Name, "err", err)
			continue
		}
		for _, c := range s.clients {
			if c.hello.Screens {
				c.markDirty(a.Config.Name)
			}
		}
	}
}

// instance returns t's instance number (a new one for each terminal).
func (s *server) instanceLocked(t *pool.Terminal) int64 {
	if t == nil {
		return 0
	}
	n, ok := s.instances[t]
	if !ok {
		s.nextInst++
		n = s.nextInst
		s.instances[t] = n
	}
	return n
}

// loop keeps the office's state, the roster and the event stream current for
// every client. It does nothing while no client is attached.
func (s *server) loop() {
	defer s.wg.Done()
	timer := time.NewTimer(quietTick)
	defer timer.Stop()
	var st loopState
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		case <-timer.C:
		}
		s.mu.Lock()
		n := len(s.clients)
		s.mu.Unlock()
		if n == 0 {
			st = loopState{} // the next client starts from scratch
			timer.Reset(quietTick)
			continue
		}
		now := time.Now()
		if s.pass(&st) {
			st.changed = now
		}
		timer.Reset(passInterval(st.last, now.Sub(st.changed)))
		select {
		case <-s.done:
			return
		case <-time.After(minLoopGap):
		}
	}
}

// passInterval is how long the loop may sleep before its next pass when
// nothing wakes it: stateTick while state can change with no event (see
// stateTick) or changed within stateLinger (since), else quietTick.
func passInterval(state wire.State, since time.Duration) time.Duration {
	if since < stateLinger {
		return stateTick
	}
	for _, a := range state.Agents {
		if a.Queued > 0 || a.Hold != "" || a.Status == automation.StatusStarting.String() {
			return stateTick
		}
	}
	return quietTick
}

// loopState is what the loop last sent.
type loopState struct {
	roster  []byte
	state   []byte
	agents  map[string]wire.AgentState
	last    wire.State // the state last read
	changed time.Time  // when a pass last found something new
}

// pass does one round of the loop. It reports whether the roster, the
// state or the event stream had anything new.
func (s *server) pass(st *loopState) bool {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	roster, insts := s.roster()
	rb, _ := json.Marshal(roster)
	rosterChanged := string(rb) != string(st.roster)
	st.roster = rb
	after, stored, err := s.storeEvents(ctx)
	if err != nil {
		s.log.Warn("reading the event log", "err", err)
	}
	// The state is read after the log: what the log says happened comes
	// first in the stream.
	state, err := s.state(ctx)
	if err != nil {
		s.log.Warn("reading the office's state", "err", err)
	}
	sb, _ := json.Marshal(state)
	stateChanged := err == nil && string(sb) != string(st.state)
	if err == nil {
		st.state = sb
		st.last = state
	}
	live := s.liveEvents(st, state)
	news := rosterChanged || stateChanged || len(stored) > 0 || len(live) > 0
	// Clients resuming their stream (Hello.Since) first get what they
	// missed before this pass.
	s.mu.Lock()
	var behind []*client
	for _, c := range s.clients {
		if c.hello.Events && c.seq < after {
			behind = append(behind, c)
		}
	}
	s.mu.Unlock()
	for _, c := range behind {
		s.mu.Lock()
		from := c.seq
		s.mu.Unlock()
		evs, err := s.backlog(ctx, from, after)
		if err != nil {
			s.log.Warn("reading the event log for a client", "client", c.id, "err", err)
		}
		s.mu.Lock()
		c.addEvents(nil, evs, after)
		s.mu.Unlock()
	}
	s.mu.Lock()
	news = news || len(s.live) > 0
	live = append(s.live, live...)
	s.live = nil
	for _, c := range s.clients {
		if rosterChanged || c.roster == nil {
			c.setRoster(rb, insts)
		}
		if (stateChanged || c.state == nil) && st.state != nil {
			c.setState(st.state)
		}
		if c.hello.Events {
			c.addEvents(live, stored, s.seq)
		}
	}
	s.mu.Unlock()
	return news
}

// roster returns the roster message and each agent's instance.
func (s *server) roster() (wire.Roster, map[string]int64) {
	agents := s.e.Agents()
	r := wire.Roster{T: wire.TRoster, Agents: make([]wire.Agent, 0, len(agents))}
	insts := make(map[string]int64, len(agents))
	s.mu.Lock()
	for _, a := range agents {
		wa := wire.Agent{Name: a.Config.Name, Profile: a.Profile.Name, Instance: s.instanceLocked(a.Term), ReadyMarkers: a.Profile.ReadyMarkers}
		if a.Term != nil {
			wa.Started = a.Term.Spawned()
		}
		if a.SpawnErr != nil {
			wa.SpawnError = a.SpawnErr.Error()
		}
		insts[wa.Name] = wa.Instance
		r.Agents = append(r.Agents, wa)
	}
	s.mu.Unlock()
	return r, insts
}

// state reads the office's live state.
func (s *server) state(ctx context.Context) (wire.State, error) {
	st := wire.State{T: wire.TState}
	counts, err := s.e.store.Counts(ctx)
	if err != nil {
		return st, err
	}
	if st.FloorPaused, err = s.e.store.FloorPaused(ctx); err != nil {
		return st, err
	}
	paused, err := s.e.store.PausedAgents(ctx)
	if err != nil {
		return st, err
	}
	agents := s.e.Agents()
	for i, as := range s.e.Status() {
		a := wire.AgentState{Name: as.Name, Status: as.Status, Signal: as.Signal, Draft: as.Draft, Hold: as.Hold,
			Queued: counts[as.Name], Paused: slices.Contains(paused, as.Name), Pid: as.Pid, ExitCode: as.ExitCode, Error: as.Error,
			Restart: as.Restart, RestartAt: as.RestartAt}
		if i < len(agents) && agents[i].Config.Name == as.Name && agents[i].Term != nil {
			a.Picker = agents[i].Term.AutomationState().PickerLatched
		}
		st.Agents = append(st.Agents, a)
	}
	return st, nil
}

// liveEvents compares state with the last one and returns the status, hold
// and exit events between them.
func (s *server) liveEvents(st *loopState, state wire.State) []wire.Event {
	now := time.Now()
	var out []wire.Event
	first := st.agents == nil
	next := make(map[string]wire.AgentState, len(state.Agents))
	for _, a := range state.Agents {
		next[a.Name] = a
		if first {
			continue
		}
		old, seen := st.agents[a.Name]
		if !seen || old.Status != a.Status {
			out = append(out, wire.Event{At: now, Type: wire.EventStatus, Agent: a.Name, Status: a.Status, Signal: a.Signal})
		}
		if seen && old.Hold != a.Hold {
			out = append(out, wire.Event{At: now, Type: wire.EventHold, Agent: a.Name, Hold: a.Hold})
		}
		if a.ExitCode != nil && (old.ExitCode == nil || !seen) {
			out = append(out, wire.Event{At: now, Type: wire.EventExit, Agent: a.Name, Code: a.ExitCode})
		}
	}
	st.agents = next
	return out
}

// storeEvents reads the store's log after s.seq (returned as after) and
// advances it.
func (s *server) storeEvents(ctx context.Context) (after int64, out []wire.Event, err error) {
	s.mu.Lock()
	after = s.seq
	s.mu.Unlock()
	evs, err := s.e.store.Events(ctx, after, eventBatch)
	if err != nil || len(evs) == 0 {
		return after, nil, err
	}
	out = make([]wire.Event, len(evs))
	for i, e := range evs {
		out[i] = storeEvent(e.Seq, e.At, e.Agent, e.MsgID, e.Kind, e.Detail)
	}
	s.mu.Lock()
	s.seq = evs[len(evs)-1].Seq
	s.mu.Unlock()
	if len(evs) == eventBatch {
		s.poke() // more to read
	}
	return after, out, nil
}

// backlog reads the store's log in (after, upTo] for a client resuming its
// stream.
func (s *server) backlog(ctx context.Context, after, upTo int64) ([]wire.Event, error) {
	var out []wire.Event
	for after < upTo && len(out) < maxPendingEvents {
		evs, err := s.e.store.Events(ctx, after, eventBatch)
		if err != nil {
			return out, err
		}
		if len(evs) == 0 {
			break
		}
		for _, e := range evs {
			if e.Seq > upTo {
				return out, nil
			}
			out = append(out, storeEvent(e.Seq, e.At, e.Agent, e.MsgID, e.Kind, e.Detail))
			after = e.Seq
		}
	}
	return out, nil
}

// ErrServerStopping is a call's error while the office stops.
var ErrServerStopping = errors.New("the office is stopping")
