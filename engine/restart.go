package engine

// restart.go restarts an agent whose process exited when its config asks for
// it (restart = "on-failure" or "always"; README, the agent keys). A restarted agent is
// a new *Agent in the roster (the old one keeps its exited terminal), so
// readers that hold an *Agent never see its fields change.

import (
	"fmt"
	"sync"
	"time"

	"office/configs"
	"office/drain"
	"office/pool"
	"office/queue"
)

// clock is the time of the engine's own timers: Options.Clock, else the
// wall clock.
func (e *Engine) clock() drain.Clock {
	if e.opts.Clock != nil {
		return e.opts.Clock
	}
	return drain.RealClock{}
}

// restarts is the restarts' own state: each agent's back-off and pending
// restart, the terminals whose exit was handled, and the restarts under
// way. Its maps are guarded by the roster's lock (roster.mu), as a restart
// replaces an agent in the roster under it.
type restarts struct {
	state    map[string]*restartState
	exitSeen map[*pool.Terminal]bool
	// running counts onExit goroutines and RestartAgent calls; Add only
	// under roster.mu while not closing, so Close can wait for them.
	running sync.WaitGroup
}

// markExit records that t's exit is handled and reports whether it already
// was. roster.mu must be held.
func (r *restarts) markExit(t *pool.Terminal) (seen bool) {
	if r.exitSeen == nil {
		r.exitSeen = map[*pool.Terminal]bool{}
	}
	seen = r.exitSeen[t]
	r.exitSeen[t] = true
	return seen
}

// forgetExit drops t (closed, replaced in the roster). roster.mu must be
// held.
func (r *restarts) forgetExit(t *pool.Terminal) { delete(r.exitSeen, t) }

// of returns name's restart history, made on first use. roster.mu must be
// held.
func (r *restarts) of(name string) *restartState {
	if r.state == nil {
		r.state = map[string]*restartState{}
	}
	st := r.state[name]
	if st == nil {
		st = &restartState{}
		r.state[name] = st
	}
	return st
}

// restartState is one agent's restart history. Guarded by roster.mu.
type restartState struct {
	delay time.Duration
	// due is when the pending restart runs (zero: none pending).
	due time.Time
}

// next returns the wait before the next restart of a process that lived
// for lived, and remembers it (settings restart_backoff,
// restart_backoff_max, restart_reset): the first restart waits the
// back-off, each quick failure doubles it up to the maximum; a process that
// lived restart_reset starts over.
func (st *restartState) next(lived time.Duration, s configs.Settings) time.Duration {
	if lived >= s.RestartReset || st.delay == 0 {
		st.delay = s.RestartBackoff
	} else {
		st.delay = min(st.delay*2, s.RestartBackoffMax)
	}
	return st.delay
}

// wantsRestart reports whether a's policy restarts it after exiting with code.
func wantsRestart(a *Agent, code int) bool { return RestartsAfter(a.Config.Restart, code) }

// RestartsAfter reports whether restart policy (configs.RestartNever,
// RestartOnFailure, RestartAlways) restarts an agent whose process exited
// with code. It is the one home of that rule; a client judging whether an
// exited agent can run again asks it.
func RestartsAfter(policy string, code int) bool {
	switch policy {
	case configs.RestartAlways:
		return true
	case configs.RestartOnFailure:
		return code != 0
	}
	return false
}

// onExit restarts the agent behind t if its policy says so, after the
// back-off. It runs on its own goroutine, once per terminal (the exit event
// and a check after publishing may both call it).
func (e *Engine) onExit(name string, t *pool.Terminal) {
	e.roster.mu.Lock()
	if e.roster.closing {
		e.roster.mu.Unlock()
		return
	}
	e.restarts.running.Add(1) // Close waits for this goroutine
	defer e.restarts.running.Done()
	seen := e.restarts.markExit(t)
	a, ok := e.roster.byName[name]
	e.roster.mu.Unlock()
	if seen || !ok || a.Term != t {
		return // handled already, or replaced or removed meanwhile
	}
	_, code := t.Exited()
	if !wantsRestart(a, code) {
		e.log.Info("agent exited; not restarted", "agent", name, "code", code, "policy", a.Config.Restart)
		return
	}
	e.roster.mu.Lock()
	st := e.restarts.of(name)
	clock := e.clock()
	now := clock.Now()
	delay := st.next(now.Sub(t.Spawned()), e.settings())
	st.due = now.Add(delay)
	e.roster.mu.Unlock()
	e.log.Info("agent exited; restarting", "agent", name, "code", code, "policy", a.Config.Restart, "after", delay)
	if s := e.serve.srv.Load(); s != nil {
		s.Poke() // clients see when it restarts
	}
	stopped := false
	select {
	case <-clock.After(delay):
	case <-e.life.stopped:
		stopped = true
	}
	e.roster.mu.Lock()
	st.due = time.Time{}
	e.roster.mu.Unlock()
	if stopped {
		return
	}
	fresh, ok := e.respawn(name, a, t)
	if !ok {
		return
	}
	t.Close() // release the old PTY
	e.checkExitedEarly(fresh)
	e.drain.Wake()
}

// RestartAgent stops the named agent's process (if it still runs) and
// starts it again as a new terminal, resuming its conversation as a start of
// the office does.
func (e *Engine) RestartAgent(name string) error {
	e.roster.mu.Lock()
	a, ok := e.roster.byName[name]
	if e.roster.closing {
		e.roster.mu.Unlock()
		return ErrServerStopping
	}
	if !ok {
		e.roster.mu.Unlock()
		return fmt.Errorf("restart: %w %q", queue.ErrUnknownAgent, name)
	}
	e.restarts.running.Add(1)
	e.roster.mu.Unlock()
	defer e.restarts.running.Done()
	old := a.Term
	if old != nil {
		e.roster.mu.Lock()
		e.restarts.markExit(old) // this exit is ours: no policy restart
		e.roster.mu.Unlock()
		old.Close()
	}
	fresh, ok := e.respawn(name, a, old)
	if !ok {
		return fmt.Errorf("restart %q: the agent changed meanwhile", name)
	}
	e.log.Info("agent restarted by a client", "agent", name)
	e.checkExitedEarly(fresh)
	e.drain.Wake()
	if s := e.serve.srv.Load(); s != nil {
		s.Poke()
	}
	return nil
}

// respawn starts a fresh process for agent a (in the roster as name) and
// puts it in a's place there, forgetting the exit mark of a's old terminal
// old. When the office is closing, or a was replaced or removed meanwhile,
// it closes the fresh process instead and reports false. roster.mu must not
// be held.
func (e *Engine) respawn(name string, a *Agent, old *pool.Terminal) (*Agent, bool) {
	fresh := &Agent{Config: a.Config, Profile: a.Profile}
	e.spawn(fresh)
	e.roster.mu.Lock()
	cur, ok := e.roster.byName[name]
	if e.roster.closing || !ok || cur != a {
		e.roster.mu.Unlock()
		if fresh.Term != nil {
			fresh.Term.Close()
		}
		return nil, false
	}
	e.roster.byName[name] = fresh
	for i, x := range e.roster.agents {
		if x == a {
			e.roster.agents[i] = fresh
		}
	}
	e.restarts.forgetExit(old)
	e.roster.mu.Unlock()
	return fresh, true
}

// checkExitedEarly handles an exit that happened before a was published in
// the roster (its exit event then found no agent to restart).
func (e *Engine) checkExitedEarly(a *Agent) {
	if a.Term == nil {
		return
	}
	select {
	case <-a.Term.Done():
		go e.onExit(a.Config.Name, a.Term)
	default:
	}
}

// restartsDue returns when each agent's pending restart runs, by name.
func (e *Engine) restartsDue() map[string]time.Time {
	e.roster.mu.RLock()
	defer e.roster.mu.RUnlock()
	var out map[string]time.Time
	for name, st := range e.restarts.state {
		if !st.due.IsZero() {
			if out == nil {
				out = map[string]time.Time{}
			}
			out[name] = st.due
		}
	}
	return out
}
