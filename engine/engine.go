package engine

import (
	"context"
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

	"office/automation"
	"office/cluster"
	"office/configs"
	"office/drain"
	"office/pool"
	"office/queue"
	"office/wire"
)

// Options configure an engine. Config and StateDir are required.
type Options struct {
	// Config is the office: its agents and profiles.
	Config *configs.Config
	// StateDir holds the lock, the socket, the store and the log.
	StateDir string
	// Bin is the absolute path of the office binary (OFFICE_BIN for agents).
	Bin string
	// HostEnv is the office's own environment (os.Environ()); agents get only
	// an allowlisted part of it (see AgentEnv).
	HostEnv []string
	// Cols and Rows are the agents' initial PTY size; zero means 120×40.
	Cols, Rows int
	// Logger receives the engine's log; nil discards it.
	Logger *slog.Logger
	// OnTerminal, if set, is called on every terminal change (screen, status,
	// gate, exit); it must not block.
	OnTerminal func(pool.Event)
	// OnNotice, if set, receives the drain's notices (drops, typed but not
	// submitted); it must not block.
	OnNotice func(drain.Notice)
	// WatchEvery is how often Run checks the store and the socket (see
	// watch.go); zero means DefaultWatchEvery.
	WatchEvery time.Duration
	// Clock is the time of the engine's own timers (the inbox goroutine's
	// stall samples, mail sweep and retention sweep, the restart back-off);
	// nil means the wall clock. Tests pass a fake.
	Clock drain.Clock
}

// Agent is one configured agent as the engine runs it.
type Agent struct {
	// Config is the agent's configuration.
	Config configs.Agent
	// Profile is its resolved profile.
	Profile configs.Profile
	// Term is its terminal; nil when the process could not be started.
	Term *pool.Terminal
	// SpawnErr says why Term is nil.
	SpawnErr error
}

// Engine is one running office. Its methods are safe for concurrent use.
type Engine struct {
	// failure is why Run stopped by itself (the store was lost), for the
	// clients' goodbye.
	failure atomic.Pointer[error]

	opts    Options
	log     *slog.Logger
	lock    *os.File
	store   *queue.Store
	ln      net.Listener // guarded by lnMu once the engine runs
	drain   *drain.Drainer
	ops     map[string]opFunc
	inbox   *inboxLayer   // the inbox layer's state (engine/inbox.go); set by initInbox
	cluster *cluster.Node // the floor's node (engine/cluster.go); nil without [cluster]

	srv atomic.Pointer[server] // the clients' side (engine/server.go)

	// lnMu guards ln, sockID and closingSocket: the watcher replaces a
	// removed socket (watch.go).
	lnMu          sync.Mutex
	sockID        socketID
	closingSocket bool
	watchNow      chan struct{} // capacity 1: a poke asks for a check

	hookOnce  sync.Once
	hookState *hookLayer // the CLI hooks' reports (engine/hook.go); see hooks()

	hist historyLayer  // the agents' pane histories (engine/history.go)
	heap *heapReturner // gives the freed heap back when output is quiet (engine/memory.go)

	// teamStart serializes startTeamAgents (at start, and when the floor's
	// roster changed) with AddTeamAgent (its count check and its add) and
	// RemoveTeamAgent, so a start from the store's records never runs an
	// agent a team add or rm is changing. A one-slot channel, so a request
	// waiting for it gives up with its context (lockTeam).
	teamStart chan struct{}
	// overBound names the team records this run left out for the bound
	// and told the person about (under teamStart): told once a run.
	overBound map[string]bool

	// maxAgents is configs.MaxAgents (a test lowers it, as running 500
	// agents to reach it would take a test minutes).
	maxAgents int

	addMu    sync.Mutex   // serializes addAgent
	mu       sync.RWMutex // guards agents, byName, closing, restarts
	agents   []*Agent
	byName   map[string]*Agent
	closing  bool
	restarts map[string]*restartState
	exitSeen map[*pool.Terminal]bool // terminals whose exit was handled
	// restarting counts onExit goroutines; Add only under mu while not
	// closing, so Close can wait for them.
	restarting sync.WaitGroup
	stopped    chan struct{} // closed by Close

	closeOnce sync.Once
}

// Open takes the state directory's lock, opens the store, registers the
// config's agents and starts every agent's process. A second engine on the
// same directory gets *LockedError. On error nothing is left running.
func Open(o Options) (e *Engine, err error) {
	if o.Config == nil {
		return nil, errors.New("engine: no config")
	}
	if o.Cols <= 0 {
		o.Cols = 120
	}
	if o.Rows <= 0 {
		o.Rows = 40
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := EnsureStateDir(o.StateDir); err != nil {
		return nil, err
	}
	lock, err := lockState(o.StateDir)
	if err != nil {
		return nil, err
	}
	e = &Engine{opts: o, log: log, lock: lock, byName: map[string]*Agent{}, stopped: make(chan struct{}), heap: newHeapReturner(), maxAgents: configs.MaxAgents,
		teamStart: make(chan struct{}, 1)}
	e.registerOps()
	e.registerWatchOps()
	opened := e // `return nil, err` below sets e to nil before this runs
	defer func() {
		if err != nil {
			opened.Close()
		}
	}()
	if err := e.openStore(); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(o.Config.Agents))
	for _, a := range o.Config.Agents {
		names = append(names, a.Name)
	}
	if err := e.store.EnsureAgents(context.Background(), names); err != nil {
		return nil, fmt.Errorf("engine: register agents: %w", err)
	}
	dstore, pre, err := e.initInbox()
	if err != nil {
		return nil, err
	}
	if err := e.recoverInterrupted(context.Background()); err != nil {
		return nil, err
	}
	dcfg := drainTunables(o.Config.Settings)
	dcfg.Store, dcfg.Agents, dcfg.Preconditions, dcfg.Notify, dcfg.Logger = dstore, agentSet{e}, pre, e.notice, log
	dcfg.Evidence = newEvidence(e)
	e.drain = drain.New(dcfg)
	if err := e.openCluster(); err != nil {
		return nil, err
	}
	for _, ac := range o.Config.Agents {
		if _, err := e.addAgent(ac); err != nil {
			return nil, err
		}
	}
	e.ln, e.sockID, err = listen(o.StateDir)
	if err != nil {
		return nil, err
	}
	go serve(e.ln, e.handle)
	if err := e.startServer(); err != nil {
		return nil, err
	}
	return e, nil
}

// openStore opens the store and checks it whole (PRAGMA quick_check): a
// damaged file is refused with what to do about it.
func (e *Engine) openStore() error {
	path := filepath.Join(e.opts.StateDir, StoreFile)
	s, err := queue.Open(path, queue.Options{CompactVerbs: compactVerbs(e.opts.Config)})
	if err == nil {
		e.store = s
		err = s.QuickCheck(context.Background())
	}
	if errors.Is(err, queue.ErrCorrupt) {
		return fmt.Errorf("engine: %w; office will not use it. Move it aside (with %s-wal and %s-shm, if present), "+
			"restore a copy if you have one, and start office again (it makes a new, empty store)", err, path, path)
	}
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	return nil
}

// compactVerbs collects every profile's compaction verbs for the store's
// one-pending-compaction rule.
func compactVerbs(c *configs.Config) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range c.Profiles {
		for _, v := range p.Compact {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// addAgent resolves ac's profile, starts its process (a process that cannot
// start is recorded on the Agent, not an error) and then publishes the agent
// in the roster, so no other goroutine sees a half-made Agent.
func (e *Engine) addAgent(ac configs.Agent) (*Agent, error) {
	e.addMu.Lock()
	defer e.addMu.Unlock()
	if ac.Line == 0 { // not from the file (team add): the office's history
		ac.History = e.settingsFor(ac).History
	}
	a := &Agent{Config: ac}
	var err error
	a.Profile, err = e.opts.Config.ProfileOf(ac)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if _, dup := e.Agent(ac.Name); dup {
		return nil, fmt.Errorf("engine: agent %q already runs", ac.Name)
	}
	e.spawn(a)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing {
		if a.Term != nil {
			go a.Term.Close()
		}
		return nil, fmt.Errorf("engine: closing; agent %q not started", ac.Name)
	}
	e.agents = append(e.agents, a)
	e.byName[ac.Name] = a
	go e.checkExitedEarly(a)
	return a, nil
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
	t, err := pool.Start(pool.Options{
		Name:     a.Config.Name,
		Argv:     argv,
		Env:      env,
		Dir:      dir,
		Cols:     e.opts.Cols,
		Rows:     e.opts.Rows,
		Behavior: behaviorFor(a.Profile, e.settingsFor(a.Config)),
		Notify:   e.terminalEvent,
		History:  e.historyOf(a.Config),
	})
	if err != nil {
		a.SpawnErr = err
		e.log.Error("agent not started", "agent", a.Config.Name, "err", err)
		return
	}
	a.Term = t
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
	}
}

func (e *Engine) terminalEvent(ev pool.Event) {
	if ev.Kind == pool.EventOutput {
		e.heap.output()
	}
	if s := e.srv.Load(); s != nil {
		s.terminalEvent(ev)
	}
	if ev.Kind != pool.EventOutput && e.drain != nil {
		e.drain.Wake()
	}
	if ev.Kind != pool.EventOutput {
		e.inboxEvent(ev)
	}
	if ev.Kind == pool.EventBootOverdue {
		e.bootOverdue(ev.Agent)
	}
	if ev.Kind == pool.EventExit {
		if a, ok := e.Agent(ev.Agent); ok && a.Term != nil {
			_, code := a.Term.Exited()
			e.log.Info("agent exited", "agent", ev.Agent, "code", code)
			go e.onExit(ev.Agent, a.Term)
		}
	}
	if e.opts.OnTerminal != nil {
		e.opts.OnTerminal(ev)
	}
}

func (e *Engine) notice(n drain.Notice) {
	// A message held or set aside is told durably; the store's event shows
	// it to every window, so it is not sent live a second time.
	shown := (n.Kind == drain.NoticeHeld || n.Kind == drain.NoticeSetAside) && e.noticeHeld(n)
	if s := e.srv.Load(); s != nil && !shown {
		s.notice(n)
	}
	if e.opts.OnNotice != nil {
		e.opts.OnNotice(n)
	}
}

// Run serves the drain until ctx ends. It returns ctx's error, or an error
// wrapping ErrStoreLost when the store was deleted or replaced under it (it
// stops within WatchEvery, or at the next poke).
func (e *Engine) Run(ctx context.Context) error {
	e.log.Info("engine running", "state", e.opts.StateDir, "agents", len(e.Agents()))
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	// The agents added with `team add` start before the node publishes
	// this host's roster: its first roster after a restart must have them,
	// or another host that does not start its own agents of those names
	// while this host has them would read them gone and start its own
	// (the name would move to another agent and conversation). An agent
	// that does not start again is gone from the first roster, so its name
	// is free again (docs/cluster.md, "Names are unique on the floor").
	if e.inbox != nil {
		e.startTeamAgents(ctx)
	}
	var bg sync.WaitGroup
	bg.Add(4)
	go func() {
		defer bg.Done()
		e.runCluster(ctx)
	}()
	go func() {
		defer bg.Done()
		e.watch(ctx, stop)
	}()
	go func() {
		defer bg.Done()
		e.runInbox(ctx)
	}()
	go func() {
		defer bg.Done()
		e.runSchedules(ctx)
	}()
	err := e.drain.Run(ctx)
	bg.Wait()
	if lost := lostStore(ctx); lost != nil {
		e.failure.Store(&lost) // the clients' goodbye says why
		return lost
	}
	return err
}

// Wake makes the drain look at the queues soon (after the store changed).
func (e *Engine) Wake() {
	e.drain.Wake()
	if s := e.srv.Load(); s != nil {
		s.poke() // clients see the new depth now
	}
}

// Config returns the office's configuration (read-only).
func (e *Engine) Config() *configs.Config { return e.opts.Config }

// Store returns the engine's store.
func (e *Engine) Store() *queue.Store { return e.store }

// Agents returns the agents in roster order (config order, then agents
// added while running). The slice is a copy; the *Agent values are shared and
// must not be modified.
func (e *Engine) Agents() []*Agent {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return append([]*Agent(nil), e.agents...)
}

// Agent returns the named agent.
func (e *Engine) Agent(name string) (*Agent, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	a, ok := e.byName[name]
	return a, ok
}

// Holds returns the drain's current hold reason per agent.
func (e *Engine) Holds() map[string]string {
	out := map[string]string{}
	for a, h := range e.drain.Holds() {
		out[a] = string(h)
	}
	return out
}

// Close stops every agent (SIGHUP to its process group, SIGKILL after the
// hangup_grace setting, 2 s by default), closes the socket and the store, and
// releases the lock. Queued messages stay in the store. It is idempotent.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		if s := e.srv.Load(); s != nil {
			bye := wire.Bye{Reason: "the office is stopping"}
			if f := e.failure.Load(); f != nil {
				bye.Reason, bye.Error = (*f).Error(), (*f).Error()
			}
			s.close(bye)
		}
		e.lnMu.Lock()
		e.closingSocket = true
		if e.ln != nil {
			e.ln.Close()
			_ = os.Remove(filepath.Join(e.opts.StateDir, SocketFile))
		}
		e.lnMu.Unlock()
		e.mu.Lock()
		e.closing = true
		e.mu.Unlock()
		close(e.stopped)
		// A restart under way finishes first (its new terminal, if any, is
		// in the roster then, or closed by the restart itself).
		e.restarting.Wait()
		e.mu.Lock()
		agents := append([]*Agent(nil), e.agents...)
		e.mu.Unlock()
		var wg sync.WaitGroup
		for _, a := range agents {
			if a.Term != nil {
				wg.Add(1)
				go func(t *pool.Terminal) {
					defer wg.Done()
					t.Close()
				}(a.Term)
			}
		}
		wg.Wait()
		e.closeCluster()
		e.closeHistories() // after the terminals: their last screens are in
		for _, a := range agents {
			if a.Config.Worktree {
				e.pruneWorktree(a.Config.Name) // kept if it has work
			}
		}
		if e.store != nil {
			e.store.Close()
		}
		if e.lock != nil {
			unlockState(e.lock)
		}
	})
	return nil
}

// AgentStatus is one agent's live state, as `office status` shows it.
type AgentStatus struct {
	Name    string `json:"name"`
	Profile string `json:"profile"`
	// Role and Parent are the agent's, as configured or added.
	Role     string `json:"role,omitempty"`
	Parent   string `json:"parent,omitempty"`
	Status   string `json:"status"`
	Signal   string `json:"signal"`
	Draft    bool   `json:"draft"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Pid      int    `json:"pid,omitempty"`
	Hold     string `json:"hold,omitempty"`
	Error    string `json:"error,omitempty"`
	// Restart is its restart policy (configs.RestartNever, ...); RestartAt,
	// once its process exited, when the restart its policy asked for runs
	// (zero: none pending).
	Restart   string    `json:"restart,omitempty"`
	RestartAt time.Time `json:"restart_at,omitzero"`
	// Placement says its host in a clustered office (FloorStatus).
	Placement
}

// Status returns every agent's live state, in config order (this host's
// agents only; FloorStatus adds the floor's).
func (e *Engine) Status() []AgentStatus {
	holds := e.drain.Holds()
	agents := e.Agents()
	due := e.restartsDue()
	out := make([]AgentStatus, 0, len(agents))
	for _, a := range agents {
		s := AgentStatus{Name: a.Config.Name, Profile: a.Profile.Name, Role: a.Config.Role, Parent: a.Config.Parent, Hold: string(holds[a.Config.Name]),
			Restart: a.Config.Restart}
		if a.Term == nil {
			s.Status, s.Signal = automation.StatusExited.String(), "spawn failed"
			if a.SpawnErr != nil {
				s.Error = a.SpawnErr.Error()
			}
		} else {
			st, sig := a.Term.StatusSignal()
			s.Status, s.Signal, s.Draft, s.Pid = st.String(), sig, a.Term.HasDraft(), a.Term.Pid()
			if exited, code := a.Term.Exited(); exited {
				s.ExitCode = &code
				s.RestartAt = due[a.Config.Name]
			}
		}
		out = append(out, s)
	}
	return out
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

func (deadAgent) Status() automation.Status        { return automation.StatusExited }
func (deadAgent) Block(time.Time) automation.Block { return automation.BlockExited }
func (deadAgent) BracketedPaste() bool             { return false }
func (deadAgent) Submit() drain.SubmitProfile      { return drain.SubmitProfile{} }
func (deadAgent) Prompt() (string, bool)           { return "", false }
func (deadAgent) LastOutput() time.Time            { return time.Time{} }
func (deadAgent) Spawned() time.Time               { return time.Time{} }
func (deadAgent) MarkDraft(string)                 {}
func (deadAgent) Text() string                     { return "" }
func (d deadAgent) PressEnter(context.Context, automation.TurnCause) error {
	return fmt.Errorf("agent not started: %v", d.err)
}
func (d deadAgent) Write(context.Context, []byte) error {
	return fmt.Errorf("agent not started: %v", d.err)
}
