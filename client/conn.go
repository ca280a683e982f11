package client

// conn.go is one connection to the server: the handshake, the reader that
// keeps the roster, state and screens current, and the calls and intents.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"office/pool"
	"office/wire"
)

// Options say what a connection asks for.
type Options struct {
	// Client names the program in the server's log.
	Client string
	// Screens asks for every agent's screen; with Subscribe, only the
	// screens of the agents named by the last Conn.Subscribe (none before
	// it): the client holds no copy of the others.
	Screens   bool
	Subscribe bool
	// Events asks for the event stream (Events), of Agents only when set,
	// resumed after Since when it is not 0, or replayed from the store
	// log's first event when FromStart is set.
	Events    bool
	Agents    []string
	Since     int64
	FromStart bool
	// EventsByWatch delivers events only to Watch functions: no Events
	// channel to drain.
	EventsByWatch bool
	// EventBuffer is the size of the Events channel (default 1024). When
	// it is full the connection stops reading until there is room (the
	// server then holds, and eventually drops, this client's updates, never
	// anybody else's).
	EventBuffer int
	// SendTimeout, when set, bounds one write to the server: a server that
	// stops reading this connection (it waits for room in a stuck agent's
	// input) gets the connection closed after it, and the write fails,
	// instead of holding the caller and every other sender for ever.
	SendTimeout time.Duration

	// rowsFrom is where the connection's row generations start (Session:
	// past the last connection's, so that a copy kept across a reconnect
	// never takes a row of the old connection for one of the new).
	rowsFrom uint64
}

// handshakeTimeout bounds Dial's handshake.
const handshakeTimeout = 10 * time.Second

// Conn is one connection to an office server. Its methods are safe for
// concurrent use.
type Conn struct {
	rw      io.ReadWriteCloser
	raw     syscall.RawConn // rw's descriptor for TryInput, or nil
	welcome wire.Welcome

	wmu sync.Mutex
	w   *wire.Writer

	mu      sync.Mutex
	roster  []wire.Agent
	state   wire.State
	screens map[string]*screen
	subs    map[string]bool // the screens subscribed to; nil: every agent's
	calls   map[int64]chan wire.Reply
	err     error

	watchers map[int]func(Change)
	nextW    int
	rowGen   uint64 // the last row generation given (screen.rows), guarded by mu

	sendTimeout time.Duration

	nextCall atomic.Int64
	changed  chan struct{}
	events   chan wire.Event
	done     chan struct{}
	closing  chan struct{}
	closeOne sync.Once
}

// screen is the client's copy of one agent's screen.
type screen struct {
	instance int64
	snap     pool.Snapshot
	// rows holds, per row of snap, the generation of the update that last
	// changed it (Conn.rowGen), for ScreenRows.
	rows    []uint64
	partial bool // a split update is under way
}

// Dial connects through tr and completes the handshake. A server that
// refuses (another protocol version, another user) gives a *wire.Refused.
func Dial(ctx context.Context, tr Transport, o Options) (*Conn, error) {
	rw, err := tr.Dial(ctx)
	if err != nil {
		return nil, err
	}
	c := &Conn{rw: rw, raw: rawConn(rw), w: wire.NewWriter(rw), screens: map[string]*screen{}, calls: map[int64]chan wire.Reply{}, watchers: map[int]func(Change){},
		changed: make(chan struct{}, 1), done: make(chan struct{}), closing: make(chan struct{}), sendTimeout: o.SendTimeout, rowGen: o.rowsFrom}
	if o.Events && !o.EventsByWatch {
		n := o.EventBuffer
		if n <= 0 {
			n = 1024
		}
		c.events = make(chan wire.Event, n)
	}
	h := wire.NewHello(o.Client)
	h.Screens, h.Subscribe, h.Events, h.Agents, h.Since, h.FromStart = o.Screens, o.Subscribe, o.Events, o.Agents, o.Since, o.FromStart
	if o.Screens && o.Subscribe {
		c.subs = map[string]bool{}
	}
	r := wire.NewReader(rw, wire.MaxServerFrame)
	type result struct {
		w   wire.Welcome
		err error
	}
	got := make(chan result, 1)
	go func() {
		if err := c.send(h); err != nil {
			got <- result{err: fmt.Errorf("office server on %s: send hello: %w", tr, err)}
			return
		}
		typ, p, err := r.Next()
		if err != nil {
			got <- result{err: fmt.Errorf("office server on %s: no answer to hello: %w", tr, err)}
			return
		}
		switch typ {
		case wire.TWelcome:
			var w wire.Welcome
			err := wire.Decode(p, &w)
			got <- result{w: w, err: err}
		case wire.TRefused:
			var rf wire.Refused
			if err := wire.Decode(p, &rf); err != nil {
				got <- result{err: err}
				return
			}
			got <- result{err: &rf}
		default:
			got <- result{err: fmt.Errorf("office server on %s: answered hello with %q", tr, typ)}
		}
	}()
	timer := time.NewTimer(handshakeTimeout)
	defer timer.Stop()
	var res result
	select {
	case res = <-got:
	case <-ctx.Done():
		rw.Close()
		return nil, ctx.Err()
	case <-timer.C:
		rw.Close()
		return nil, fmt.Errorf("office server on %s: no answer to hello within %v", tr, handshakeTimeout)
	}
	if res.err != nil {
		rw.Close()
		return nil, res.err
	}
	c.welcome = res.w
	go c.readLoop(r)
	return c, nil
}

// Welcome returns the server's welcome (its pid, state dir, config).
func (c *Conn) Welcome() wire.Welcome { return c.welcome }

// Done is closed when the connection ends; Err then says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended (nil while it runs). A server that
// said Bye gives *ByeError.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// ByeError is the end of a connection the server closed on purpose; Failure
// is set when it stopped because something failed (wire.Bye.Error).
type ByeError struct{ Reason, Failure string }

func (b *ByeError) Error() string { return "the office server closed the connection: " + b.Reason }

// Close ends the connection (a detach: the server and its agents go on).
func (c *Conn) Close() error {
	c.closeOne.Do(func() { close(c.closing) })
	err := c.rw.Close()
	<-c.done
	return err
}

// Changed receives a value after any change of roster, state or screens
// (several changes may merge into one). Read the new state with Roster,
// State and Screen.
func (c *Conn) Changed() <-chan struct{} { return c.changed }

// Events returns the event stream (nil unless Options.Events); it is closed
// when the connection ends.
func (c *Conn) Events() <-chan wire.Event { return c.events }

// Roster returns the agents in order.
func (c *Conn) Roster() []wire.Agent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wire.Agent(nil), c.roster...)
}

// State returns the office's live state.
func (c *Conn) State() wire.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.state
	s.Agents = append([]wire.AgentState(nil), s.Agents...)
	return s
}

// Generation returns the generation of agent's screen copy (0: none yet).
func (c *Conn) Generation(agent string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.screens[agent]; s != nil {
		return s.snap.Generation
	}
	return 0
}

// Screen copies agent's screen into dst (reusing dst.Cells) and reports
// whether there is one.
func (c *Conn) Screen(agent string, dst *pool.Snapshot) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.screens[agent]
	if s == nil || s.snap.Cols == 0 {
		return false
	}
	cells := append(dst.Cells[:0], s.snap.Cells...)
	*dst = s.snap
	dst.Cells = cells
	return true
}

// ScreenRows brings dst up to agent's screen, copying only the rows that
// changed: rows holds, per row, the generation dst's row was copied at, and
// is updated. dst must hold what this connection's Screen or ScreenRows put
// there when rows was recorded; an empty rows, or a size that changed,
// copies every row. It reports whether there is a screen (false leaves dst
// and rows alone).
func (c *Conn) ScreenRows(agent string, dst *pool.Snapshot, rows *[]uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.screens[agent]
	if s == nil || s.snap.Cols == 0 || len(s.rows) != s.snap.Rows {
		return false
	}
	cols, n := s.snap.Cols, s.snap.Rows
	cells := dst.Cells
	if all := dst.Cols != cols || dst.Rows != n || len(cells) != cols*n || len(*rows) != n; all {
		cells = append(cells[:0], s.snap.Cells...)
		*rows = append((*rows)[:0], s.rows...)
	} else {
		for y, g := range s.rows {
			if (*rows)[y] != g {
				copy(cells[y*cols:(y+1)*cols], s.snap.Cells[y*cols:(y+1)*cols])
				(*rows)[y] = g
			}
		}
	}
	*dst = s.snap
	dst.Cells = cells
	return true
}

// rowsNow is the last row generation this connection gave.
func (c *Conn) rowsNow() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rowGen
}

// ChangeKind says what changed.
type ChangeKind int

// The kinds of Change.
const (
	// ChangeScreen: Agent's screen changed (a whole update was applied).
	ChangeScreen ChangeKind = iota
	// ChangeRoster: agents were added, removed or restarted.
	ChangeRoster
	// ChangeState: the office's state changed (statuses, holds, queue
	// depths, pause flags).
	ChangeState
	// ChangeEvent: Event arrived (Options.Events).
	ChangeEvent
	// ChangeGone: the connection ended (Err says why).
	ChangeGone
)

// Change tells a Watch function what changed; read the new state with
// Roster, State and Screen.
type Change struct {
	Kind  ChangeKind
	Agent string
	Event wire.Event
}

// Watch calls fn for every change until stop is called. fn runs on the
// connection's reader and must not block (the server then holds, and
// eventually drops, this client's updates).
func (c *Conn) Watch(fn func(Change)) (stop func()) {
	c.mu.Lock()
	c.nextW++
	id := c.nextW
	c.watchers[id] = fn
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(c.watchers, id)
		c.mu.Unlock()
	}
}

// fire calls the watchers with ch.
func (c *Conn) fire(ch Change) {
	c.mu.Lock()
	fns := make([]func(Change), 0, len(c.watchers))
	for _, fn := range c.watchers {
		fns = append(fns, fn)
	}
	c.mu.Unlock()
	for _, fn := range fns {
		fn(ch)
	}
}

func (c *Conn) notify() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// send writes one message.
func (c *Conn) send(m any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.sendTimeout > 0 {
		return c.sendBounded(m)
	}
	if err := c.w.Write(m); err != nil {
		return err
	}
	return c.w.Flush()
}

// readLoop applies what the server sends until the connection ends.
func (c *Conn) readLoop(r *wire.Reader) {
	err := c.read(r)
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	for id, ch := range c.calls {
		close(ch)
		delete(c.calls, id)
	}
	c.mu.Unlock()
	c.rw.Close()
	if c.events != nil {
		close(c.events)
	}
	close(c.done)
	c.notify()
	c.fire(Change{Kind: ChangeGone})
}

func (c *Conn) read(r *wire.Reader) error {
	for {
		typ, p, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("the office server closed the connection")
			}
			return fmt.Errorf("reading from the office server: %w", err)
		}
		switch typ {
		case wire.TRoster:
			var m wire.Roster
			if err := wire.Decode(p, &m); err != nil {
				return err
			}
			c.mu.Lock()
			c.roster = m.Agents
			keep := map[string]bool{}
			for _, a := range m.Agents {
				keep[a.Name] = true
			}
			for name := range c.screens {
				if !keep[name] {
					delete(c.screens, name)
				}
			}
			c.mu.Unlock()
			c.notify()
			c.fire(Change{Kind: ChangeRoster})
		case wire.TState:
			var m wire.State
			if err := wire.Decode(p, &m); err != nil {
				return err
			}
			c.mu.Lock()
			c.state = m
			c.mu.Unlock()
			c.notify()
			c.fire(Change{Kind: ChangeState})
		case wire.TScreen:
			var m wire.Screen
			if err := wire.Decode(p, &m); err != nil {
				return err
			}
			done, err := c.applyScreen(&m)
			if err != nil {
				return err
			}
			if done {
				c.fire(Change{Kind: ChangeScreen, Agent: m.Agent})
			}
		case wire.TEvent:
			var m wire.Event
			if err := wire.Decode(p, &m); err != nil {
				return err
			}
			c.fire(Change{Kind: ChangeEvent, Agent: m.Agent, Event: m})
			if c.events == nil {
				continue
			}
			select {
			case c.events <- m:
			case <-c.closing:
				return errors.New("closed")
			}
		case wire.TReply:
			var m wire.Reply
			if err := wire.Decode(p, &m); err != nil {
				return err
			}
			c.mu.Lock()
			ch := c.calls[m.ID]
			delete(c.calls, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case wire.TBye:
			var m wire.Bye
			_ = wire.Decode(p, &m)
			return &ByeError{Reason: m.Reason, Failure: m.Error}
		}
	}
}

// applyScreen applies one screen update to the agent's copy; done says a
// whole update is in (the last part of a split one).
func (c *Conn) applyScreen(m *wire.Screen) (done bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs != nil && !c.subs[m.Agent] {
		return false, nil // sent before the server read the last Subscribe
	}
	s := c.screens[m.Agent]
	if s == nil || s.instance != m.Instance {
		if !m.Full {
			return false, nil // for a copy we no longer have; a full one follows
		}
		s = &screen{instance: m.Instance}
		c.screens[m.Agent] = s
	}
	if err := wire.Apply(&s.snap, m); err != nil {
		return false, err
	}
	// The rows this update replaced take a new generation; a full or
	// scrolled screen's every row does.
	c.rowGen++
	if n := s.snap.Rows; m.Full || m.Scroll != 0 || len(s.rows) != n {
		s.rows = slices.Grow(s.rows[:0], n)[:n]
		for y := range s.rows {
			s.rows[y] = c.rowGen
		}
	} else {
		for _, l := range m.Lines {
			s.rows[l.Y] = c.rowGen // Apply checked l.Y
		}
	}
	s.partial = m.More
	if !m.More {
		c.notifyLocked()
	}
	return !m.More, nil
}

func (c *Conn) notifyLocked() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// Input sends the person's keys (raw bytes, already encoded for the agent's
// modes) to agent.
func (c *Conn) Input(agent string, p []byte) error {
	return c.send(wire.Input{T: wire.TInput, Agent: agent, Data: p})
}

// SetView tells the server the focused agent and each shown agent's pane
// size; resized says the person's terminal was resized (this client becomes
// the most recently active one, whose sizes win).
func (c *Conn) SetView(focus string, panes map[string]wire.Size, resized bool) error {
	return c.send(wire.View{T: wire.TView, Focus: focus, Panes: panes, Resized: resized})
}

// Subscribe names every agent whose screen the client draws now, replacing
// the last subscription (docs/protocol.md, "subscribe"): the copies of the
// others are dropped at once, and their screens are no longer sent; each
// newly named agent's screen comes whole, then its changes. The roster and
// every agent's state keep coming.
func (c *Conn) Subscribe(agents []string) error {
	subs := make(map[string]bool, len(agents))
	for _, a := range agents {
		subs[a] = true
	}
	c.mu.Lock()
	c.subs = subs
	for name := range c.screens {
		if !subs[name] {
			delete(c.screens, name)
		}
	}
	c.mu.Unlock()
	return c.send(wire.Subscribe{T: wire.TSubscribe, Agents: agents})
}

// CallError is an error the server answered a call with.
type CallError struct {
	Op, Msg string
	// Reason is what was wrong without the server's context (its
	// wire.Reply.Reason), "" when the server gave none.
	Reason string
	// Input: the server said the call's input was at fault
	// (wire.Reply.Input); nothing was changed.
	Input bool
}

func (e *CallError) Error() string { return e.Msg }

// PersonMessage is what to show a person: the server's Reason when it gave
// one, else the whole message.
func (e *CallError) PersonMessage() string {
	if e.Reason != "" {
		return e.Reason
	}
	return e.Msg
}

// Call runs op on the server with args (any JSON-encodable value, or nil)
// and decodes the answer into out (may be nil).
func (c *Conn) Call(ctx context.Context, op, agent string, args, out any) error {
	m := wire.Call{T: wire.TCall, ID: c.nextCall.Add(1), Op: op, Agent: agent}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		m.Args = b
	}
	ch := make(chan wire.Reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.calls[m.ID] = ch
	c.mu.Unlock()
	if err := c.send(m); err != nil {
		c.mu.Lock()
		delete(c.calls, m.ID)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", op, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", op, c.Err())
		}
		if r.Error != "" {
			return &CallError{Op: op, Msg: r.Error, Reason: r.Reason, Input: r.Input}
		}
		if out != nil && len(r.Data) > 0 {
			if err := json.Unmarshal(r.Data, out); err != nil {
				return fmt.Errorf("%s: decode answer: %w", op, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.calls, m.ID)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Do runs op (wire/ops.go declares each call's arguments and answer) on
// the server for agent ("" when the call names none) and returns its answer.
func Do[A, R any](ctx context.Context, c *Conn, op wire.Op[A, R], agent string, args A) (R, error) {
	var out R
	var in any
	if _, none := any(args).(wire.None); !none {
		in = args
	}
	var dst any = &out
	if _, none := any(out).(wire.None); none {
		dst = nil
	}
	err := c.Call(ctx, op.Name, agent, in, dst)
	return out, err
}

// Enqueue queues text for agent (as `office send` does) and returns its id.
func (c *Conn) Enqueue(ctx context.Context, agent, text string) (wire.EnqueueResult, error) {
	return Do(ctx, c, wire.OpEnqueue, agent, wire.EnqueueArgs{Text: text, Source: "client"})
}

// Queue lists the queued messages of agent ("" all) with why each is held.
func (c *Conn) Queue(ctx context.Context, agent string) ([]wire.QueuedMessage, error) {
	return Do(ctx, c, wire.OpQueueList, agent, wire.QueueListArgs{})
}

// Release sends message id now (it ignores pause).
func (c *Conn) Release(ctx context.Context, id int64) error {
	_, err := Do(ctx, c, wire.OpQueueRelease, "", wire.IDArgs{ID: id})
	return err
}

// Remove deletes message id.
func (c *Conn) Remove(ctx context.Context, id int64) error {
	_, err := Do(ctx, c, wire.OpQueueRemove, "", wire.IDArgs{ID: id})
	return err
}

// Clear deletes every message queued for agent.
func (c *Conn) Clear(ctx context.Context, agent string) error {
	_, err := Do(ctx, c, wire.OpQueueClear, agent, wire.None{})
	return err
}

// Pause stops automatic delivery to agent, or to the floor when agent is "".
func (c *Conn) Pause(ctx context.Context, agent string) error {
	_, err := Do(ctx, c, wire.OpPause, agent, wire.None{})
	return err
}

// Resume restarts automatic delivery to agent; with "" it clears the floor
// flag and every agent's.
func (c *Conn) Resume(ctx context.Context, agent string) error {
	_, err := Do(ctx, c, wire.OpResume, agent, wire.None{})
	return err
}

// SetFloorPaused sets the floor-wide pause flag alone (agents' own flags
// stay as they are).
func (c *Conn) SetFloorPaused(ctx context.Context, paused bool) error {
	_, err := Do(ctx, c, wire.OpFloor, "", wire.FloorArgs{Paused: paused})
	return err
}

// ClosePicker sends Esc for the person and releases the picker latch.
func (c *Conn) ClosePicker(ctx context.Context, agent string) error {
	_, err := Do(ctx, c, wire.OpPickerClose, agent, wire.None{})
	return err
}

// RecoverPrompt sends Ctrl-U for the person and returns the draft it cleared.
func (c *Conn) RecoverPrompt(ctx context.Context, agent string) (string, error) {
	r, err := Do(ctx, c, wire.OpPromptRecover, agent, wire.None{})
	return r.Text, err
}

// AddAgent adds an agent to the running office (spec as `office team add`
// takes it: name, profile, command, ...; a wire.TeamSpec or any value of
// its JSON shape).
func (c *Conn) AddAgent(ctx context.Context, spec any) error {
	return c.Call(ctx, wire.OpTeamAdd.Name, "", map[string]any{"spec": spec}, nil)
}

// Restart stops agent's process and starts it again.
func (c *Conn) Restart(ctx context.Context, agent string) error {
	_, err := Do(ctx, c, wire.OpRestart, agent, wire.None{})
	return err
}

// Message returns where message id is now.
func (c *Conn) Message(ctx context.Context, id int64) (wire.MessageFate, error) {
	return Do(ctx, c, wire.OpMessage, "", wire.IDArgs{ID: id})
}

// Stop asks the server to stop the office (its agents end; queue, inbox and
// mail are kept). The connection then ends with a *ByeError. The server's
// goodbye can come before its reply (the stop it began closes every
// connection): that is the stop under way, not an error.
func (c *Conn) Stop(ctx context.Context) error {
	if _, err := Do(ctx, c, wire.OpStop, "", wire.None{}); err != nil && !Stopping(err) {
		return err
	}
	return nil
}

// Stopping reports whether err says the office is stopping: the server's
// goodbye for that reason, or its refusal of a connection as it stops.
func Stopping(err error) bool {
	var bye *ByeError
	var rf *wire.Refused
	return errors.As(err, &bye) && bye.Reason == wire.ReasonStopping ||
		errors.As(err, &rf) && rf.Reason == wire.ReasonStopping
}
