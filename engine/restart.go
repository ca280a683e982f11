package engine

// restart.go restarts an agent whose process exited when its config asks for
// it (restart = "on-failure" or "always"; README, the agent keys). A restarted agent is
// a new *Agent in the roster (the old one keeps its exited terminal), so
// readers that hold an *Agent never see its fields change.

import (
	"time"

	"office/configs"
	"office/drain"
	"office/pool"
)

// clock is the time of the engine's own timers: Options.Clock, else the
// wall clock.
func (e *Engine) clock() drain.Clock {
	if e.opts.Clock != nil {
		return e.opts.Clock
	}
	return drain.RealClock{}
}

// restartState is one agent's restart history. Guarded by Engine.mu.
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
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		return
	}
	e.restarting.Add(1) // Close waits for this goroutine
	defer e.restarting.Done()
	if e.exitSeen == nil {
		e.exitSeen = map[*pool.Terminal]bool{}
	}
	seen := e.exitSeen[t]
	e.exitSeen[t] = true
	a, ok := e.byName[name]
	e.mu.Unlock()
	if seen || !ok || a.Term != t {
		return // handled already, or replaced or removed meanwhile
	}
	_, code := t.Exited()
	if !wantsRestart(a, code) {
		e.log.Info("agent exited; not restarted", "agent", name, "code", code, "policy", a.Config.Restart)
		return
	}
	e.mu.Lock()
	if e.restarts == nil {
		e.restarts = map[string]*restartState{}
	}
	st := e.restarts[name]
	if st == nil {
		st = &restartState{}
		e.restarts[name] = st
	}
	clock := e.clock()
	now := clock.Now()
	delay := st.next(now.Sub(t.Spawned()), e.settings())
	st.due = now.Add(delay)
	e.mu.Unlock()
	e.log.Info("agent exited; restarting", "agent", name, "code", code, "policy", a.Config.Restart, "after", delay)
	if s := e.srv.Load(); s != nil {
		s.poke() // clients see when it restarts
	}
	stopped := false
	select {
	case <-clock.After(delay):
	case <-e.stopped:
		stopped = true
	}
	e.mu.Lock()
	st.due = time.Time{}
	e.mu.Unlock()
	if stopped {
		return
	}
	fresh := &Agent{Config: a.Config, Profile: a.Profile}
	e.spawn(fresh)
	e.mu.Lock()
	cur, ok := e.byName[name]
	if e.closing || !ok || cur != a {
		e.mu.Unlock()
		if fresh.Term != nil {
			fresh.Term.Close()
		}
		return
	}
	e.byName[name] = fresh
	for i, x := range e.agents {
		if x == a {
			e.agents[i] = fresh
		}
	}
	delete(e.exitSeen, t)
	e.mu.Unlock()
	t.Close() // release the old PTY
	e.checkExitedEarly(fresh)
	e.drain.Wake()
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
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out map[string]time.Time
	for name, st := range e.restarts {
		if !st.due.IsZero() {
			if out == nil {
				out = map[string]time.Time{}
			}
			out[name] = st.due
		}
	}
	return out
}
