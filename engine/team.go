package engine

// team.go is the roster while the office runs: `office team` lists it,
// `office team add` starts a new agent and records it in the store (so it
// comes back after a restart), `office team rm` stops one and marks it
// removed (its queue and inbox stay until purged; sends to it are refused).
// Joins and leaves are events on the store's log.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"office/configs"
	"office/inbox"
	"office/queue"
	"office/wire"
)

// TeamSpec is wire.TeamSpec (it crosses the client boundary, so wire declares it).
type TeamSpec = wire.TeamSpec

// agent returns the spec as a config agent.
func specAgent(s TeamSpec) configs.Agent {
	return configs.Agent{Name: s.Name, Profile: s.Profile, Command: s.Command, Cwd: s.Cwd, Env: s.Env,
		Role: s.Role, Parent: s.Parent, Task: s.Task, Restart: configs.RestartNever}
}

// TeamMember is wire.TeamMember (it crosses the client boundary, so wire declares it).
type TeamMember = wire.TeamMember

// Sentinel errors of the team calls.
var (
	// ErrNameInUse: `team add` with a name an agent already has.
	ErrNameInUse = errors.New("agent name already in use")
	// ErrConfigAgent: `team rm` of an agent from the config file (edit the
	// file instead).
	ErrConfigAgent = errors.New("agent comes from the config file")
)

var teamName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$`)

// Team returns the roster in roster order, then, in a clustered office,
// the other hosts' agents by host and name (their last-known roster).
func (e *Engine) Team(ctx context.Context) ([]TeamMember, error) {
	counts, err := e.store.Counts(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: team: %w", err)
	}
	var depths map[string]int
	if e.inbox != nil {
		if depths, err = e.inbox.svc.Depths(ctx); err != nil {
			return nil, fmt.Errorf("engine: team: %w", err)
		}
	}
	status := map[string]string{}
	for _, s := range e.Status() {
		status[s.Name] = s.Status
	}
	local := e.localPlacement()
	var out []TeamMember
	for _, a := range e.Agents() {
		_, inConfig := e.opts.Config.Agent(a.Config.Name)
		out = append(out, TeamMember{
			Name: a.Config.Name, Role: a.Config.Role, Profile: a.Profile.Name, Parent: a.Config.Parent, Task: a.Config.Task,
			Status: status[a.Config.Name], Queue: counts[a.Config.Name], Inbox: depths[a.Config.Name], Added: !inConfig,
			Placement: local,
		})
	}
	remote, err := e.remoteAgents(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: team: %w", err)
	}
	for _, r := range remote {
		m := r.m
		out = append(out, TeamMember{Name: m.Name, Role: m.Role, Profile: m.Profile, Parent: m.Parent, Status: m.Status, Placement: r.place})
	}
	return out, nil
}

// Refusal is a request refused for its input: Error is the whole message
// with its context (for the command line and the log), Reason what was
// wrong, without the layers' prefixes, for a person (the UI's add form).
// The server sends Reason beside the error (wire.Reply.Reason).
type Refusal struct {
	err    error
	reason string
}

func (r *Refusal) Error() string { return r.err.Error() }

// Unwrap returns the wrapped error (ErrBadInput, ErrNameInUse, ...).
func (r *Refusal) Unwrap() error { return r.err }

// Reason is what was wrong, said to a person.
func (r *Refusal) Reason() string { return r.reason }

// refused is err with the person's reason.
func refused(err error, reason string) error { return &Refusal{err: err, reason: reason} }

// refuse is a team add of name refused as bad input for reason.
func refuse(name, reason string) error {
	return refused(fmt.Errorf("engine: team add %q: %w: %s", name, ErrBadInput, reason), reason)
}

// AddTeamAgent records spec in the store and starts it (a new pane). The
// name must be valid and not in use (ErrNameInUse, also for a config agent
// not running and, in a clustered office, for an agent another host of the
// floor has or last had); the profile must exist; the parent, if any, must be a
// running agent or an agent of another host of the floor (its notices cross
// there); the cwd, if any, must be an existing directory, as the office
// file's loader requires of every cwd; an office that already runs
// configs.MaxAgents agents refuses it (ErrBadInput). An agent whose process cannot start is still added (its
// mail fails with spawn_failed).
func (e *Engine) AddTeamAgent(ctx context.Context, spec TeamSpec) (*Agent, error) {
	if !teamName.MatchString(spec.Name) || spec.Name == inbox.Person || spec.Name == inbox.System {
		return nil, refused(fmt.Errorf("engine: team add: %w: %q is not a valid agent name (letters, digits, _ . -; not person or system)", ErrBadInput, spec.Name),
			fmt.Sprintf("%q is not a valid agent name (letters, digits, _ . -; not person or system)", spec.Name))
	}
	if _, ok := e.Agent(spec.Name); ok {
		return nil, refused(fmt.Errorf("engine: team add %q: %w", spec.Name, ErrNameInUse),
			fmt.Sprintf("the name %q is already in use", spec.Name))
	}
	if _, ok := e.opts.Config.Agent(spec.Name); ok {
		return nil, refused(fmt.Errorf("engine: team add %q: %w (by the config file)", spec.Name, ErrNameInUse),
			fmt.Sprintf("the name %q is already in use (by the office file)", spec.Name))
	}
	if host, err := e.floorOwner(ctx, spec.Name); err != nil {
		return nil, fmt.Errorf("engine: team add %q: %w", spec.Name, err)
	} else if host != "" {
		return nil, refused(fmt.Errorf("engine: team add %q: %w by an agent of host %s (names are unique on the floor)", spec.Name, ErrNameInUse, host),
			fmt.Sprintf("the name %q is already in use by an agent of host %s (names are unique on the floor)", spec.Name, host))
	}
	if spec.Parent != "" {
		if _, ok := e.Agent(spec.Parent); !ok {
			// A parent on another host of the floor gets the notices there.
			host, err := e.floorOwner(ctx, spec.Parent)
			if err != nil {
				return nil, fmt.Errorf("engine: team add %q: %w", spec.Name, err)
			}
			if host == "" {
				return nil, refuse(spec.Name, fmt.Sprintf("parent %q is not an agent", spec.Parent))
			}
		}
	}
	if spec.Cwd != "" && !filepath.IsAbs(spec.Cwd) {
		return nil, refuse(spec.Name, fmt.Sprintf("cwd %q is not absolute", spec.Cwd))
	}
	if spec.Cwd != "" {
		// As the office file's loader checks every cwd: a missing one
		// would only show as the program "not found" when it starts.
		switch fi, err := os.Stat(spec.Cwd); {
		case errors.Is(err, os.ErrNotExist):
			return nil, refuse(spec.Name, fmt.Sprintf("cwd %q does not exist", spec.Cwd))
		case err != nil:
			return nil, refuse(spec.Name, fmt.Sprintf("cwd: %v", err))
		case !fi.IsDir():
			return nil, refuse(spec.Name, fmt.Sprintf("cwd %q is not a directory", spec.Cwd))
		}
	}
	ac := specAgent(spec)
	if _, err := e.opts.Config.ProfileOf(ac); err != nil {
		return nil, refused(fmt.Errorf("engine: team add: %w: %w", ErrBadInput, err), strings.TrimPrefix(err.Error(), "configs: "))
	}
	// The count is checked and the agent added under one lock, so two adds
	// at once cannot both take the last place.
	if err := e.lockTeam(ctx); err != nil {
		return nil, fmt.Errorf("engine: team add %q: %w", spec.Name, err)
	}
	defer e.unlockTeam()
	if n := len(e.Agents()); n >= e.team.max {
		return nil, refuse(spec.Name, fmt.Sprintf("the office already runs %d agents, the most one office runs (configs.MaxAgents); remove one first (office team rm)", n))
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("engine: team add %q: %w", spec.Name, err)
	}
	if err := e.store.AddAgent(ctx, queue.AgentRecord{Name: spec.Name, Spec: string(b)}); err != nil {
		if errors.Is(err, queue.ErrAgentExists) {
			return nil, refused(fmt.Errorf("engine: team add %q: %w", spec.Name, ErrNameInUse),
				fmt.Sprintf("the name %q is already in use", spec.Name))
		}
		return nil, fmt.Errorf("engine: team add: %w", err)
	}
	a, err := e.addAgent(ac)
	if err != nil {
		// Not started: take the record back so the name is free again.
		if rerr := e.store.RemoveAgent(context.WithoutCancel(ctx), spec.Name); rerr != nil {
			e.log.Error("undoing a team add", "agent", spec.Name, "err", rerr)
		}
		return nil, err
	}
	e.log.Info("agent joined the team", "agent", spec.Name, "profile", a.Profile.Name)
	if e.inbox != nil {
		e.inbox.scheduleSoon()
	}
	return a, nil
}

// RemoveTeamAgent stops a team-added agent, drops it from the roster and
// marks it removed in the store: its queue and inbox stay until purged,
// sends to it are refused, its queued mail fails (receiver_removed), and its
// parent is told it was cancelled. Config agents are refused
// (ErrConfigAgent). It waits for the team lock only as long as ctx lets it,
// and holds it only while it drops the agent and marks the record: the
// process's hangup and the mail and notices come after.
func (e *Engine) RemoveTeamAgent(ctx context.Context, name, by string) error {
	if _, ok := e.opts.Config.Agent(name); ok {
		return fmt.Errorf("engine: team rm %q: %w; remove it there", name, ErrConfigAgent)
	}
	a, cfg, err := e.dropTeamAgent(ctx, name)
	if a != nil && a.Term != nil {
		a.Term.Close()
	}
	if err != nil {
		return err
	}
	if by == "" {
		by = inbox.Person
	}
	e.log.Info("agent left the team", "agent", name, "by", by)
	if e.inbox == nil {
		return nil
	}
	if _, err := e.inbox.svc.FailUndeliverable(ctx, name, inbox.ReasonRemoved); err != nil {
		e.log.Error("failing mail to a removed agent", "agent", name, "err", err)
	}
	if cfg.Parent != "" {
		n := inbox.Notice{Kind: inbox.NoticeCancelled, Desc: desc(cfg), Agent: name}
		if _, err := e.inbox.svc.NotifyParent(ctx, cfg.Parent, n, ""); err != nil {
			e.log.Error("notifying the parent", "agent", name, "err", err)
		}
	}
	e.inbox.scheduleSoon()
	return nil
}

// dropTeamAgent is what of a team rm must not run beside a start from the
// records or an add's count (under the team lock): it drops the agent from
// the roster (a, nil when it was not running; the caller stops its
// process) and marks its record removed, returning its config.
func (e *Engine) dropTeamAgent(ctx context.Context, name string) (a *Agent, cfg configs.Agent, err error) {
	if err := e.lockTeam(ctx); err != nil {
		return nil, cfg, fmt.Errorf("engine: team rm %q: %w", name, err)
	}
	defer e.unlockTeam()
	a, cfg, ok := e.teamAgentConfig(ctx, name)
	if !ok {
		return nil, cfg, fmt.Errorf("engine: team rm: %w %q", queue.ErrUnknownAgent, name)
	}
	if err := e.store.RemoveAgent(ctx, name); err != nil {
		return a, cfg, fmt.Errorf("engine: team rm: %w", err)
	}
	return a, cfg, nil
}

// team is the team's own state: the lock that orders starts from the
// store's records with team add and rm, the names told over the bound, and
// the bound itself.
type team struct {
	// start serializes startTeamAgents (at start, and when the floor's
	// roster changed) with AddTeamAgent (its count check and its add) and
	// RemoveTeamAgent, so a start from the store's records never runs an
	// agent a team add or rm is changing. A one-slot channel, so a request
	// waiting for it gives up with its context (lockTeam).
	start chan struct{}
	// overBound names the team records this run left out for the bound
	// and told the person about (under start): told once a run.
	overBound map[string]bool
	// max is configs.MaxAgents (a test lowers it, as running 500 agents
	// to reach it would take a test minutes).
	max int
}

// newTeam is a team with its lock free and the office's bound.
func newTeam() team { return team{start: make(chan struct{}, 1), max: configs.MaxAgents} }

// unseen returns the names of over not told yet, and marks them told.
// The team lock must be held.
func (t *team) unseen(over []string) []string {
	var fresh []string
	for _, n := range over {
		if !t.overBound[n] {
			fresh = append(fresh, n)
		}
	}
	if len(fresh) > 0 && t.overBound == nil {
		t.overBound = map[string]bool{}
	}
	for _, n := range fresh {
		t.overBound[n] = true
	}
	return fresh
}

// lockTeam takes the team lock (team.start), or returns ctx's error when ctx ends first.
func (e *Engine) lockTeam(ctx context.Context) error {
	select {
	case e.team.start <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unlockTeam releases the team lock.
func (e *Engine) unlockTeam() { <-e.team.start }

// teamAgentConfig drops a team agent from the roster (a, its process not
// stopped; nil when it was not running) and returns its config: that of the
// running agent, or, for one recorded but not running (not started because
// another host of the floor has its name, or its record could not start),
// the one its record keeps, so `team rm` can remove it too. ok is false for
// a name with no team agent.
func (e *Engine) teamAgentConfig(ctx context.Context, name string) (a *Agent, cfg configs.Agent, ok bool) {
	if a, running := e.dropAgent(name); running {
		return a, a.Config, true
	}
	recs, err := e.store.ListAgents(ctx)
	if err != nil {
		e.log.Error("listing team agents", "err", err)
		return nil, cfg, false
	}
	for _, r := range recs {
		if r.Name != name || r.Spec == "" || r.Removed {
			continue
		}
		var spec TeamSpec
		if err := json.Unmarshal([]byte(r.Spec), &spec); err != nil {
			e.log.Error("team agent's record is unreadable", "agent", name, "err", err)
		}
		spec.Name = name
		return nil, specAgent(spec), true
	}
	return nil, cfg, false
}

// dropAgent drops name from the roster, its process left running. It
// reports whether the agent was there.
func (e *Engine) dropAgent(name string) (*Agent, bool) {
	e.roster.mu.Lock()
	defer e.roster.mu.Unlock()
	a, ok := e.roster.byName[name]
	if ok {
		delete(e.roster.byName, name)
		for i, x := range e.roster.agents {
			if x == a {
				e.roster.agents = append(e.roster.agents[:i:i], e.roster.agents[i+1:]...)
				break
			}
		}
	}
	return a, ok
}

// startTeamAgents starts the agents recorded with `office team add` (not
// removed, not in the config file, not already running). One whose name
// another host of the floor has is not started and is recorded as run
// elsewhere (yieldName: no receiver here, sends to it go to that host).
func (e *Engine) startTeamAgents(ctx context.Context) { e.startRecorded(ctx, false) }

// startYielded starts the team agents recorded as run elsewhere whose name
// no other host of the floor has any more (its agent there was removed):
// called when the floor's roster changed.
func (e *Engine) startYielded(ctx context.Context) { e.startRecorded(ctx, true) }

// startRecorded is startTeamAgents, of only the agents recorded as run
// elsewhere when yielded is set. Calls are serialized. Records past the
// most agents an office runs (e.team.max: the office file grew since they
// were added) are not started: the log and a notice to the person (their
// inbox, durable) name them, each once a run (a start when the floor's
// roster changed does not say it again).
func (e *Engine) startRecorded(ctx context.Context, yielded bool) {
	if err := e.lockTeam(ctx); err != nil {
		return
	}
	defer e.unlockTeam()
	recs, err := e.store.ListAgents(ctx)
	if err != nil {
		e.log.Error("listing team agents", "err", err)
		return
	}
	var over []string
	for _, r := range recs {
		if r.Spec == "" || r.Removed || (yielded && r.Elsewhere == "") {
			continue
		}
		if !e.startRecord(ctx, r, yielded) {
			over = append(over, r.Name)
		}
	}
	if fresh := e.team.unseen(over); len(fresh) > 0 {
		e.noticeOverBound(ctx, fresh)
	}
}

// noticeOverBound logs, and tells the person durably, which team agents
// were not started because the office already runs e.team.max.
func (e *Engine) noticeOverBound(ctx context.Context, names []string) {
	e.log.Warn("team agents not started: the office already runs the most agents one office runs", "max", e.team.max, "agents", strings.Join(names, ","))
	if e.inbox == nil {
		return
	}
	shown := names
	more := ""
	if len(shown) > maxNamed {
		shown, more = shown[:maxNamed], fmt.Sprintf(" and %d more", len(names)-maxNamed)
	}
	body := fmt.Sprintf("%d team agent(s) were not started: the office already runs %d agents, the most one office runs (configs.MaxAgents): %s%s. "+
		"Their queues and inboxes are kept: `office team rm NAME` removes one for good; fewer agents in the office file lets them start at the next start.",
		len(names), e.team.max, strings.Join(shown, ", "), more)
	if _, _, err := e.inbox.svc.Send(context.WithoutCancel(ctx), inbox.Message{To: inbox.Person, Kind: inbox.KindNotification, Body: body}); err != nil {
		e.log.Error("notice of team agents not started", "err", err)
	}
}

// maxNamed is how many names a notice lists before "and N more".
const maxNamed = 20

// startRecord starts the team agent of record r, listed earlier (e.team.start
// held): r is read again first, so a record removed since (by a store-only
// command) starts nothing. It returns false only when r was not started
// because the office already runs e.team.max agents.
func (e *Engine) startRecord(ctx context.Context, r queue.AgentRecord, yielded bool) bool {
	if _, ok := e.Agent(r.Name); ok {
		return true
	}
	if _, ok := e.opts.Config.Agent(r.Name); ok {
		return true
	}
	cur, err := e.store.Agent(ctx, r.Name)
	if err != nil || cur.Removed || cur.Spec == "" {
		if err != nil && !errors.Is(err, queue.ErrUnknownAgent) {
			e.log.Error("reading a team agent's record; not started", "agent", r.Name, "err", err)
		}
		return true
	}
	r = cur
	if err := e.floorClash(ctx, r.Name); err != nil {
		e.yieldName(ctx, r, err, yielded)
		return true
	}
	if n := len(e.Agents()); n >= e.team.max {
		// Before the record is claimed for this host below: a record past
		// the bound keeps what it said (another host's name stays theirs).
		return false
	}
	if r.Elsewhere != "" {
		// No other host has the name any more: it is this host's
		// receiver again, started or not (a record that cannot start
		// is one host's case). Not recorded (removed meanwhile): not
		// started.
		if err := e.store.SetElsewhere(ctx, r.Name, ""); err != nil {
			e.log.Error("recording a team agent run here again; not started", "agent", r.Name, "err", err)
			return true
		}
	}
	var spec TeamSpec
	if err := json.Unmarshal([]byte(r.Spec), &spec); err != nil {
		e.log.Error("team agent's record is unreadable; not started", "agent", r.Name, "err", err)
		return true
	}
	spec.Name = r.Name
	if _, err := e.addAgent(specAgent(spec)); err != nil {
		e.log.Error("team agent not started", "agent", r.Name, "err", err)
		return true
	}
	e.log.Info("team agent started again", "agent", r.Name)
	if e.inbox != nil {
		// What was kept for it here (notices, replies) is delivered now,
		// not at the next unrelated kick.
		e.inbox.scheduleSoon()
	}
	return true
}

// registerTeamOps adds the team's socket calls: "team" (the roster),
// "team.add" and "team.rm".
func (e *Engine) registerTeamOps() {
	register(e, wire.OpTeam, func(ctx context.Context, _ Request, _ wire.None) ([]TeamMember, error) {
		return e.Team(ctx)
	})
	register(e, wire.OpTeamAdd, func(ctx context.Context, _ Request, args wire.TeamAddArgs) (wire.TeamAddResult, error) {
		a, err := e.AddTeamAgent(ctx, args.Spec)
		if err != nil {
			return wire.TeamAddResult{}, err
		}
		return wire.TeamAddResult{Name: a.Config.Name, Profile: a.Profile.Name}, nil
	})
	register(e, wire.OpTeamRemove, func(ctx context.Context, _ Request, args wire.TeamRmArgs) (wire.None, error) {
		return wire.None{}, e.RemoveTeamAgent(ctx, args.Name, args.By)
	})
}
