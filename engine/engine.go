package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"office/automation"
	"office/configs"
	"office/drain"
	"office/pool"
	"office/queue"
	"office/server"
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
	// Web, if set, runs the office file's [web] table's web server
	// (engine/web.go).
	Web WebRunner
}

// Agent is one configured agent as the engine runs it: its configuration,
// its resolved profile, its terminal (nil when the process could not be
// started, SpawnErr says why). The server reads it too, so package server
// declares it.
type Agent = server.Agent

// Engine is one running office. Its methods are safe for concurrent use.
type Engine struct {
	opts  Options
	log   *slog.Logger
	store *queue.Store
	drain *drain.Drainer
	inbox *inboxLayer // the inbox layer's state (engine/inbox.go); set by initInbox
	floor floor       // the floor's node (engine/cluster.go); none without [cluster]

	serve serving // the table of calls and the server answering them (engine/serve.go)
	life  life    // the state directory's lock, the stop, the watch's wake-up

	hookOnce  sync.Once
	hookState *hookLayer // the CLI hooks' reports (engine/hook.go); see hooks()

	terms  terms     // what the engine keeps beside its terminals
	limits limitBook // the usage-limit holds, by account (engine/limits.go)

	needs  needsBook  // what the needs-you list remembers (engine/needs_gather.go)
	notify notifyFeed // what feeds runNotify (engine/notify.go)

	team team // the team's lock and bound (engine/team.go)

	roster   roster   // the agents running (engine.go); its lock guards restarts too
	restarts restarts // the restarts' state (engine/restart.go), under roster.mu
}

// roster is the agents this office runs, in order, and whether it is
// closing (then nothing joins it).
type roster struct {
	addMu   sync.Mutex   // serializes addAgent
	mu      sync.RWMutex // guards agents, byName, closing, and the restarts' maps
	agents  []*Agent
	byName  map[string]*Agent
	closing bool
}

// terms is what the engine keeps beside its terminals, each in its own
// file: their pane histories, their events before Open is done, their
// CLIs' versions, and the freed heap given back when their output is quiet.
type terms struct {
	hist     historyLayer  // engine/history.go
	events   earlyEvents   // engine/early.go
	versions versionChecks // version.go
	heap     *heapReturner // engine/memory.go
}

// life is the engine's life: the state directory's lock it holds, its
// close, why Run stopped by itself, and the state-directory watch's
// wake-up (watch.go).
type life struct {
	lock *os.File
	// failure is why Run stopped by itself (the store was lost), for the
	// clients' goodbye.
	failure   atomic.Pointer[error]
	stopped   chan struct{} // closed by Close
	closeOnce sync.Once
	watchNow  chan struct{} // capacity 1: a poke asks for a check
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
	e = &Engine{opts: o, log: log, life: life{lock: lock, stopped: make(chan struct{}), watchNow: make(chan struct{}, 1)}, roster: roster{byName: map[string]*Agent{}}, terms: terms{heap: newHeapReturner()},
		team: newTeam(), notify: newNotifyFeed()}
	e.registerOps()
	opened := e // `return nil, err` below sets e to nil before this runs
	defer func() {
		if err != nil {
			opened.Close()
		}
	}()
	// The config's agents' processes start first, before the store is
	// opened and checked: starting them is what a person waits for, and
	// nothing they do reaches the rest of the engine before it is ready
	// (their events wait, early.go). They join the roster once it is.
	early := make([]*Agent, 0, len(o.Config.Agents))
	published := 0
	defer func() {
		if err != nil {
			for _, a := range early[published:] {
				if a.Term != nil {
					_ = a.Term.Close()
				}
			}
		}
	}()
	for _, ac := range o.Config.Agents {
		a, err := e.newAgent(ac)
		if err != nil {
			return nil, err
		}
		e.spawn(a)
		early = append(early, a)
	}
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
	if err := e.releaseLeases(); err != nil {
		return nil, err
	}
	dcfg := drainTunables(o.Config.Settings)
	dcfg.Store, dcfg.Agents, dcfg.Preconditions, dcfg.Notify, dcfg.Logger = dstore, agentSet{e}, pre, e.notice, log
	dcfg.Evidence, dcfg.Channel = newEvidence(e), e.channelTakes
	e.drain = drain.New(dcfg)
	if err := e.openCluster(); err != nil {
		return nil, err
	}
	for _, a := range early {
		if err := e.publish(a); err != nil {
			return nil, err
		}
		published++
	}
	e.openEvents()
	// The socket last: a command that finds it listening may count on the
	// agents being registered (cmd/office/store.go).
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

func (e *Engine) terminalEvent(ev pool.Event) {
	if ev.Kind == pool.EventNotify {
		e.agentNote(ev) // the agent's own notification (engine/notes.go)
		return
	}
	if ev.Kind == pool.EventOutput {
		e.terms.heap.output()
	}
	if s := e.serve.srv.Load(); s != nil {
		s.TerminalEvent(ev)
	}
	if ev.Kind != pool.EventOutput && e.drain != nil {
		e.drain.Wake()
	}
	// A draft or picker changing (the person's first key of a line)
	// changes nothing the needs-you list or the inbox reads: waking the
	// notifier for it read the store beside the key's echo.
	if ev.Kind != pool.EventOutput && ev.Kind != pool.EventGate {
		e.needsEvent(ev)
		e.pokeNotify()
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
	if s := e.serve.srv.Load(); s != nil && !shown {
		s.AddLive(noticeEvent(n))
	}
	if e.opts.OnNotice != nil {
		e.opts.OnNotice(n)
	}
}

// Run serves the drain until ctx ends. It returns ctx's error, or an error
// wrapping ErrStoreLost when the store was deleted or replaced under it, or
// one wrapping ErrUnsafeStateDir when the state directory became writable
// by group or others (it stops within WatchEvery, or at the next poke).
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
	bg.Add(5)
	go func() {
		defer bg.Done()
		e.runNotify(ctx)
	}()
	go func() {
		defer bg.Done()
		e.floor.run(ctx)
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
	e.startWeb(ctx, &bg)
	err := e.drain.Run(ctx)
	bg.Wait()
	if lost := lostStore(ctx); lost != nil {
		e.life.failure.Store(&lost) // the clients' goodbye says why
		return lost
	}
	return err
}

// Wake makes the drain look at the queues soon (after the store changed).
func (e *Engine) Wake() {
	e.wake(wakeLocal) // clients see the new depth now
}

// Config returns the office's configuration (read-only).
func (e *Engine) Config() *configs.Config { return e.opts.Config }

// Store returns the engine's store.
func (e *Engine) Store() *queue.Store { return e.store }

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
	e.life.closeOnce.Do(func() {
		if s := e.serve.srv.Load(); s != nil {
			bye := wire.Bye{Reason: wire.ReasonStopping}
			if f := e.life.failure.Load(); f != nil {
				bye.Reason, bye.Error = (*f).Error(), (*f).Error()
			}
			s.Close(bye)
		}
		e.roster.mu.Lock()
		e.roster.closing = true
		e.roster.mu.Unlock()
		close(e.life.stopped)
		// A restart under way finishes first (its new terminal, if any, is
		// in the roster then, or closed by the restart itself).
		e.restarts.running.Wait()
		e.roster.mu.Lock()
		agents := append([]*Agent(nil), e.roster.agents...)
		e.roster.mu.Unlock()
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
		e.floor.close()
		e.closeHistories() // after the terminals: their last screens are in
		for _, a := range agents {
			if a.Config.Worktree {
				e.pruneWorktree(a.Config.Name) // kept if it has work
			}
		}
		if e.store != nil {
			e.store.Close()
		}
		if e.life.lock != nil {
			unlockState(e.life.lock)
		}
	})
	return nil
}

// AgentStatus is wire.AgentStatus (it crosses the client boundary, so wire declares it).
type AgentStatus = wire.AgentStatus

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
			s.Status, s.Signal, s.Draft, s.Pid = st.String(), limitSignal(a.Term, st, sig, a.Term.Now()), a.Term.HasDraft(), a.Term.Pid()
			// The terminal first: it reads open until its turn end was
			// pushed to the inbox, which then reads unsettled.
			s.Turn = a.Term.TurnOpen() || (e.inbox != nil && e.inbox.unsettled(a.Config.Name))
			if h := a.Term.Limit(); st == automation.StatusLimited && h.Active(a.Term.Now()) {
				s.LimitAt, s.LimitRetry = h.Reset, h.Reset.IsZero()
				if s.LimitRetry {
					s.LimitAt = h.Until
				}
			}
			if exited, code := a.Term.Exited(); exited {
				s.ExitCode = &code
				s.RestartAt = due[a.Config.Name]
			}
		}
		out = append(out, s)
	}
	return out
}
