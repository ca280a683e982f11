package engine

// inbox.go wires the inbox and mail layer (package inbox) into the engine:
// it wraps the store the drain uses (so an inbox delivery is rendered and its
// items leased in the attempt's transaction, and acknowledged with the
// delivery), supplies the drain's preconditions, follows each agent's turns
// (a turn that began with an inbox delivery, its end, exits, dialogs) to
// settle mail and notify parents, and runs the inbox's timers.
//
// Everything that writes the store in reaction to a terminal event runs on
// one goroutine (runInbox), fed by a queue that inboxEvent and the store
// wrapper append to without blocking, in the order things happened.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"office/automation"
	"office/configs"
	"office/drain"
	"office/inbox"
	"office/pool"
	"office/queue"
)

// Timing of the inbox goroutine.
const (
	// attemptFresh bounds how long after an inbox attempt a turn start is
	// taken to be that delivery's Enter.
	attemptFresh = 15 * time.Second
	// resultLines and resultBytes bound the screen lines quoted in a notice.
	resultLines = 8
	resultBytes = 1500
	// openingBrief turns the opening brief on (design.md §9); a config
	// turns it off with `brief = false`, per agent or for the office.
	openingBrief = true
)

// inboxLayer is the engine's inbox state. Its methods are safe for
// concurrent use; per-agent turn state is touched only by runInbox.
type inboxLayer struct {
	svc *inbox.Service

	mu      sync.Mutex
	pending []ibEvent     // guarded by mu
	signal  chan struct{} // capacity 1: pending has events
	kick    chan struct{} // capacity 1: schedule deliveries soon

	agents map[string]*agentTurns // runInbox only
}

// ibEventKind says what an ibEvent reports.
type ibEventKind int

const (
	ibTerminal  ibEventKind = iota // a pool event
	ibAttempt                      // an inbox delivery was attempted (items leased)
	ibDelivered                    // an inbox delivery was acknowledged
	ibReleased                     // an inbox delivery was dropped; its items went back
)

// ibEvent is one thing runInbox must react to, in order.
type ibEvent struct {
	kind  ibEventKind
	agent string
	pool  pool.EventKind
	msg   int64
	items []inbox.Item
	at    time.Time
}

// agentTurns is what runInbox remembers of one agent's turns.
type agentTurns struct {
	attempt   int64 // inbox message attempted and not yet settled
	attemptAt time.Time
	// the current turn
	inTurn    bool
	fromInbox bool  // it began with an inbox delivery's Enter
	turnMsg   int64 // that delivery
	acked     bool  // the delivery was acknowledged
	ended     bool  // it ended before the acknowledgement arrived
	turnStart time.Time
	turnsDone int
	// dialogs and stalls
	waitingSent  bool
	lastHash     uint64
	lastActivity time.Time
}

// initInbox opens the inbox layer on the engine's store, releases leases a
// crash left behind, and returns the store and preconditions the drain uses.
func (e *Engine) initInbox() (drain.Store, drain.Preconditions, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*queue.BusyTimeout)
	defer cancel()
	svc, err := inbox.Open(ctx, e.store, e.inboxOpts())
	if err != nil {
		return nil, nil, fmt.Errorf("engine: %w", err)
	}
	if n, err := svc.ReleaseAllLeases(ctx); err != nil {
		return nil, nil, fmt.Errorf("engine: %w", err)
	} else if n > 0 {
		e.log.Info("released inbox leases left by a crash; they will be delivered again", "items", n)
	}
	e.inbox = &inboxLayer{
		svc:    svc,
		signal: make(chan struct{}, 1),
		kick:   make(chan struct{}, 1),
		agents: map[string]*agentTurns{},
	}
	ib := e.inbox
	observe := func(d inbox.DeliveryEvent) {
		switch d.Kind {
		case inbox.DeliveryAttempted:
			ib.push(ibEvent{kind: ibAttempt, agent: d.Agent, msg: d.MsgID})
		case inbox.DeliveryAcked:
			ib.push(ibEvent{kind: ibDelivered, agent: d.Agent, msg: d.MsgID, items: d.Items})
		case inbox.DeliveryReleased:
			ib.push(ibEvent{kind: ibReleased, agent: d.Agent, msg: d.MsgID})
			if d.Released > 0 {
				ib.scheduleSoon()
			}
		}
	}
	return inbox.DrainStore{Store: e.store, Svc: svc, Observe: observe}, svc.Precondition, nil
}

// Inbox returns the engine's inbox layer (nil before Open finished).
func (e *Engine) Inbox() *inbox.Service {
	if e.inbox == nil {
		return nil
	}
	return e.inbox.svc
}

// PersonNotices returns the items waiting for the person (mail, notices,
// forwarded dialogs), oldest first, for the UI's notice list.
func (e *Engine) PersonNotices(ctx context.Context) ([]inbox.Item, error) {
	if e.inbox == nil {
		return nil, nil
	}
	return e.inbox.svc.Items(ctx, inbox.Person, inbox.StatePending)
}

// push appends ev for runInbox; it never blocks.
func (ib *inboxLayer) push(ev ibEvent) {
	if ev.at.IsZero() {
		ev.at = time.Now()
	}
	ib.mu.Lock()
	ib.pending = append(ib.pending, ev)
	ib.mu.Unlock()
	select {
	case ib.signal <- struct{}{}:
	default:
	}
}

// take returns and clears the pending events.
func (ib *inboxLayer) take() []ibEvent {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	evs := ib.pending
	ib.pending = nil
	return evs
}

// scheduleSoon asks runInbox to queue deliveries for pending items.
func (ib *inboxLayer) scheduleSoon() {
	select {
	case ib.kick <- struct{}{}:
	default:
	}
}

// inboxEvent sees every terminal event (turn starts and ends, exits, status
// changes). It never blocks: the event is queued for runInbox.
func (e *Engine) inboxEvent(ev pool.Event) {
	if e.inbox == nil {
		return
	}
	e.inbox.push(ibEvent{kind: ibTerminal, agent: ev.Agent, pool: ev.Kind})
}

// inboxKick queues deliveries for agents with pending items (and fails mail
// to agents that could not start), then wakes the drain.
func (e *Engine) inboxKick(ctx context.Context) {
	ib := e.inbox
	for _, a := range e.Agents() {
		if a.Term == nil {
			if n, err := ib.svc.FailUndeliverable(ctx, a.Config.Name, inbox.ReasonSpawnFailed); err != nil {
				e.log.Error("failing mail to an agent that did not start", "agent", a.Config.Name, "err", err)
			} else if n > 0 {
				e.log.Warn("mail failed: its agent could not be started", "agent", a.Config.Name, "mail", n)
			}
		}
	}
	queued, err := ib.svc.Schedule(ctx)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Error("scheduling inbox deliveries", "err", err)
		}
		return
	}
	if len(queued) > 0 {
		e.log.Info("inbox deliveries queued", "agents", queued)
	}
	e.drain.Wake()
}

// runInbox runs the inbox's work until ctx ends: it reacts to terminal and
// delivery events in order, schedules deliveries when asked, samples screens
// for stalls, fails mail past its deadline every 30 s, and purges hourly.
func (e *Engine) runInbox(ctx context.Context) {
	ib := e.inbox
	if ib == nil {
		return
	}
	e.startTeamAgents(ctx)
	if openingBrief {
		e.queueBriefs(ctx)
	}
	e.inboxKick(ctx)
	e.purge(ctx, time.Now())
	set := e.settings()
	sample := time.NewTicker(set.StallSample)
	defer sample.Stop()
	lastTick, lastPurge := time.Now(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ib.signal:
			for _, ev := range ib.take() {
				e.handleInboxEvent(ctx, ev)
			}
		case <-ib.kick:
			e.inboxKick(ctx)
		case now := <-sample.C:
			e.sampleAgents(ctx, now)
			if now.Sub(lastTick) >= set.MailSweep {
				lastTick = now
				e.inboxTick(ctx, now)
			}
			if now.Sub(lastPurge) >= set.RetentionSweep {
				lastPurge = now
				e.purge(ctx, now)
			}
		}
	}
}

// purge applies retention.
func (e *Engine) purge(ctx context.Context, now time.Time) {
	r, err := e.inbox.svc.Purge(ctx, now)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Error("inbox retention", "err", err)
		}
		return
	}
	if r.Dead > 0 || r.Deleted > 0 || r.MailDeleted > 0 {
		e.log.Info("inbox retention", "deleted", r.Deleted, "mail_deleted", r.MailDeleted, "dead_letters", r.Dead)
		e.inboxKick(ctx)
	}
}

// inboxTick fails working mail past its deadline and checks for stalls.
func (e *Engine) inboxTick(ctx context.Context, now time.Time) {
	out, err := e.inbox.svc.Tick(ctx, now)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Error("mail deadline tick", "err", err)
		}
	}
	for _, o := range out {
		e.log.Info("mail settled at its deadline", "mail", o.Mail.ID, "state", o.State, "reason", o.Reason)
	}
	sent := len(out) > 0
	for _, a := range e.Agents() {
		if a.Term == nil {
			continue
		}
		st := e.turns(a.Config.Name)
		obs := inbox.StallObservation{
			Agent:        a.Config.Name,
			Parent:       a.Config.Parent,
			Desc:         desc(a.Config),
			Busy:         a.Term.Status() == automation.StatusBusy,
			LastActivity: st.lastActivity,
			After:        e.settingsFor(a.Config).Stall,
		}
		noticed, err := e.inbox.svc.ObserveStall(ctx, obs, now)
		if err != nil {
			if ctx.Err() == nil {
				e.log.Error("stall check", "agent", a.Config.Name, "err", err)
			}
			continue
		}
		if noticed {
			e.log.Warn("agent appears stalled", "agent", a.Config.Name, "since", st.lastActivity)
			sent = true
		}
	}
	if sent {
		e.inboxKick(ctx)
	}
}

// spinnerRunes are cells that change while a CLI works without meaning
// progress (braille and star spinners).
func spinnerRune(r rune) bool {
	return (r >= 0x2800 && r <= 0x28FF) || strings.ContainsRune("✻✳✶✢✽·*⏺●◐◓◑◒|/-\\", r)
}

// activityHash hashes screen text without spinner cells and digits (timers).
func activityHash(text string) uint64 {
	h := fnv.New64a()
	var buf []byte
	for _, r := range text {
		if spinnerRune(r) || unicode.IsDigit(r) {
			continue
		}
		buf = utf8.AppendRune(buf, r)
	}
	h.Write(buf)
	return h.Sum64()
}

// sampleAgents records activity (a change of the screen's text outside
// spinners) for the stall watchdog.
func (e *Engine) sampleAgents(ctx context.Context, now time.Time) {
	for _, a := range e.Agents() {
		if a.Term == nil {
			continue
		}
		st := e.turns(a.Config.Name)
		h := activityHash(a.Term.Text())
		if st.lastActivity.IsZero() {
			// A stall remembered from before a restart continues.
			if since, ok, err := e.inbox.svc.StallSince(ctx, a.Config.Name); err == nil && ok {
				st.lastActivity, st.lastHash = since, h
				continue
			}
			st.lastActivity, st.lastHash = now, h
			continue
		}
		if h != st.lastHash {
			st.lastHash, st.lastActivity = h, now
		}
	}
}

// turns returns the agent's turn state (runInbox only).
func (e *Engine) turns(name string) *agentTurns {
	st, ok := e.inbox.agents[name]
	if !ok {
		st = &agentTurns{}
		e.inbox.agents[name] = st
	}
	return st
}

// desc is how a notice names an agent: its role, else its name.
func desc(a configs.Agent) string {
	if a.Role != "" {
		return a.Role
	}
	return a.Name
}

// handleInboxEvent reacts to one event (runInbox only).
func (e *Engine) handleInboxEvent(ctx context.Context, ev ibEvent) {
	st := e.turns(ev.agent)
	switch ev.kind {
	case ibAttempt:
		st.attempt, st.attemptAt = ev.msg, ev.at
	case ibDelivered:
		if st.attempt == ev.msg {
			st.attempt = 0
		}
		if st.inTurn && st.turnMsg == ev.msg {
			st.acked = true
			if st.ended {
				e.turnEnded(ctx, ev.agent, st)
			}
		}
		e.inboxKick(ctx) // more items may wait
	case ibReleased:
		if st.attempt == ev.msg {
			st.attempt = 0
		}
		if st.turnMsg == ev.msg {
			st.fromInbox, st.turnMsg = false, 0
			if st.ended {
				e.turnEnded(ctx, ev.agent, st)
			}
		}
	case ibTerminal:
		switch ev.pool {
		case pool.EventTurnStart:
			st.inTurn, st.ended, st.acked = true, false, false
			st.turnStart = ev.at
			st.fromInbox = st.attempt != 0 && ev.at.Sub(st.attemptAt) < attemptFresh
			st.turnMsg = 0
			if st.fromInbox {
				st.turnMsg = st.attempt
			}
		case pool.EventTurnEnd:
			if !st.inTurn {
				return
			}
			if st.fromInbox && !st.acked {
				st.ended = true // settle once the delivery is acknowledged
				return
			}
			e.turnEnded(ctx, ev.agent, st)
		case pool.EventExit:
			e.agentExited(ctx, ev.agent, st)
		case pool.EventStatus:
			e.statusChanged(ctx, ev.agent, st)
		}
	}
}

// turnEnded settles the agent's working mail, notifies its parent about a
// turn that began with an inbox delivery (or the first turn of an agent with
// a task), and checks its journal.
func (e *Engine) turnEnded(ctx context.Context, name string, st *agentTurns) {
	fromInbox, start, first := st.fromInbox, st.turnStart, st.turnsDone == 0
	st.inTurn, st.ended, st.fromInbox, st.turnMsg, st.acked = false, false, false, 0, false
	st.turnsDone++
	a, ok := e.Agent(name)
	if !ok {
		return
	}
	outs, err := e.inbox.svc.TurnEnded(ctx, name)
	if err != nil {
		e.log.Error("settling mail at turn end; the deadline ticker will", "agent", name, "err", err)
	}
	for _, o := range outs {
		e.log.Info("mail settled at turn end", "agent", name, "mail", o.Mail.ID, "state", o.State, "reason", o.Reason)
	}
	kick := len(outs) > 0
	task := a.Config.Task
	if a.Config.Parent != "" && (fromInbox || (task != "" && first)) {
		n := inbox.Notice{Kind: inbox.NoticeCompleted, Desc: desc(a.Config), Agent: name}
		if r, ok, err := e.inbox.svc.TakeReport(ctx, name, start); err != nil {
			e.log.Error("reading the agent's report", "agent", name, "err", err)
		} else if ok {
			n.Status, n.Summary = r.Status, r.Summary
		}
		n.Result = e.lastReply(a, start)
		if _, err := e.inbox.svc.NotifyParent(ctx, a.Config.Parent, n, ""); err != nil {
			e.log.Error("notifying the parent", "agent", name, "err", err)
		}
		kick = true
	}
	if task != "" && !a.Config.ReadOnly {
		v, err := e.inbox.svc.CheckJournal(ctx, inbox.JournalCheck{Agent: name, Task: task,
			Path: inbox.JournalPath(e.opts.StateDir, task), Parent: a.Config.Parent, Desc: desc(a.Config)}, time.Now())
		switch {
		case err != nil:
			e.log.Error("journal check", "agent", name, "err", err)
		case v.Continued:
			e.log.Info("journal incomplete; continuation queued", "agent", name, "try", v.Try)
			kick = true
		case v.GaveUp:
			e.log.Warn("journal still incomplete after the last continuation; parent told", "agent", name)
			kick = true
		}
	}
	if kick {
		e.inboxKick(ctx)
	}
}

// agentExited settles the agent's working mail (its turn is over) and, for
// a non-zero exit, tells its parent it failed.
func (e *Engine) agentExited(ctx context.Context, name string, st *agentTurns) {
	a, ok := e.Agent(name)
	if !ok || a.Term == nil {
		return
	}
	st.inTurn, st.ended, st.fromInbox, st.turnMsg = false, false, false, 0
	if _, err := e.inbox.svc.TurnEnded(ctx, name); err != nil {
		e.log.Error("settling mail of an exited agent", "agent", name, "err", err)
	}
	_, code := a.Term.Exited()
	if code != 0 && a.Config.Parent != "" {
		n := inbox.Notice{Kind: inbox.NoticeFailed, Desc: desc(a.Config), Agent: name,
			Error:  fmt.Sprintf("the process exited with status %d", code),
			Result: inbox.LastLines(ReplyRegion(a.Term.Text(), a.Profile), resultLines, resultBytes)}
		if _, err := e.inbox.svc.NotifyParent(ctx, a.Config.Parent, n, fmt.Sprintf("exit:%s:%d", name, a.Term.Pid())); err != nil {
			e.log.Error("notifying the parent", "agent", name, "err", err)
		}
	}
	e.inboxKick(ctx)
}

// statusChanged forwards a new dialog (status waiting) once to the agent's
// parent, or the person.
func (e *Engine) statusChanged(ctx context.Context, name string, st *agentTurns) {
	a, ok := e.Agent(name)
	if !ok || a.Term == nil {
		return
	}
	if a.Term.Status() != automation.StatusWaiting {
		st.waitingSent = false
		return
	}
	if st.waitingSent {
		return
	}
	st.waitingSent = true
	text := a.Term.Text()
	dialog := inbox.LastLines(text, 16, 2000)
	var opts []string
	for _, o := range dialogOptions(text) {
		opts = append(opts, o.num+". "+o.label)
	}
	to := a.Config.Parent
	if to == "" {
		to = inbox.Person
	}
	if _, err := e.inbox.svc.ForwardPermission(ctx, to, name, dialog, opts, ""); err != nil {
		e.log.Error("forwarding a dialog", "agent", name, "err", err)
		return
	}
	e.log.Info("dialog forwarded", "agent", name, "to", to)
	e.inboxKick(ctx)
}

// dialogOption is one numbered option on a dialog's screen.
type dialogOption struct{ num, label string }

var optionLine = regexp.MustCompile(`^\s*(?:[❯>›▶]\s*)?(\d{1,2})[.)]\s+(\S.*?)\s*$`)

// dialogOptions reads the numbered options from screen text.
func dialogOptions(text string) []dialogOption {
	var out []dialogOption
	for _, l := range strings.Split(text, "\n") {
		if m := optionLine.FindStringSubmatch(l); m != nil {
			out = append(out, dialogOption{num: m[1], label: m[2]})
		}
	}
	return out
}

// queueBriefs queues the opening brief for each agent whose config wants it.
func (e *Engine) queueBriefs(ctx context.Context) {
	for _, a := range e.Agents() {
		if !e.opts.Config.BriefFor(a.Config) {
			continue
		}
		if a.Config.Brief == nil && (a.Profile.Name == configs.ProfileShell || a.Profile.Name == configs.ProfileCustom) {
			// A brief is a prompt for a model CLI; a shell would run it as
			// commands. An agent that sets brief = true still gets one.
			continue
		}
		if readLaunchRecord(e.agentDir(a.Config.Name)).Resumed {
			continue // a resumed conversation had its brief when it began
		}
		b := inbox.Brief{Name: a.Config.Name, Role: a.Config.Role, Task: a.Config.Task, Parent: a.Config.Parent}
		if b.Task != "" {
			b.Journal = inbox.JournalPath(e.opts.StateDir, b.Task)
		}
		if _, err := e.store.Enqueue(ctx, a.Config.Name, inbox.RenderBrief(b), queue.EnqueueOptions{Source: "brief"}); err != nil {
			e.log.Error("queueing the opening brief", "agent", a.Config.Name, "err", err)
		}
	}
}

// approveArgs are the arguments of the "approve" call.
type approveArgs struct {
	Agent  string `json:"agent"`
	Option string `json:"option"`
	// By is who approves: an agent (OFFICE_AGENT) or "" for the person.
	By string `json:"by,omitempty"`
}

// ErrNoDialog: `office approve` was given an agent that shows no dialog.
var ErrNoDialog = errors.New("no dialog is waiting")

// Approve answers agent's dialog with option (its number, or a label that
// the dialog's options start with, case-insensitively): the only automated
// write into a dialog, logged with who approved. It fails with ErrNoDialog
// when the agent is not waiting.
func (e *Engine) Approve(ctx context.Context, agent, option, by string) (string, error) {
	a, ok := e.Agent(agent)
	if !ok {
		return "", fmt.Errorf("engine: approve: %w %q", queue.ErrUnknownAgent, agent)
	}
	if a.Term == nil || a.Term.Status() != automation.StatusWaiting {
		return "", fmt.Errorf("engine: approve %q: %w", agent, ErrNoDialog)
	}
	option = strings.TrimSpace(option)
	num := ""
	if _, err := strconv.Atoi(option); err == nil {
		num = option
	} else {
		for _, o := range dialogOptions(a.Term.Text()) {
			if option != "" && strings.HasPrefix(strings.ToLower(o.label), strings.ToLower(option)) {
				num = o.num
				break
			}
		}
	}
	if num == "" {
		return "", fmt.Errorf("engine: approve %q: no option %q on the dialog", agent, option)
	}
	if err := a.Term.Write(ctx, []byte(num)); err != nil {
		return "", fmt.Errorf("engine: approve %q: %w", agent, err)
	}
	if by == "" {
		by = inbox.Person
	}
	e.log.Info("dialog answered", "agent", agent, "option", num, "by", by)
	if err := e.inbox.svc.LogApproval(ctx, agent, num, by); err != nil {
		e.log.Error("logging an approval", "err", err)
	}
	return num, nil
}

// registerInboxOps adds the inbox's socket calls: "approve", and a "poke"
// that also schedules inbox deliveries (senders insert rows and poke).
func (e *Engine) registerInboxOps() {
	plainPoke := e.ops["poke"]
	e.ops["poke"] = func(ctx context.Context, req Request) (any, error) {
		if e.inbox != nil {
			e.inbox.scheduleSoon()
		}
		if plainPoke != nil {
			return plainPoke(ctx, req)
		}
		return nil, nil
	}
	e.ops["approve"] = func(ctx context.Context, req Request) (any, error) {
		var args approveArgs
		if err := decodeArgs(req, &args); err != nil {
			return nil, err
		}
		num, err := e.Approve(ctx, args.Agent, args.Option, args.By)
		if err != nil {
			return nil, err
		}
		return map[string]string{"option": num}, nil
	}
}
