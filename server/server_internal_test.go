package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"office/pool"
	"office/wire"
)

// TestPassIntervalSleepsWhileQuiet: with every agent settled and nothing
// queued or held, the state loop sleeps quietTick (requests, calls and
// terminal events wake it); anything that can change without an event
// keeps it at stateTick.
func TestPassIntervalSleepsWhileQuiet(t *testing.T) {
	idle := wire.AgentState{Name: "a", Status: "idle"}
	for _, c := range []struct {
		name  string
		a     wire.AgentState
		since time.Duration
		want  time.Duration
	}{
		{"quiet", idle, time.Minute, quietTick},
		{"busy agents change by terminal events", wire.AgentState{Name: "a", Status: "busy"}, time.Minute, quietTick},
		{"just changed: the drain's trailing writes", idle, stateLinger - time.Millisecond, stateTick},
		{"a message queued", wire.AgentState{Name: "a", Status: "idle", Queued: 1}, time.Minute, stateTick},
		{"a hold", wire.AgentState{Name: "a", Status: "idle", Hold: "cooling down"}, time.Minute, stateTick},
		{"starting", wire.AgentState{Name: "a", Status: "starting"}, time.Minute, stateTick},
	} {
		st := wire.State{Agents: []wire.AgentState{{Name: "b", Status: "idle"}, c.a}}
		if got := passInterval(st, c.since); got != c.want {
			t.Errorf("%s: passInterval = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFocusedScreenSkipsTheFramePace: a change of the client's focused
// agent's screen (a typed key's echo) is flushed at once, a background
// one waits for the frame pace, and replies or events alone never wait;
// neither does the first screen of an agent newly subscribed to.
func TestFocusedScreenSkipsTheFramePace(t *testing.T) {
	s := &Server{office: noAgents{}}
	c := &client{s: s, hello: wire.Hello{Screens: true}, scr: screenWant{dirty: map[string]bool{}}, wake: make(chan struct{}, 1)}
	c.view(wire.View{Focus: "front"})
	if !c.urgent() {
		t.Error("nothing but events or replies pending waits for the frame pace")
	}
	s.mu.Lock()
	c.markDirty("back")
	s.mu.Unlock()
	if c.urgent() {
		t.Error("a background screen skips the frame pace")
	}
	s.mu.Lock()
	c.markDirty("front")
	s.mu.Unlock()
	if !c.urgent() {
		t.Error("the focused agent's screen waits for the frame pace")
	}

	// Subscribed to back only: front's changes are not pending at all.
	c.subscribe(wire.Subscribe{Agents: []string{"back"}})
	s.mu.Lock()
	c.scr.dirty, c.scr.fresh = map[string]bool{}, nil
	c.markDirty("front")
	c.markDirty("back")
	s.mu.Unlock()
	if c.urgent() || c.scr.dirty["front"] {
		t.Errorf("a change of an agent not subscribed to is pending (%v) or skips the pace", c.scr.dirty)
	}
	// side newly subscribed: its first screen goes at once.
	c.subscribe(wire.Subscribe{Agents: []string{"back", "side"}})
	if !c.urgent() || !c.scr.dirty["side"] {
		t.Errorf("a newly subscribed agent's first screen waits for the frame pace (dirty %v)", c.scr.dirty)
	}
}

// TestNewDrawingClientGetsTheLastPass: a client that draws gets the last
// pass's roster and state at register, before any pass of its own; one that
// acts on the state (events, office wait) gets nothing until a fresh pass.
func TestNewDrawingClientGetsTheLastPass(t *testing.T) {
	s := &Server{office: noAgents{}, clients: map[int64]*client{}, wake: loopWake{ch: make(chan struct{}, 1)}}
	// No pass yet: nothing to hand over.
	if c := s.register(nil, nil, wire.Hello{Screens: true, Subscribe: true}, 0); c.out.roster != nil || c.out.state != nil {
		t.Fatalf("before any pass a client got roster %q, state %q", c.out.roster, c.out.state)
	}
	s.last.roster, s.last.insts, s.last.state = []byte(`{"t":"roster"}`), map[string]int64{"a": 1}, []byte(`{"t":"state"}`)
	ui := s.register(nil, nil, wire.Hello{Screens: true, Subscribe: true, Events: true}, 0)
	if string(ui.out.roster) != `{"t":"roster"}` || string(ui.out.state) != `{"t":"state"}` || !ui.out.rosterDirty || !ui.out.stateDirty || ui.out.insts["a"] != 1 {
		t.Errorf("a drawing client got roster %q (dirty %v), state %q (dirty %v), instances %v; want the last pass's, pending",
			ui.out.roster, ui.out.rosterDirty, ui.out.state, ui.out.stateDirty, ui.out.insts)
	}
	if w := s.register(nil, nil, wire.Hello{Events: true}, 0); w.out.roster != nil || w.out.state != nil {
		t.Errorf("an events-only client got the last pass's roster %q and state %q; it must wait for a fresh pass", w.out.roster, w.out.state)
	}
	select {
	case <-s.wake.ch:
	default:
		t.Error("register did not poke the loop for a fresh pass")
	}
}

// noAgents is an office with no agents and nothing in its store.
type noAgents struct{}

func (noAgents) Agents() []*Agent                                         { return nil }
func (noAgents) Agent(string) (*Agent, bool)                              { return nil, false }
func (noAgents) State(context.Context) (wire.State, error)                { return wire.State{T: wire.TState}, nil }
func (noAgents) Restate(wire.State) wire.State                            { return wire.State{T: wire.TState} }
func (noAgents) LastEvent(context.Context) (int64, error)                 { return 0, nil }
func (noAgents) Events(context.Context, int64, int) ([]wire.Event, error) { return nil, nil }
func (noAgents) Call(Request) (any, error)                                { return nil, nil }
func (noAgents) Judge(error) (bool, string)                               { return false, "" }

// A check with the socket in place leaves the listener as it is; one with
// the socket removed makes it again, 0600 (the engine's watch runs the
// check: TestRemovedSocketIsMadeAgain).
func TestCheckSocketKeepsAGoodListener(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, err := Start(Options{Office: noAgents{}, StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(wire.Bye{Reason: "test over"})
	srv.mu.Lock()
	cln := srv.sock.ln
	srv.mu.Unlock()
	if err := srv.CheckSocket(); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	same := srv.sock.ln == cln
	srv.mu.Unlock()
	if !same {
		t.Error("a check replaced a clients' socket that was fine")
	}
	sock := filepath.Join(dir, wire.SocketFile)
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	if err := srv.CheckSocket(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("after the check: %v, want a 0600 socket", st.Mode())
	}
}

// TestAGateChangeIsPassedWithoutAStoreRead: a terminal's draft or picker
// changing (the person's first key of a line) wakes the state loop without
// marking the store changed, and such a pass takes the terminals' state
// from Restate and reads nothing of the store; a status change, or a
// poke, marks the store for the next pass.
func TestAGateChangeIsPassedWithoutAStoreRead(t *testing.T) {
	t.Parallel()
	o := &countingOffice{}
	s := &Server{office: o, clients: map[int64]*client{}, wake: loopWake{ch: make(chan struct{}, 1)}}
	woken := func() bool {
		select {
		case <-s.wake.ch:
			return true
		default:
			return false
		}
	}
	s.TerminalEvent(pool.Event{Agent: "a", Kind: pool.EventGate})
	if !woken() || s.wake.store.Load() {
		t.Fatalf("a gate change: the store marked %v; want the loop woken, the store not marked", s.wake.store.Load())
	}
	var st loopState
	st.state, st.last = []byte(`{"t":"state"}`), wire.State{T: wire.TState, Agents: []wire.AgentState{{Name: "a", Queued: 2}}}
	s.pass(&st, false)
	if o.states != 0 || o.events != 0 || o.restates != 1 {
		t.Errorf("a pass without the store: State %d, Events %d, Restate %d calls; want 0, 0, 1", o.states, o.events, o.restates)
	}
	if len(o.restated.Agents) != 1 || o.restated.Agents[0].Queued != 2 {
		t.Errorf("Restate was given %+v, want the last state read", o.restated)
	}
	for _, kind := range []pool.EventKind{pool.EventStatus, pool.EventExit, pool.EventTurnEnd} {
		s.wake.store.Store(false)
		s.TerminalEvent(pool.Event{Agent: "a", Kind: kind})
		if !woken() || !s.wake.store.Load() {
			t.Errorf("terminal event %d: the loop woken without the store marked", kind)
		}
	}
	s.wake.store.Store(false)
	s.Poke()
	if !woken() || !s.wake.store.Swap(false) {
		t.Error("a poke did not mark the store")
	}
	s.pass(&st, true)
	if o.states != 1 || o.events != 1 {
		t.Errorf("a pass with the store: State %d, Events %d calls; want 1 each", o.states, o.events)
	}
}

// countingOffice is noAgents counting the reads a pass makes.
type countingOffice struct {
	noAgents
	states, events, restates int
	restated                 wire.State
}

func (o *countingOffice) State(context.Context) (wire.State, error) {
	o.states++
	return wire.State{T: wire.TState}, nil
}

func (o *countingOffice) Events(context.Context, int64, int) ([]wire.Event, error) {
	o.events++
	return nil, nil
}

func (o *countingOffice) Restate(last wire.State) wire.State {
	o.restates++
	o.restated = last
	return last
}
