package server

// client.go is one attached client: its reader (keys, view, calls)
// and its writer, which sends what is pending: the latest roster and state,
// queued events and replies, and the screens that changed since the last
// flush as diffs against what this client already has.

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"time"

	"office/pool"
	"office/wire"
)

// client is one connection: who it is, what it shows (shows), what it
// wants of the screens (scr) and what waits to be sent to it (out),
// the three guarded by s.mu as the server's goroutines share them, and the
// writer's own state (wr).
type client struct {
	id    int64
	s     *Server
	conn  net.Conn
	w     *wire.Writer
	hello wire.Hello

	shows clientView // guarded by s.mu
	scr   screenWant // guarded by s.mu
	out   outbox     // guarded by s.mu

	wake  chan struct{}
	quit  chan struct{} // closed by stop
	gone  chan struct{} // closed when the writer returns
	calls chan struct{} // call slots

	wr writerState // the writer's alone
}

// clientView is what a client shows: the resize rule and the needs-you
// notifier read it.
type clientView struct {
	active      int64                // its place in the order of activity (Server.activity)
	panes       map[string]wire.Size // its panes' sizes, by agent
	focus       string               // the agent the client shows focused (View.Focus)
	termFocused bool                 // its terminal has focus (wire.Focus, needs.go)
}

// screenWant is which screens a client takes and which of them changed.
type screenWant struct {
	dirty map[string]bool
	subs  map[string]bool // the screens it subscribed to; nil: every agent's (it never subscribed)
	fresh map[string]bool // newly subscribed: the next screen is full, and not paced
}

// outbox is what waits to be sent to a client: the latest roster and
// state (sent when dirty), its messages in order, and its place in the
// store's event log.
type outbox struct {
	agents      map[string]bool // event filter; nil: all
	seq         int64           // last store event queued for it
	rosterDirty bool
	roster      []byte
	insts       map[string]int64
	stateDirty  bool
	state       []byte
	pending     [][]byte // welcome, events, replies, bye, in order
	lost        int      // events dropped past maxPendingEvents, not yet told
	closing     bool
}

// writerState is the writer goroutine's own: what the client has of each
// screen, the snapshot being diffed, and when it last flushed.
type writerState struct {
	sent map[string]*sentScreen
	// cur is the update being made of a screen other than the focused
	// one: a copy of what the client has, brought up to the screen.
	cur sentScreen
	// spare is the focused agent's second copy (spareOf names it): what
	// the client had of it an update or more ago, with the generations its
	// rows were copied at. Its next update starts from it, so that it
	// copies from the screen only the rows changed since (a key's echo:
	// one or two rows), instead of starting from a copy of all of sent
	// (40 rows, 77 KB at 120×40, on every key's way).
	spare     sentScreen
	spareOf   string
	changed   []bool // which rows of cur may differ from sent (pool.RowsChanged)
	lastFlush time.Time
}

// sentScreen is what a client has of one agent's screen: the snapshot it
// was sent, and the screen's row generations that snapshot's rows were
// copied at (pool.Screen.SnapshotRows), so the next update copies from the
// screen only the rows that changed since.
type sentScreen struct {
	instance int64
	snap     pool.Snapshot
	gens     []uint64
}

func (c *client) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// stop ends the writer (idempotent).
func (c *client) stop() {
	c.s.mu.Lock()
	select {
	case <-c.quit:
	default:
		close(c.quit)
	}
	c.s.mu.Unlock()
}

// markDirty records that agent's screen changed, when the client takes
// its screen. s.mu must be held.
func (c *client) markDirty(agent string) {
	if !c.hello.Screens || (c.scr.subs != nil && !c.scr.subs[agent]) {
		return
	}
	c.scr.dirty[agent] = true
	c.signal()
}

// subscribe replaces the agents whose screens the client takes. What the
// writer holds of the others is dropped at its next flush; the newly named
// get a full screen at once.
func (c *client) subscribe(m wire.Subscribe) {
	subs := make(map[string]bool, min(len(m.Agents), wire.MaxPanes))
	for _, a := range m.Agents {
		if len(subs) >= wire.MaxPanes {
			break
		}
		subs[a] = true
	}
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	old := c.scr.subs
	c.scr.subs = subs
	for a := range c.scr.dirty {
		if !subs[a] {
			delete(c.scr.dirty, a)
		}
	}
	for a := range subs {
		if old == nil || old[a] {
			continue // the client has it, or is being sent it
		}
		if c.scr.fresh == nil {
			c.scr.fresh = map[string]bool{}
		}
		c.scr.fresh[a] = true
		delete(c.scr.dirty, a) // markDirty below sets it again
		c.markDirty(a)
	}
	c.signal() // the writer drops what it holds of the others
}

// setRoster queues the latest roster. s.mu must be held.
func (c *client) setRoster(b []byte, insts map[string]int64) {
	c.out.roster, c.out.insts, c.out.rosterDirty = b, insts, true
	for name := range insts {
		c.markDirty(name)
	}
	c.signal()
}

// setState queues the latest state. s.mu must be held.
func (c *client) setState(b []byte) {
	c.out.state, c.out.stateDirty = b, true
	c.signal()
}

// want reports whether the client's event filter takes agent's events.
func (c *client) want(agent string) bool {
	return c.out.agents == nil || agent == "" || c.out.agents[agent]
}

// addEvents queues events for the client. s.mu must be held.
func (c *client) addEvents(live, stored []wire.Event, upTo int64) {
	for _, ev := range stored {
		if ev.Seq <= c.out.seq {
			continue
		}
		c.out.seq = ev.Seq
		if c.want(ev.Agent) {
			c.push(ev)
		}
	}
	if upTo > c.out.seq {
		c.out.seq = upTo
	}
	for _, ev := range live {
		if c.want(ev.Agent) {
			c.push(ev)
		}
	}
}

// push queues one event, or counts it lost when the queue is full.
func (c *client) push(ev wire.Event) {
	if len(c.out.pending) >= maxPendingEvents {
		c.out.lost++
		return
	}
	ev.T = wire.TEvent
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	c.out.pending = append(c.out.pending, b)
	c.signal()
}

// reply queues a call's answer (never dropped: calls are bounded).
func (c *client) reply(r wire.Reply) {
	r.T = wire.TReply
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(wire.Reply{T: wire.TReply, ID: r.ID, Error: err.Error()})
	}
	c.s.mu.Lock()
	c.out.pending = append(c.out.pending, b)
	c.signal()
	c.s.mu.Unlock()
}

// bye queues Bye; the writer closes the connection after sending it.
func (c *client) bye(m wire.Bye) {
	m.T = wire.TBye
	b, _ := json.Marshal(m)
	c.s.mu.Lock()
	c.out.pending = append(c.out.pending, b)
	c.out.closing = true
	c.signal()
	c.s.mu.Unlock()
}

// writeLoop sends what is pending until the client goes.
func (c *client) writeLoop() {
	defer close(c.gone)
	defer c.conn.Close()
	var pace *time.Timer
	for {
		select {
		case <-c.quit:
			return
		case <-c.wake:
		}
		// Screens are flushed at most every frameInterval: what changes in
		// between is merged (the client skips the intermediate frames).
		// The focused agent's screen goes at once (a typed key's echo
		// waits for no frame), as do replies and events.
		for wait := frameInterval - time.Since(c.wr.lastFlush); wait > 0 && !c.urgent(); wait = frameInterval - time.Since(c.wr.lastFlush) {
			if pace == nil {
				pace = time.NewTimer(wait)
			} else {
				pace.Reset(wait)
			}
			select {
			case <-c.quit:
				return
			case <-pace.C:
			case <-c.wake: // more came: the focused screen may be among it
			}
		}
		closing, err := c.flush()
		if err != nil {
			c.s.log.Info("client write failed; detaching it", "client", c.id, "err", err)
			return
		}
		if closing {
			return
		}
	}
}

// urgent reports whether what is pending must not wait for the frame pace:
// the focused agent's screen changed, or only non-screen frames are pending.
func (c *client) urgent() bool {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.shows.focus != "" && c.scr.dirty[c.shows.focus] {
		return true
	}
	return len(c.scr.dirty) == 0 || len(c.scr.fresh) > 0
}

// flush writes everything pending, then the changed screens.
func (c *client) flush() (closing bool, err error) {
	s := c.s
	s.mu.Lock()
	pending := c.out.pending
	c.out.pending = nil
	lost := c.out.lost
	c.out.lost = 0
	var roster, state []byte
	var insts map[string]int64
	if c.out.rosterDirty && c.out.roster != nil {
		roster, insts = c.out.roster, c.out.insts
		c.out.rosterDirty = false
	}
	if c.out.stateDirty && c.out.state != nil {
		state = c.out.state
		c.out.stateDirty = false
	}
	var dirty map[string]bool
	if len(c.scr.dirty) > 0 {
		dirty, c.scr.dirty = c.scr.dirty, map[string]bool{}
	}
	subs, fresh := c.scr.subs, c.scr.fresh
	c.scr.fresh = nil
	closing = c.out.closing
	focus := c.shows.focus
	s.mu.Unlock()
	// What the client no longer subscribes to is forgotten (it drops its
	// copy too); the newly subscribed start from a full screen.
	for name := range c.wr.sent {
		if fresh[name] || (subs != nil && !subs[name]) {
			delete(c.wr.sent, name)
		}
	}

	_ = c.conn.SetWriteDeadline(time.Now().Add(writeStall))
	// The welcome (the first pending frame) goes before anything else.
	if len(pending) > 0 && c.wr.lastFlush.IsZero() {
		if err := c.w.WriteRaw(pending[0]); err != nil {
			return false, err
		}
		pending = pending[1:]
	}
	if roster != nil {
		if err := c.w.WriteRaw(roster); err != nil {
			return false, err
		}
		c.forget(insts)
	}
	if state != nil {
		if err := c.w.WriteRaw(state); err != nil {
			return false, err
		}
	}
	for _, b := range pending {
		if err := c.w.WriteRaw(b); err != nil {
			return false, err
		}
	}
	if lost > 0 {
		b, _ := json.Marshal(wire.Event{T: wire.TEvent, At: time.Now(), Type: wire.EventLost, Lost: lost})
		if err := c.w.WriteRaw(b); err != nil {
			return false, err
		}
	}
	if len(dirty) > 0 && !closing {
		if err := c.screens(dirty, focus); err != nil {
			return false, err
		}
	}
	c.wr.lastFlush = time.Now()
	return closing, c.w.Flush()
}

// forget drops what the client has of agents gone from the roster or of an
// older instance: their next screen is full.
func (c *client) forget(insts map[string]int64) {
	for name, ss := range c.wr.sent {
		if inst, ok := insts[name]; !ok || inst != ss.instance {
			delete(c.wr.sent, name)
		}
	}
}

// screens writes the changes of the dirty agents' screens (focus is the
// agent the client shows focused). Each frame is flushed to the socket as
// it is encoded, so a large update does not pile up in memory.
func (c *client) screens(dirty map[string]bool, focus string) error {
	for _, a := range c.s.office.Agents() {
		name := a.Config.Name
		if !dirty[name] || a.Term == nil {
			continue
		}
		c.s.mu.Lock()
		inst := c.s.instanceLocked(a.Term)
		c.s.mu.Unlock()
		ss := c.wr.sent[name]
		if ss == nil || ss.instance != inst {
			ss = &sentScreen{instance: inst}
			c.wr.sent[name] = ss
		}
		// cur starts as a copy of this screen the client had (what it has,
		// or for the focused agent the spare, an update or more behind) and
		// takes from the screen only the rows that changed since (a
		// spinner: one row, not 40).
		cur := &c.wr.cur
		if name == focus && c.wr.spareOf == name && c.wr.spare.instance == inst {
			cur = &c.wr.spare
		} else {
			if name == focus {
				c.wr.spareOf, c.wr.spare.instance = name, inst
				cur = &c.wr.spare
			}
			cur.snap.Cells = append(cur.snap.Cells[:0], ss.snap.Cells...)
			cur.snap.Cols, cur.snap.Rows = ss.snap.Cols, ss.snap.Rows
			cur.gens = append(cur.gens[:0], ss.gens...)
		}
		a.Term.SnapshotRows(&cur.snap, &cur.gens)
		c.wr.changed = pool.RowsChanged(c.wr.changed, ss.gens, cur.gens)
		ups := wire.DiffRows(name, inst, &ss.snap, &cur.snap, c.wr.changed)
		// Either way the client's copy becomes cur (equal to what it has
		// when nothing it can see changed) and cur what the client had.
		ss.snap, cur.snap = cur.snap, ss.snap
		ss.gens, cur.gens = cur.gens, ss.gens
		if u := ups[0]; len(ups) == 1 && !u.Full && u.Scroll == 0 && len(u.Lines) == 0 && u.Cursor == nil && u.Title == nil && u.Modes == nil {
			continue // nothing the client can see changed
		}
		for i := range ups {
			if err := c.w.Write(&ups[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// readLoop reads the client's messages until it goes. Unknown message types
// are ignored (a newer client's extras).
func (c *client) readLoop(r *wire.Reader) {
	for {
		typ, p, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.s.log.Info("client read", "client", c.id, "err", err)
			}
			return
		}
		switch typ {
		case wire.TInput:
			var m wire.Input
			if err := wire.Decode(p, &m); err != nil {
				return
			}
			c.input(m)
		case wire.TView:
			var m wire.View
			if err := wire.Decode(p, &m); err != nil {
				return
			}
			c.view(m)
		case wire.TSubscribe:
			var m wire.Subscribe
			if err := wire.Decode(p, &m); err != nil {
				return
			}
			c.subscribe(m)
		case wire.TFocus:
			var m wire.Focus
			if err := wire.Decode(p, &m); err != nil {
				return
			}
			c.setTermFocus(m.Focused)
		case wire.TCall:
			var m wire.Call
			if err := wire.Decode(p, &m); err != nil {
				return
			}
			c.call(m)
		}
	}
}

// view records the client's pane sizes and applies the resize rule.
func (c *client) view(m wire.View) {
	panes := make(map[string]wire.Size, len(m.Panes))
	for name, sz := range m.Panes {
		if len(panes) >= wire.MaxPanes {
			break
		}
		if sz.Valid() {
			panes[name] = sz
		}
	}
	s := c.s
	s.mu.Lock()
	c.shows.panes = panes
	c.shows.focus = m.Focus
	if m.Resized && c.shows.active != s.activity {
		s.activity++
		c.shows.active = s.activity
	}
	s.resizeLocked()
	s.mu.Unlock()
}
