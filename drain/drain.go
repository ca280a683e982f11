package drain

// The Drainer and its decision loop: when a pass runs (the fixed debounce
// after Wake, the tick, the end of a cooldown) and what a pass does for each
// agent with pending messages. Typing happens elsewhere (deliver.go), on a
// goroutine per agent, so nothing here waits on a PTY.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"office/queue"
)

// maxDropsPerPass bounds how many head messages one pass may drop for a single
// agent (failed preconditions, nothing left after sanitizing) before moving on.
const maxDropsPerPass = 64

// Drainer types queued messages into agent terminals. Run is its one decision
// goroutine; Wake and Holds may be called from any goroutine.
type Drainer struct {
	cfg  Config // defaults applied; read-only after New
	log  *slog.Logger
	wake chan struct{} // capacity 1: a pending Wake

	inFlight sync.WaitGroup // submit goroutines

	mu     sync.Mutex
	agents map[string]*agentState // guarded by mu
	// runCtx is Run's context while it runs (nil before it runs and from
	// its stop on): a hand-over's confirmation runs under it
	// (handover.go). Guarded by mu.
	runCtx context.Context
}

// agentState is what the drain remembers about one agent between passes.
type agentState struct {
	// inFlight is true while a submit goroutine runs for the agent; no other
	// submit to it starts meanwhile.
	inFlight bool
	// lastAttempt is when the last attempt to the agent began (stamped before
	// its first write); zero for none.
	lastAttempt time.Time
	// hold is the current hold reason (HoldNone while delivering or not held).
	hold Hold
	// stored is the hold last recorded in the store; storedKnown is false
	// until one was.
	stored      Hold
	storedKnown bool
	// unsettled holds a message that was delivered but whose delivery the
	// store did not record, with its record: it is held, never retyped.
	unsettled map[int64]deliveredRecord
	// delivered is the last message recorded delivered to the agent, as
	// typed (refused.go); deliveredBy the channel that carried it ("":
	// typed).
	delivered   queue.Message
	deliveredBy string
	// run counts the blocks answered in the agent's current turn
	// (handover.go); hookRan is the start of the process whose turn-end
	// hook was called, hookSilent of the one whose silence was told.
	run                 blockRun
	hookRan, hookSilent time.Time
	// refused is a message whose turn the CLI refused before its delivery
	// was recorded, with why (refused.go).
	refused map[int64]string
	// held is the message the drain held after typing it, and why (hold.go);
	// the records of one held typed, not confirmed, are read again while it
	// waits (hold.go, settleHeld).
	held *heldTyping
	// untaken is the last attempt counted failed because the proven
	// records did not show it (untaken.go): read them again before it is
	// typed again.
	untaken *untakenTyping
	// aside is a message the store neither set aside nor held (exited.go):
	// the agent's queue waits until it is set aside.
	aside *pendingAside
	// approval is an approval waiting for a pass (approve.go).
	approval *pendingApproval
	// unknownTold is set once the person was told of this episode's
	// unknown screen (screen.go); the prompt seen again clears it.
	unknownTold bool
}

// New returns a Drainer for cfg (zero fields take their defaults; see Config).
// Nothing runs until Run is called.
func New(cfg Config) *Drainer {
	cfg = cfg.withDefaults()
	return &Drainer{
		cfg:    cfg,
		log:    cfg.Logger,
		wake:   make(chan struct{}, 1),
		agents: make(map[string]*agentState),
	}
}

// Wake tells the drain that the store or a terminal changed (a message was
// queued, released or removed; a status, draft or picker changed). It never
// blocks and may be called from any goroutine, before or while Run runs. The
// first Wake arms a pass Config.Debounce later; Wakes before that pass are
// folded into it and do not postpone it.
func (d *Drainer) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run is the drain's decision goroutine: it runs a pass on the debounce after
// Wake, every Config.Tick regardless, and when an agent's cooldown ends, until
// ctx is done. It never blocks on a PTY write: each delivery runs on its own
// goroutine, at most one per agent. Once ctx is done, Run cancels the
// deliveries in flight, waits up to a second for them to finish (a Write that
// ignores its ctx is abandoned), and returns ctx.Err(). It returns an error at
// once if Config.Store or Config.Agents is nil. Call Run once.
func (d *Drainer) Run(ctx context.Context) error {
	if d.cfg.Store == nil || d.cfg.Agents == nil {
		return errors.New("drain: Config.Store and Config.Agents are required")
	}
	d.mu.Lock()
	d.runCtx = ctx
	d.mu.Unlock()
	clock := d.cfg.Clock
	tick := clock.After(d.cfg.Tick)
	var debounce, cooled <-chan time.Time
	var cooledAt time.Time
	for {
		select {
		case <-ctx.Done():
			// No hand-over claims the slot from now on (Handover reads
			// runCtx under d.mu), so every one counted is waited for.
			d.mu.Lock()
			d.runCtx = nil
			d.mu.Unlock()
			d.waitInFlight()
			return ctx.Err()
		case <-d.wake:
			if debounce == nil {
				debounce = clock.After(d.cfg.Debounce)
			}
			continue
		case <-debounce:
			debounce = nil
		case <-tick:
			tick = clock.After(d.cfg.Tick)
		case <-cooled:
			cooled, cooledAt = nil, time.Time{}
		}
		next := d.pass(ctx)
		if !next.IsZero() && (cooled == nil || next.Before(cooledAt)) {
			cooled, cooledAt = clock.After(next.Sub(clock.Now())), next
		}
	}
}

// waitInFlight waits for the submit goroutines, at most abandonAfter.
func (d *Drainer) waitInFlight() {
	done := make(chan struct{})
	go func() {
		d.inFlight.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-d.cfg.Clock.After(abandonAfter):
		d.log.Warn("drain stopped with a write still blocked; abandoning it")
	}
}

// pass looks at every agent with pending messages once. It returns the
// earliest time an agent held only by its cooldown may be tried again (zero
// for none).
func (d *Drainer) pass(ctx context.Context) (next time.Time) {
	d.approvals(ctx) // before messages: an approval answers a dialog now open
	names, err := d.cfg.Store.PendingAgents(ctx)
	if err != nil {
		if ctx.Err() == nil {
			d.log.Error("listing pending agents", "err", err)
		}
		return time.Time{}
	}
	pending := make(map[string]bool, len(names))
	for _, name := range names {
		pending[name] = true
		if at := d.consider(ctx, name); !at.IsZero() && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	d.clearHolds(ctx, pending)
	return next
}

// consider applies the gates to the agent's head message and either records a
// hold, drops the message (then looks at the new head), or starts delivering
// it. It returns when the cooldown that holds the agent ends, if that is the
// hold.
func (d *Drainer) consider(ctx context.Context, name string) (coolsAt time.Time) {
	if d.busy(name) {
		return time.Time{}
	}
	a, ok := d.cfg.Agents.Agent(name)
	if !ok {
		d.setHold(ctx, name, HoldUnknownAgent)
		return time.Time{}
	}
	if !d.retryAside(ctx, name) {
		d.setHold(ctx, name, HoldInterrupted)
		return time.Time{}
	}
	for range maxDropsPerPass {
		m, ok, err := d.cfg.Store.Head(ctx, name)
		if err != nil {
			if ctx.Err() == nil {
				d.log.Error("reading queue head", "agent", name, "err", err)
			}
			return time.Time{}
		}
		if !ok {
			d.setHold(ctx, name, HoldNone)
			return time.Time{}
		}
		if rec, ok := d.unsettled(name, m.ID); ok {
			// Delivered already: only the record is missing. Try again.
			if err := d.cfg.Store.Delivered(ctx, m.ID, rec.note, rec.state); err != nil {
				d.setHold(ctx, name, HoldInterrupted)
				return time.Time{}
			}
			d.mu.Lock()
			d.stateLocked(name).unsettled = nil
			d.mu.Unlock()
			continue
		}
		if m.Interrupted && d.settleHeld(ctx, name, a, m) {
			continue // delivered on a late record, set aside, or changed meanwhile
		}
		v := d.check(ctx, name, a, m)
		switch {
		case v.err != nil:
			if ctx.Err() == nil {
				d.log.Error("checking gates", "agent", name, "msg", m.ID, "err", v.err)
			}
			return time.Time{}
		case v.drop != "":
			if !d.drop(ctx, name, m, v.drop, v.notice) {
				return time.Time{}
			}
			continue // no cooldown was stamped: the next message may go now
		case v.hold != HoldNone:
			d.setHold(ctx, name, v.hold)
			return v.coolsAt
		}
		d.setHold(ctx, name, HoldNone)
		d.start(ctx, name, a, m)
		return time.Time{}
	}
	return time.Time{}
}

// drop removes m from the queue without typing it, logs and notifies. It
// reports whether the store dropped it.
func (d *Drainer) drop(ctx context.Context, name string, m queue.Message, reason DropReason, notice NoticeKind) bool {
	if err := d.cfg.Store.Drop(ctx, m.ID, reason); err != nil {
		d.log.Error("dropping message", "agent", name, "msg", m.ID, "reason", reason, "err", err)
		return false
	}
	d.log.Warn("message dropped", "agent", name, "msg", m.ID, "reason", reason)
	d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: notice, Text: m.Text})
	return true
}

// setAsideHeld sets aside m, held for name, whose process has ended since it
// was typed, with evidence, and tells the person (restarted: the notice of a
// message the agent drew nothing after; else the one of an exit during the
// submit check). ok reports whether the store set it aside; changed, that it
// did not because the message was removed or released meanwhile (no notice:
// it was not set aside).
func (d *Drainer) setAsideHeld(ctx context.Context, name string, m queue.Message, evidence string, restarted bool) (ok, changed bool) {
	text := exitedNotice(name, m, evidence)
	if restarted {
		text = fmt.Sprintf("message %d set aside: %s was restarted after it drew nothing; the rest of its queue goes on (office queue release %d or rm %d)",
			m.ID, name, m.ID, m.ID)
	}
	if err := d.cfg.Store.SetAsideHeld(ctx, m, evidence); err != nil {
		if errors.Is(err, queue.ErrNotFound) {
			d.log.Info("held message not set aside: it changed meanwhile", "agent", name, "msg", m.ID, "why", err)
			return false, true
		}
		d.log.Error("setting aside a held message", "agent", name, "msg", m.ID, "err", err)
		return false, false
	}
	d.log.Warn("held message set aside: the agent's process it was typed into has ended", "agent", name, "msg", m.ID)
	d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeSetAside, Text: text})
	return true, false
}

// start marks the agent in flight and delivers m on a goroutine of its own,
// unless a delivery took the agent's slot since the pass looked (a
// hand-over, handover.go).
func (d *Drainer) start(ctx context.Context, name string, a Agent, m queue.Message) {
	d.mu.Lock()
	st := d.stateLocked(name)
	if st.inFlight {
		d.mu.Unlock()
		return
	}
	st.inFlight = true
	d.mu.Unlock()
	d.inFlight.Add(1)
	go func() {
		defer d.inFlight.Done()
		defer d.finished(name)
		d.deliver(ctx, name, a, m)
	}()
}

// finished clears the agent's in-flight guard and wakes the loop, so the
// agent's next message (or its new hold) is looked at soon.
func (d *Drainer) finished(name string) {
	d.mu.Lock()
	d.stateLocked(name).inFlight = false
	d.mu.Unlock()
	d.Wake()
}

// deliveredRecord is what the store records of a delivery: its note (for
// people) and its state (queue.StateConfirmed or StateUnconfirmed, for
// readers to decide by).
type deliveredRecord struct {
	note, state string
}

// deliveredState is the "delivered" event's state of an outcome confirmed
// or not.
func deliveredState(confirmed bool) string {
	if confirmed {
		return queue.StateConfirmed
	}
	return queue.StateUnconfirmed
}

// unsettled returns the record of message id if it was delivered but not
// yet recorded as such.
func (d *Drainer) unsettled(name string, id int64) (deliveredRecord, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rec, ok := d.stateLocked(name).unsettled[id]
	return rec, ok
}

// busy reports whether a submit to the agent is in flight.
func (d *Drainer) busy(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stateLocked(name).inFlight
}

// lastAttempt returns when the last attempt to the agent began.
func (d *Drainer) lastAttempt(name string) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stateLocked(name).lastAttempt
}

// stampAttempt starts the agent's cooldown at now.
func (d *Drainer) stampAttempt(name string, now time.Time) {
	d.mu.Lock()
	d.stateLocked(name).lastAttempt = now
	d.mu.Unlock()
}

// stateLocked returns the agent's state, creating it. d.mu must be held.
func (d *Drainer) stateLocked(name string) *agentState {
	st, ok := d.agents[name]
	if !ok {
		st = &agentState{}
		d.agents[name] = st
	}
	return st
}
