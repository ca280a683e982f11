package engine

// server_client.go is one attached client: its reader (keys, view, calls)
// and its writer, which sends what is pending: the latest roster and state,
// queued events and replies, and the screens that changed since the last
// flush as diffs against what this client already has.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"office/pool"
	"office/wire"
)

// client is one connection. Fields under "guarded by s.mu" are shared with
// the server's goroutines; the rest belong to the writer.
type client struct {
	id    int64
	s     *server
	conn  net.Conn
	w     *wire.Writer
	hello wire.Hello

	// guarded by s.mu
	active      int64
	panes       map[string]wire.Size
	agents      map[string]bool // event filter; nil: all
	seq         int64           // last store event queued for it
	dirty       map[string]bool
	rosterDirty bool
	roster      []byte
	insts       map[string]int64
	stateDirty  bool
	state       []byte
	pending     [][]byte // welcome, events, replies, bye, in order
	focus       string   // the agent the client shows focused (View.Focus)
	lost        int
	closing     bool

	wake  chan struct{}
	quit  chan struct{} // closed by stop
	gone  chan struct{} // closed when the writer returns
	calls chan struct{} // call slots

	// writer only
	sent      map[string]*sentScreen
	cur       pool.Snapshot
	curGens   []uint64
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

// markDirty records that agent's screen changed. s.mu must be held.
func (c *client) markDirty(agent string) {
	c.dirty[agent] = true
	c.signal()
}

// setRoster queues the latest roster. s.mu must be held.
func (c *client) setRoster(b []byte, insts map[string]int64) {
	c.roster, c.insts, c.rosterDirty = b, insts, true
	if c.hello.Screens {
		for name := range insts {
			c.dirty[name] = true
		}
	}
	c.signal()
}

// setState queues the latest state. s.mu must be held.
func (c *client) setState(b []byte) {
	c.state, c.stateDirty = b, true
	c.signal()
}

// want reports whether the client's event filter takes agent's events.
func (c *client) want(agent string) bool { return c.agents == nil || agent == "" || c.agents[agent] }

// addEvents queues events for the client. s.mu must be held.
func (c *client) addEvents(live, stored []wire.Event, upTo int64) {
	for _, ev := range stored {
		if ev.Seq <= c.seq {
			continue
		}
		c.seq = ev.Seq
		if c.want(ev.Agent) {
			c.push(ev)
		}
	}
	if upTo > c.seq {
		c.seq = upTo
	}
	for _, ev := range live {
		if c.want(ev.Agent) {
			c.push(ev)
		}
	}
}

// push queues one event, or counts it lost when the queue is full.
func (c *client) push(ev wire.Event) {
	if len(c.pending) >= maxPendingEvents {
		c.lost++
		return
	}
	ev.T = wire.TEvent
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	c.pending = append(c.pending, b)
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
	c.pending = append(c.pending, b)
	c.signal()
	c.s.mu.Unlock()
}

// bye queues Bye; the writer closes the connection after sending it.
func (c *client) bye(m wire.Bye) {
	m.T = wire.TBye
	b, _ := json.Marshal(m)
	c.s.mu.Lock()
	c.pending = append(c.pending, b)
	c.closing = true
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
		for wait := frameInterval - time.Since(c.lastFlush); wait > 0 && !c.urgent(); wait = frameInterval - time.Since(c.lastFlush) {
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
	if c.focus != "" && c.dirty[c.focus] {
		return true
	}
	return len(c.dirty) == 0
}

// flush writes everything pending, then the changed screens.
func (c *client) flush() (closing bool, err error) {
	s := c.s
	s.mu.Lock()
	pending := c.pending
	c.pending = nil
	lost := c.lost
	c.lost = 0
	var roster, state []byte
	var insts map[string]int64
	if c.rosterDirty && c.roster != nil {
		roster, insts = c.roster, c.insts
		c.rosterDirty = false
	}
	if c.stateDirty && c.state != nil {
		state = c.state
		c.stateDirty = false
	}
	var dirty map[string]bool
	if len(c.dirty) > 0 {
		dirty, c.dirty = c.dirty, map[string]bool{}
	}
	closing = c.closing
	s.mu.Unlock()

	_ = c.conn.SetWriteDeadline(time.Now().Add(writeStall))
	// The welcome (the first pending frame) goes before anything else.
	if len(pending) > 0 && c.lastFlush.IsZero() {
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
		if err := c.screens(dirty); err != nil {
			return false, err
		}
	}
	c.lastFlush = time.Now()
	return closing, c.w.Flush()
}

// forget drops what the client has of agents gone from the roster or of an
// older instance: their next screen is full.
func (c *client) forget(insts map[string]int64) {
	for name, ss := range c.sent {
		if inst, ok := insts[name]; !ok || inst != ss.instance {
			delete(c.sent, name)
		}
	}
}

// screens writes the changes of the dirty agents' screens. Each frame is
// flushed to the socket as it is encoded, so a large update does not pile
// up in memory.
func (c *client) screens(dirty map[string]bool) error {
	for _, a := range c.s.e.Agents() {
		name := a.Config.Name
		if !dirty[name] || a.Term == nil {
			continue
		}
		c.s.mu.Lock()
		inst := c.s.instanceLocked(a.Term)
		c.s.mu.Unlock()
		ss := c.sent[name]
		if ss == nil || ss.instance != inst {
			ss = &sentScreen{instance: inst}
			c.sent[name] = ss
		}
		// c.cur starts as what the client has and takes from the screen
		// only the rows that changed since (a spinner: one row, not 40).
		c.cur.Cells = append(c.cur.Cells[:0], ss.snap.Cells...)
		c.cur.Cols, c.cur.Rows = ss.snap.Cols, ss.snap.Rows
		c.curGens = append(c.curGens[:0], ss.gens...)
		a.Term.SnapshotRows(&c.cur, &c.curGens)
		ups := wire.Diff(name, inst, &ss.snap, &c.cur)
		if u := ups[0]; len(ups) == 1 && !u.Full && u.Scroll == 0 && len(u.Lines) == 0 && u.Cursor == nil && u.Title == nil && u.Modes == nil {
			ss.snap.Generation = c.cur.Generation
			ss.gens, c.curGens = c.curGens, ss.gens
			continue // nothing the client can see changed
		}
		for i := range ups {
			if err := c.w.Write(&ups[i]); err != nil {
				return err
			}
		}
		ss.snap, c.cur = c.cur, ss.snap
		ss.gens, c.curGens = c.curGens, ss.gens
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
		case wire.TCall:
			var m wire.Call
			if err := wire.Decode(p, &m); err != nil {
				return
			}
			c.call(m)
		}
	}
}

// input types the person's keys into an agent through its line model.
func (c *client) input(m wire.Input) {
	c.s.touch(c)
	a, ok := c.s.e.Agent(m.Agent)
	if !ok || a.Term == nil {
		return
	}
	if err := a.Term.Input(m.Data); err != nil {
		c.s.log.Debug("client input", "client", c.id, "agent", m.Agent, "err", err)
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
	c.panes = panes
	c.focus = m.Focus
	if m.Resized && c.active != s.activity {
		s.activity++
		c.active = s.activity
	}
	s.resizeLocked()
	s.mu.Unlock()
}

// call runs one call on its own goroutine, at most maxCallsInFlight at once.
func (c *client) call(m wire.Call) {
	select {
	case c.calls <- struct{}{}:
	default:
		c.reply(wire.Reply{ID: m.ID, Error: fmt.Sprintf("too many calls in flight (at most %d)", maxCallsInFlight)})
		return
	}
	go func() {
		defer func() { <-c.calls }()
		data, err := c.s.e.handle(Request{Op: m.Op, Agent: m.Agent, Args: m.Args})
		r := wire.Reply{ID: m.ID}
		if err != nil {
			r.Error = err.Error()
			var rf *Refusal
			if errors.As(err, &rf) {
				r.Reason = rf.Reason()
			}
		} else if data != nil {
			b, mErr := json.Marshal(data)
			if mErr != nil {
				r.Error = mErr.Error()
			} else {
				r.Data = b
			}
		}
		c.reply(r)
	}()
}
