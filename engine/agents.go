package engine

// agents.go makes the agents of the roster: an Agent from its config (its
// profile resolved), its process started in a terminal with the profile's
// screen-reading rules, published in the roster; and the roster as the
// drain sees it (agentSet: a running terminal, or an agent that never
// started, which holds its messages as exited).

import (
	"context"
	"fmt"
	"time"

	"office/automation"
	"office/configs"
	"office/drain"
	"office/pool"
)

// addAgent resolves ac's profile, starts its process (a process that cannot
// start is recorded on the Agent, not an error) and then publishes the agent
// in the roster, so no other goroutine sees a half-made Agent.
func (e *Engine) addAgent(ac configs.Agent) (*Agent, error) {
	e.roster.addMu.Lock()
	defer e.roster.addMu.Unlock()
	a, err := e.newAgent(ac)
	if err != nil {
		return nil, err
	}
	if _, dup := e.Agent(ac.Name); dup {
		return nil, fmt.Errorf("engine: agent %q already runs", ac.Name)
	}
	e.spawn(a)
	if err := e.publish(a); err != nil {
		return nil, err
	}
	return a, nil
}

// newAgent is ac's Agent with its profile resolved, not started.
func (e *Engine) newAgent(ac configs.Agent) (*Agent, error) {
	if ac.Line == 0 { // not from the file (team add): the office's history
		ac.History = e.settingsFor(ac).History
	}
	a := &Agent{Config: ac}
	var err error
	a.Profile, err = e.opts.Config.ProfileOf(ac)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return a, nil
}

// publish puts a, started, in the roster (its terminal is closed when the
// engine is closing or another agent has its name).
func (e *Engine) publish(a *Agent) error {
	e.roster.mu.Lock()
	defer e.roster.mu.Unlock()
	name := a.Config.Name
	if e.roster.closing || e.roster.byName[name] != nil {
		if a.Term != nil {
			go a.Term.Close()
		}
		if e.roster.closing {
			return fmt.Errorf("engine: closing; agent %q not started", name)
		}
		return fmt.Errorf("engine: agent %q already runs", name)
	}
	e.roster.agents = append(e.roster.agents, a)
	e.roster.byName[name] = a
	go e.checkExitedEarly(a)
	return nil
}

// spawn starts a's process; a failure is recorded on a and logged.
func (e *Engine) spawn(a *Agent) {
	argv, err := e.opts.Config.Argv(a.Config)
	if err != nil {
		a.SpawnErr = err
		e.log.Error("agent not started", "agent", a.Config.Name, "err", err)
		return
	}
	argv, extraEnv, dir, err := e.launch(a, argv, a.Config.Cwd)
	if err != nil {
		a.SpawnErr = err
		e.log.Error("agent not started", "agent", a.Config.Name, "err", err)
		return
	}
	ac := a.Config
	ssh := e.opts.Config.SSHAgentFor(ac)
	ac.SSHAgent = &ssh
	env := append(AgentEnv(e.opts.HostEnv, a.Profile, ac, e.opts.StateDir, e.opts.Bin), extraEnv...)
	e.checkVersion(a, argv[0], env, dir)
	t, err := pool.Start(pool.Options{
		Name:     a.Config.Name,
		Argv:     argv,
		Env:      env,
		Dir:      dir,
		Cols:     e.opts.Cols,
		Rows:     e.opts.Rows,
		Behavior: limitBehavior(behaviorFor(a.Profile, e.settingsFor(a.Config)), a.Profile, e.settingsFor(a.Config), env),
		Notify:   e.agentEvent,
		History:  e.historyOf(a.Config),
	})
	if err != nil {
		a.SpawnErr = err
		e.log.Error("agent not started", "agent", a.Config.Name, "err", err)
		return
	}
	a.Term = t
	e.limitSpawned(a, env)
	e.log.Info("agent started", "agent", a.Config.Name, "pid", t.Pid(), "argv", argv)
}

// Behavior turns a profile into the screen-reading rules of a terminal.
func Behavior(p configs.Profile) pool.Behavior {
	return pool.Behavior{
		Prompt: pool.PromptSpec{Marker: p.PromptMarker, Column: p.PromptColumn, BetweenRules: p.PromptBetweenRules, Placeholders: p.PromptPlaceholders},
		Status: automation.StatusRules{
			TitleBusy:    p.TitleBusy,
			TitleIdle:    p.TitleIdle,
			TitleBraille: p.TitleBraille,
			Busy:         p.Busy,
			Idle:         p.Idle,
			Waiting:      p.Waiting,
			Quiet:        p.Quiet.Duration,
		},
		ReadyMarkers: p.ReadyMarkers,
		ReadySettle:  p.ReadySettle.Duration,
		ShellIdle:    p.ShellIdle,
		Interactive:  p.Interactive,
	}
}

// submitProfile turns a profile into the drain's typing rules.
func submitProfile(p configs.Profile) drain.SubmitProfile {
	return drain.SubmitProfile{
		EnterDelay:      p.EnterDelay.Duration,
		PasteEnterDelay: p.PasteEnterDelay.Duration,
		EnterRetries:    p.EnterRetries,
		EnterAfterEcho:  p.EnterAfterEcho,
		LineByLine:      p.LineByLine,
		Unverifiable:    p.Unverifiable,
		// A profile that defines its prompt is typed into only while the
		// screen shows it (the drain's screen gate); shell and custom read
		// no prompt and keep the older rule.
		KnownPrompt: p.PromptMarker != "" && !p.Unverifiable,
	}
}

// Agents returns the agents in roster order (config order, then agents
// added while running). The slice is a copy; the *Agent values are shared and
// must not be modified.
func (e *Engine) Agents() []*Agent {
	e.roster.mu.RLock()
	defer e.roster.mu.RUnlock()
	return append([]*Agent(nil), e.roster.agents...)
}

// Agent returns the named agent.
func (e *Engine) Agent(name string) (*Agent, bool) {
	e.roster.mu.RLock()
	defer e.roster.mu.RUnlock()
	a, ok := e.roster.byName[name]
	return a, ok
}

// agentSet adapts the engine's terminals to drain.Agents.
type agentSet struct{ e *Engine }

// Agent returns the named agent's terminal for the drain; an agent whose
// process could not be started reads as exited.
func (s agentSet) Agent(name string) (drain.Agent, bool) {
	a, ok := s.e.Agent(name)
	if !ok {
		return nil, false
	}
	if a.Term == nil {
		return deadAgent{err: a.SpawnErr}, true
	}
	return liveAgent{Terminal: a.Term, submit: submitFor(a.Profile, s.e.settingsFor(a.Config))}, true
}

// liveAgent is a running terminal as the drain sees it.
type liveAgent struct {
	*pool.Terminal
	submit drain.SubmitProfile
}

// Submit returns how to type into this agent.
func (a liveAgent) Submit() drain.SubmitProfile { return a.submit }

// deadAgent is an agent whose process never started: it holds its messages
// as exited.
type deadAgent struct{ err error }

func (deadAgent) Status() automation.Status { return automation.StatusExited }

func (deadAgent) Block(time.Time) automation.Block { return automation.BlockExited }

func (deadAgent) BracketedPaste() bool { return false }

func (deadAgent) Submit() drain.SubmitProfile { return drain.SubmitProfile{} }

func (deadAgent) Prompt() (string, bool) { return "", false }

func (deadAgent) LastOutput() time.Time { return time.Time{} }

func (deadAgent) Spawned() time.Time { return time.Time{} }

func (deadAgent) MarkDraft(string) {}

func (deadAgent) Text() string { return "" }

func (d deadAgent) PressEnter(context.Context, automation.TurnCause) error {
	return fmt.Errorf("agent not started: %v", d.err)
}

func (d deadAgent) Write(context.Context, []byte) error {
	return fmt.Errorf("agent not started: %v", d.err)
}
