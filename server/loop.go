package server

// loop.go is the state loop: while clients are attached it reads the
// roster, the office's state and the store's event log, and hands every
// client what changed (the roster and state as the latest values, the
// events in order, a resuming client's backlog first).

import (
	"context"
	"encoding/json"
	"time"

	"office/automation"
	"office/wire"
)

// loop keeps the office's state, the roster and the event stream current for
// every client. It does nothing while no client is attached.
func (s *Server) loop() {
	defer s.wg.Done()
	timer := time.NewTimer(quietTick)
	defer timer.Stop()
	var st loopState
	for {
		timed := false
		select {
		case <-s.done:
			return
		case <-s.wake.ch:
		case <-timer.C:
			timed = true
		}
		s.mu.Lock()
		n := len(s.clients)
		s.mu.Unlock()
		if n == 0 {
			// The next client starts from scratch (no live events for
			// what changed while nobody watched), except for the roster
			// and state last sent: a new client got those from
			// s.last.roster and s.last.state, and gets them again only if
			// they changed.
			st = loopState{roster: st.roster, state: st.state}
			timer.Reset(quietTick)
			continue
		}
		now := time.Now()
		// The store is read when someone said it changed, at every tick
		// (a change nobody announced) and when the last read failed.
		store := s.wake.store.Swap(false) || timed || st.state == nil
		if !store {
			select {
			case <-s.done:
				return
			case <-time.After(gateLag):
			}
			store = s.wake.store.Swap(false) // a poke meanwhile: read the store too
		}
		if s.pass(&st, store) {
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

	needs map[string]wire.Need // the needs-you list last read, by key
}

// pass does one round of the loop; without store it reads neither the
// store's log nor its figures (Office.Restate). It reports whether the
// roster, the state or the event stream had anything new.
func (s *Server) pass(st *loopState, store bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), OpTimeout)
	defer cancel()
	roster, insts := s.roster()
	rb, _ := json.Marshal(roster)
	rosterChanged := string(rb) != string(st.roster)
	st.roster = rb
	var (
		after  int64
		stored []wire.Event
		state  wire.State
		err    error
	)
	if store {
		if after, stored, err = s.storeEvents(ctx); err != nil {
			s.log.Warn("reading the event log", "err", err)
		}
		// The state is read after the log: what the log says happened
		// comes first in the stream.
		if state, err = s.office.State(ctx); err != nil {
			s.log.Warn("reading the office's state", "err", err)
		}
	} else {
		s.mu.Lock()
		after = s.seq
		s.mu.Unlock()
		state = s.office.Restate(st.last)
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
		if c.hello.Events && c.out.seq < after {
			behind = append(behind, c)
		}
	}
	s.mu.Unlock()
	for _, c := range behind {
		s.mu.Lock()
		from := c.out.seq
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
	s.last.roster, s.last.insts = rb, insts
	if st.state != nil {
		s.last.state = st.state
	}
	news = news || len(s.live) > 0
	live = append(s.live, live...)
	s.live = nil
	for _, c := range s.clients {
		if rosterChanged || c.out.roster == nil {
			c.setRoster(rb, insts)
		}
		if (stateChanged || c.out.state == nil) && st.state != nil {
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
func (s *Server) roster() (wire.Roster, map[string]int64) {
	agents := s.office.Agents()
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

// liveEvents compares state with the last one and returns the status, hold
// and exit events between them.
func (s *Server) liveEvents(st *loopState, state wire.State) []wire.Event {
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
	out = append(out, needsEvents(st, state.Needs, first, now)...)
	return out
}

// storeEvents reads the store's log after s.seq (returned as after) and
// advances it.
func (s *Server) storeEvents(ctx context.Context) (after int64, out []wire.Event, err error) {
	s.mu.Lock()
	after = s.seq
	s.mu.Unlock()
	out, err = s.office.Events(ctx, after, eventBatch)
	if err != nil || len(out) == 0 {
		return after, nil, err
	}
	s.mu.Lock()
	s.seq = out[len(out)-1].Seq
	s.mu.Unlock()
	if len(out) == eventBatch {
		s.Poke() // more to read
	}
	return after, out, nil
}

// backlog reads the store's log in (after, upTo] for a client resuming its
// stream.
func (s *Server) backlog(ctx context.Context, after, upTo int64) ([]wire.Event, error) {
	var out []wire.Event
	for after < upTo && len(out) < maxPendingEvents {
		evs, err := s.office.Events(ctx, after, eventBatch)
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
			out = append(out, e)
			after = e.Seq
		}
	}
	return out, nil
}
