package engine

// inbox.go wires the inbox and mail layer (package inbox) into the engine:
// it wraps the store the drain uses (so an inbox delivery is rendered and its
// items leased in the attempt's transaction, and acknowledged with the
// delivery), supplies the drain's preconditions, and runs the inbox's
// goroutine (runInbox) with its timers. What that goroutine does lives by
// concept: turns.go (turn ends settle mail and notify parents), stall.go (the
// stall watchdog), dialogs.go (forwarded dialogs and approvals), brief.go
// (the opening brief).
//
// Everything that writes the store in reaction to a terminal event runs on
// runInbox, fed by a queue that inboxEvent and the store wrapper append to
// without blocking, in the order things happened.

import (
	"context"
	"sync"
	"time"

	"office/automation"
	"office/configs"
	"office/drain"
	"office/inbox"
	"office/pool"
	"office/queue"
	"office/wire"
)

// Timing of the inbox goroutine.
const (
	// openingBrief turns the opening brief on; a config
	// turns it off with `brief = false`, per agent or for the office.
	openingBrief = true
)

// inboxLayer is the engine's inbox state. Its methods are safe for
// concurrent use; ledger, activity and timers are touched only by runInbox.
type inboxLayer struct {
	svc   *inbox.Service
	clock drain.Clock // the inbox goroutine's time (a test's fake clock)

	mu      sync.Mutex
	pending []ibEvent     // guarded by mu
	signal  chan struct{} // capacity 1: pending has events
	kick    chan struct{} // capacity 1: schedule deliveries soon

	dialogs dialogBook // forwarded dialogs (safe for concurrent use)

	sampleEvery time.Duration // how often runInbox samples the screens

	settling map[string]int // guarded by mu: turn ends pushed and not yet handled, per agent

	ledger   inbox.TurnLedger // runInbox only
	activity activityWatch    // runInbox only
	timers   inboxTimers      // runInbox only
}

// ibEventKind says what an ibEvent reports.
type ibEventKind int

const (
	ibTerminal ibEventKind = iota // a pool event
	ibDelivery                    // a committed change to an inbox delivery
)

// ibEvent is one thing runInbox must react to, in order.
type ibEvent struct {
	kind     ibEventKind
	agent    string
	pool     pool.Event          // ibTerminal
	delivery inbox.DeliveryEvent // ibDelivery
}

// initInbox opens the inbox layer on the engine's store and returns the
// store and preconditions the drain uses. The leases a crash left behind
// are released by releaseLeases, after recovery has settled the deliveries
// the records show received.
func (e *Engine) initInbox() (drain.Store, drain.Preconditions, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*queue.BusyTimeout)
	defer cancel()
	svc, err := inbox.Open(ctx, e.store, e.inboxOpts())
	if err != nil {
		return nil, nil, err
	}
	e.inbox = newInboxLayer(svc, e.clock(), e.settings())
	ib := e.inbox
	observe := func(d inbox.DeliveryEvent) {
		ib.push(ibEvent{kind: ibDelivery, agent: d.Agent, delivery: d})
		if d.Kind == inbox.DeliveryReleased && d.Released > 0 {
			ib.scheduleSoon()
		}
	}
	return inbox.DrainStore{Store: e.store, Svc: svc, Observe: observe}, svc.Precondition, nil
}

// newInboxLayer returns the inbox state on svc, timed by clock, its timers
// from the settings s (stall_sample, mail_sweep, retention_sweep).
func newInboxLayer(svc *inbox.Service, clock drain.Clock, s configs.Settings) *inboxLayer {
	return &inboxLayer{
		svc:         svc,
		clock:       clock,
		signal:      make(chan struct{}, 1),
		kick:        make(chan struct{}, 1),
		sampleEvery: s.StallSample,
		timers:      inboxTimers{tickEvery: s.MailSweep, purgeEvery: s.RetentionSweep},
	}
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

// releaseLeases puts back the inbox items a crash left leased (their
// delivery is typed again), once recovery has settled the deliveries the
// CLI's records show received.
func (e *Engine) releaseLeases() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*queue.BusyTimeout)
	defer cancel()
	n, err := e.inbox.svc.ReleaseAllLeases(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		e.log.Info("released inbox leases left by a crash; they will be delivered again", "items", n)
	}
	return nil
}

// push appends ev for runInbox; it never blocks.
func (ib *inboxLayer) push(ev ibEvent) {
	ib.mu.Lock()
	ib.pending = append(ib.pending, ev)
	if ev.kind == ibTerminal && ev.pool.Kind == pool.EventTurnEnd {
		if ib.settling == nil {
			ib.settling = map[string]int{}
		}
		ib.settling[ev.agent]++
	}
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
	e.inbox.push(ibEvent{kind: ibTerminal, agent: ev.Agent, pool: ev})
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

// inboxTimers says when the inbox goroutine's periodic work is due: the
// mail deadline tick every tickEvery, retention every purgeEvery (checked on
// every sample of the screens).
type inboxTimers struct {
	tickEvery, purgeEvery time.Duration
	lastTick, lastPurge   time.Time
}

// due reports, at now, which periodic work is due, and marks it done.
func (t *inboxTimers) due(now time.Time) (tick, purge bool) {
	if t.lastTick.IsZero() {
		t.lastTick, t.lastPurge = now, now
		return false, false
	}
	if now.Sub(t.lastTick) >= t.tickEvery {
		t.lastTick, tick = now, true
	}
	if now.Sub(t.lastPurge) >= t.purgeEvery {
		t.lastPurge, purge = now, true
	}
	return tick, purge
}

// runInbox runs the inbox's work until ctx ends: it reacts to terminal and
// delivery events in order, schedules deliveries when asked, samples screens
// for stalls (every stall_sample), fails mail past its deadline (every
// mail_sweep), and purges (every retention_sweep).
func (e *Engine) runInbox(ctx context.Context) {
	ib := e.inbox
	if ib == nil {
		return
	}
	if openingBrief {
		e.queueBriefs(ctx)
	}
	e.resumeProbes(ctx) // the probes an earlier run left pending (limits_probe.go)
	e.inboxKick(ctx)
	now := ib.clock.Now()
	e.purge(ctx, now)
	ib.timers.due(now)
	sample := ib.clock.After(ib.sampleEvery)
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
		case <-sample:
			e.inboxTimer(ctx, ib.clock.Now())
			sample = ib.clock.After(ib.sampleEvery) // counted from the end of this sample's work
		}
	}
}

// inboxTimer is the periodic work at now: sample the screens, and the
// deadline tick and retention when due.
func (e *Engine) inboxTimer(ctx context.Context, now time.Time) {
	e.sampleAgents(ctx, now)
	tick, purge := e.inbox.timers.due(now)
	if tick {
		e.inboxTick(ctx, now)
	}
	if purge {
		e.purge(ctx, now)
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
	if e.checkStalls(ctx, now) || len(out) > 0 {
		e.inboxKick(ctx)
	}
}

// settled marks one of agent's turn ends handled (see unsettled).
func (ib *inboxLayer) settled(agent string) {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	if ib.settling[agent] <= 1 {
		delete(ib.settling, agent) // also for an event handled that push did not count
		return
	}
	ib.settling[agent]--
}

// unsettled reports whether a turn end of agent was pushed and is not yet
// handled (its mail and notices not yet settled).
func (ib *inboxLayer) unsettled(agent string) bool {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	return ib.settling[agent] > 0
}

// handleInboxEvent reacts to one event (runInbox only).
func (e *Engine) handleInboxEvent(ctx context.Context, ev ibEvent) {
	switch ev.kind {
	case ibDelivery:
		e.deliveryChanged(ctx, ev.delivery)
	case ibTerminal:
		switch ev.pool.Kind {
		case pool.EventTurnStart:
			e.log.Debug("turn "+ev.pool.Turn.Kind.String(), "agent", ev.agent, "causes", causeList(ev.pool.Turn))
			e.probeTyped(ctx, ev.agent, ev.pool.Turn) // the probe kept durable (limits_probe.go)
		case pool.EventTurnEnd:
			e.turnEnded(ctx, ev.agent, ev.pool.Turn)
			e.inbox.settled(ev.agent)
		case pool.EventExit:
			e.agentExited(ctx, ev.agent)
		case pool.EventStatus:
			e.statusChanged(ctx, ev.agent)
			e.limitStatus(ctx, ev.agent)
		case pool.EventLimit:
			e.limitHit(ctx, ev.agent)
		case pool.EventModelSwitch:
			e.modelSwitched(ctx, ev.agent)
		}
	}
}

// isWaiting reports whether the agent's terminal shows a dialog.
func isWaiting(a *Agent) bool {
	return a != nil && a.Term != nil && a.Term.Status() == automation.StatusWaiting
}

// desc is how a notice names an agent: its role, else its name.
func desc(a configs.Agent) string {
	if a.Role != "" {
		return a.Role
	}
	return a.Name
}

// registerInboxOps adds the inbox's socket call "approve" (a poke also
// schedules inbox deliveries: wake.go).
func (e *Engine) registerInboxOps() {
	register(e, wire.OpApprove, e.opApprove)
}
