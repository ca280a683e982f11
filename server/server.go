package server

// server.go is the office's server: clients (the UI, `office events`,
// `office wait`, `office attach --stdio` for ssh, a command's one call)
// hold connections on the clients' Unix socket (wire.SocketFile) and speak
// the wire protocol (docs/protocol.md). Each client gets the roster, the
// state and a full snapshot of every screen it takes (every agent's, or
// those it subscribed to) first, then only what changed (loop.go). A
// client's writer is its own goroutine with bounded pending state (a dirty
// flag per agent, the latest state, a bounded event queue: client.go), so
// a slow or stalled client skips intermediate frames and never slows the
// server, an agent or another client.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"office/pool"
	"office/wire"
)

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
	// gateLag is how long a pass woken only by a terminal's draft or
	// picker changing waits. The person's key that changed it is echoed
	// first (the agent's round trip, a millisecond or a few), so the
	// state's message and every client's redraw of it do not compete with
	// that echo (0.2 ms of its p50 on a 2-core machine); a draft badge
	// drawn 20 ms after the key is about one frame late.
	gateLag = 20 * time.Millisecond
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

// Server is the office's side of its clients. Its methods are safe for
// concurrent use.
type Server struct {
	office Office
	opts   Options
	log    *slog.Logger
	uid    int // the office's user: a peer of another uid is refused

	mu       sync.Mutex
	sock     listening // the clients' socket; replaced by CheckSocket
	clients  map[int64]*client
	nextID   int64
	activity int64 // counter ordering the clients' activity (resize rule)
	live     []wire.Event
	inst     instances
	seq      int64 // last store event the loop has seen
	closed   bool
	last     lastPass

	wake loopWake
	stop stopRequest
	done chan struct{}
	wg   sync.WaitGroup
}

// loopWake wakes the state loop. store says whether the store may have
// changed since the loop's last read of it: a pass woken only by a
// terminal's draft or picker (Server.TerminalEvent) reads the terminals
// alone (Office.Restate).
type loopWake struct {
	ch    chan struct{}
	store atomic.Bool
}

// listening is the clients' socket: its listener and the identity of its
// file. Guarded by Server.mu.
type listening struct {
	ln net.Listener
	id socketID
}

// lastPass is the roster, its instances and the state as the loop's last
// pass encoded them: a new client that draws gets these at once rather
// than wait for the next pass (with 500 agents a pass takes tens of ms),
// and that pass sends it only what changed since (the loop keeps its
// bytes). Guarded by Server.mu.
type lastPass struct {
	roster []byte
	insts  map[string]int64
	state  []byte
}

// instances numbers the terminals the clients see, a new number for each
// (a restarted agent's screen starts over). Guarded by Server.mu.
type instances struct {
	of   map[*pool.Terminal]int64
	next int64
}

// stopRequest is a client's request that the office stop (`office stop`).
type stopRequest struct {
	req  chan struct{} // closed by RequestStop
	once sync.Once
}

// Start listens on the clients' socket (SocketFile in o.StateDir) and
// starts the state loop.
func Start(o Options) (*Server, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ln, id, err := listenAt(filepath.Join(o.StateDir, wire.SocketFile))
	if err != nil {
		return nil, err
	}
	s := &Server{office: o.Office, opts: o, sock: listening{ln: ln, id: id}, log: log, uid: os.Getuid(),
		clients: map[int64]*client{}, inst: instances{of: map[*pool.Terminal]int64{}},
		wake: loopWake{ch: make(chan struct{}, 1)}, stop: stopRequest{req: make(chan struct{})}, done: make(chan struct{})}
	// No deadline of its own: the store's busy timeout bounds the read.
	if s.seq, err = o.Office.LastEvent(context.Background()); err != nil {
		ln.Close()
		return nil, fmt.Errorf("engine: read the event log: %w", err)
	}
	if o.Ready != nil {
		o.Ready(s)
	}
	s.wg.Add(2)
	go s.accept(ln)
	go s.loop()
	return s, nil
}

// StopRequested is closed when a client asked the office to stop (`office
// stop`, RequestStop); whoever runs the office then closes it.
func (s *Server) StopRequested() <-chan struct{} { return s.stop.req }

// RequestStop closes StopRequested's channel (idempotent).
func (s *Server) RequestStop() { s.stop.once.Do(func() { close(s.stop.req) }) }

// Close says Bye to every client and stops serving (idempotent).
func (s *Server) Close(bye wire.Bye) {
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
	ln := s.sock.ln
	s.mu.Unlock()
	ln.Close()
	_ = os.Remove(filepath.Join(s.opts.StateDir, wire.SocketFile))
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

// Poke wakes the state loop (the office changed: clients hear of it now,
// not at the loop's next tick), which reads the store again.
func (s *Server) Poke() {
	s.wake.store.Store(true)
	s.pokeTerminals()
}

// pokeTerminals wakes the state loop for a change only the terminals know.
func (s *Server) pokeTerminals() {
	select {
	case s.wake.ch <- struct{}{}:
	default:
	}
}

// TerminalEvent is told every terminal change; it does not block. A
// screen marks the clients' copies dirty; a draft or picker changing
// (EventGate: the person's first key of a line) changes no stored figure
// and wakes the loop without a store read; the rest wake it with one.
func (s *Server) TerminalEvent(ev pool.Event) {
	switch ev.Kind {
	case pool.EventOutput:
		s.markDirty(ev.Agent)
	case pool.EventGate:
		s.pokeTerminals()
	default:
		s.Poke()
	}
}

// AddLive queues ev for every client that follows events (dropped when
// none is attached, or past maxPendingEvents waiting).
func (s *Server) AddLive(ev wire.Event) {
	s.mu.Lock()
	if len(s.clients) > 0 && len(s.live) < maxPendingEvents {
		s.live = append(s.live, ev)
	}
	s.mu.Unlock()
	s.Poke()
}

// markDirty tells every screen client that agent's screen changed.
func (s *Server) markDirty(agent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients {
		c.markDirty(agent)
	}
}

// CheckSocket makes the clients' socket again if its file was removed or
// replaced.
func (s *Server) CheckSocket() error {
	path := filepath.Join(s.opts.StateDir, wire.SocketFile)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if id, ok := statSocket(path); ok && id == s.sock.id {
		return nil
	}
	// The old listener must not unlink the path on close: it names the new
	// socket from now on (or something else, removed by listenAt).
	if ul, ok := s.sock.ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	s.sock.ln.Close()
	ln, id, err := listenAt(path)
	if err != nil {
		return fmt.Errorf("engine: the clients' socket %s was removed and could not be made again: %w", path, err)
	}
	s.sock = listening{ln: ln, id: id}
	s.wg.Add(1)
	go s.accept(ln)
	s.log.Warn("the clients' socket was removed or replaced; made it again", "path", path)
	return nil
}

// accept serves connections until ln closes.
func (s *Server) accept(ln net.Listener) {
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

// serveConn runs one client from its handshake to its end.
func (s *Server) serveConn(conn net.Conn) {
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
		// A connection closed at once is a probe (engine.Listening: is a
		// server up?), not news; anything else is logged.
		level := slog.LevelInfo
		if errors.Is(err, io.EOF) {
			level = slog.LevelDebug
		}
		s.log.Log(context.Background(), level, "client left before its hello", "err", err)
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
	last, err := s.office.LastEvent(context.Background()) // as at Start
	if err != nil {
		if h.Events {
			refuse("reading the event log: " + err.Error())
			return
		}
		// A client that asks for no events (a command's one call, such as
		// the poke after a store was deleted: the poke makes the watch
		// notice) needs no place in the log; its call still runs.
		s.log.Warn("reading the event log for a client", "err", err)
		last = 0
	}
	c := s.register(conn, w, h, last)
	if c == nil {
		refuse(wire.ReasonStopping)
		return
	}
	// A client that asks for neither screens nor events is a command's one
	// call (engine.Call: a hook, `office status`): logged at debug, or
	// every hook would write two lines to the office's log.
	level := slog.LevelInfo
	if !h.Screens && !h.Events {
		level = slog.LevelDebug
	}
	s.log.Log(context.Background(), level, "client attached", "client", c.id, "program", h.Client, "screens", h.Screens, "subscribe", h.Subscribe, "events", h.Events)
	defer func() {
		s.unregister(c)
		s.log.Log(context.Background(), level, "client detached", "client", c.id)
	}()
	go c.writeLoop()
	c.readLoop(r)
}

// register adds a client and queues its welcome and first picture; last is
// the store log's last event now (the client's stream starts after it unless
// it resumes from Hello.Since, or replays the whole log: Hello.FromStart).
func (s *Server) register(conn net.Conn, w *wire.Writer, h wire.Hello, last int64) *client {
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
	c := &client{id: s.nextID, s: s, conn: conn, w: w, hello: h, shows: clientView{active: s.activity},
		wake: make(chan struct{}, 1), gone: make(chan struct{}), quit: make(chan struct{}),
		calls: make(chan struct{}, maxCallsInFlight), scr: screenWant{dirty: map[string]bool{}}, wr: writerState{sent: map[string]*sentScreen{}},
		out: outbox{seq: now}}
	switch {
	case h.Events && h.FromStart:
		c.out.seq = 0
	case h.Events && h.Since > 0 && h.Since < c.out.seq:
		c.out.seq = h.Since
	}
	if h.Screens && h.Subscribe {
		c.scr.subs = map[string]bool{} // no screen before its first Subscribe
	}
	if len(h.Agents) > 0 {
		c.out.agents = map[string]bool{}
		for _, a := range h.Agents {
			c.out.agents[a] = true
		}
	}
	cfg, prefix := s.opts.Config, s.opts.Prefix
	welcome, _ := json.Marshal(wire.Welcome{T: wire.TWelcome, Version: wire.Version, Pid: os.Getpid(),
		State: s.opts.StateDir, Config: cfg, Prefix: prefix, Client: c.id, Seq: now})
	c.out.pending = append(c.out.pending, welcome)
	c.out.rosterDirty, c.out.stateDirty = true, true
	if h.Screens && s.last.roster != nil && s.last.state != nil {
		// A client that draws (the UI) lays out its panes and subscribes
		// at once, on the last pass's roster and state; the pass this
		// register pokes sends what changed since. Others (office wait,
		// events) act on the state they read, so they wait for that pass.
		c.setRoster(s.last.roster, s.last.insts)
		c.setState(s.last.state)
	}
	s.clients[c.id] = c
	s.Poke()
	c.signal()
	return c
}

func (s *Server) unregister(c *client) {
	s.mu.Lock()
	delete(s.clients, c.id)
	s.resizeLocked()
	s.mu.Unlock()
	c.stop()
}

// touch makes c the most recently active client (keys, a resize); the
// agents' sizes follow it.
func (s *Server) touch(c *client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.shows.active == s.activity {
		return // already the latest
	}
	s.activity++
	c.shows.active = s.activity
	s.resizeLocked()
}

// resizeLocked applies the resize rule: each agent gets the pane size of the
// most recently active client that shows it, and is resized only when that
// differs from its current size. s.mu must be held.
func (s *Server) resizeLocked() {
	for _, a := range s.office.Agents() {
		if a.Term == nil {
			continue
		}
		var want wire.Size
		var at int64 = -1
		for _, c := range s.clients {
			if sz, ok := c.shows.panes[a.Config.Name]; ok && c.shows.active > at {
				want, at = sz, c.shows.active
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
			c.markDirty(a.Config.Name)
		}
	}
}

// instance returns t's instance number (a new one for each terminal).
func (s *Server) instanceLocked(t *pool.Terminal) int64 {
	if t == nil {
		return 0
	}
	n, ok := s.inst.of[t]
	if !ok {
		s.inst.next++
		n = s.inst.next
		s.inst.of[t] = n
	}
	return n
}
