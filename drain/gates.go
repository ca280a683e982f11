package drain

// The gates a head message must pass, in the order of docs/design.md §2 and the
// drain contract: (0) its delivery was not interrupted (by a stop of the
// office, queue.Store.RecoverInterrupted, or held after it was typed: set
// aside once that agent's process has been restarted since, or delivered on
// a late record, by settleHeld before the gates), (1) not paused unless the
// message is manual (first: the pause is the person's decision and names the
// hold over whatever the agent is doing), (2) the agent is idle (a starting
// agent, whose boot gate the judge has not opened, is held "booting"), (3)
// no automation block, (3b) the screen is one office knows: the profile's
// prompt, empty, and no dialog (screen.go), (4) cooled down, (5) its
// precondition holds, (6) it can be typed without splitting it. The first
// failing gate names the hold; a failed precondition drops the message.
// Being booted is part of gate 2: the judge decides readiness and status
// together, so an agent not yet ready is starting.

import (
	"context"
	"time"

	"office/automation"
	"office/queue"
)

// verdict is what the gates decide about a head message. At most one of err,
// drop and hold is set; none set means deliver now.
type verdict struct {
	err error
	// drop is the reason to drop the message untyped, notice the Notice kind.
	drop   DropReason
	notice NoticeKind
	// hold is the hold reason; coolsAt is when it ends if it is the cooldown.
	hold    Hold
	coolsAt time.Time
}

// check applies the gates to m, the head of the agent's queue. Run's goroutine
// only.
func (d *Drainer) check(ctx context.Context, name string, a Agent, m queue.Message) verdict {
	now := d.cfg.Clock.Now()
	if m.Interrupted { // (0) maybe typed already: only the person may retype it
		// (Set aside once the process it was typed into has ended, or
		// delivered on a late record: settleHeld, before the gates.)
		return verdict{hold: HoldInterrupted}
	}
	if !m.Manual { // (1)
		agentPaused, floorPaused, err := d.cfg.Store.Paused(ctx, name)
		if err != nil {
			return verdict{err: err}
		}
		if agentPaused || floorPaused {
			return verdict{hold: HoldPaused}
		}
	}
	if h := statusHold(a, now); h != HoldNone { // (2)
		return verdict{hold: h}
	}
	if h := blockHold(a, now); h != HoldNone { // (3)
		return verdict{hold: h}
	}
	if h := d.screenGate(ctx, name, a); h != HoldNone { // (3b)
		return verdict{hold: h}
	}
	if at := d.lastAttempt(name).Add(cooldown(a, d.cfg.Cooldown)); now.Before(at) { // (4)
		return verdict{hold: HoldCoolingDown, coolsAt: at}
	}
	if at := d.untakenDue(name, m.ID); now.Before(at) { // (4) an untaken attempt's record may still come
		return verdict{hold: HoldCoolingDown, coolsAt: at}
	}
	ok, err := d.precondition(ctx, m) // (5)
	if err != nil {
		return verdict{err: err}
	}
	if !ok {
		return verdict{drop: DropPrecondition(preconditionName(m)), notice: NoticePreconditionDropped}
	}
	t, hold := plan(m.Text, a, d.cfg.PasteThreshold) // (6)
	if hold != HoldNone {
		return verdict{hold: hold}
	}
	if t.text == "" {
		return verdict{drop: DropNothingLeft, notice: NoticeDropped}
	}
	return verdict{}
}

// statusHold is gate (2): HoldNone when the agent's status is deliverable,
// else the hold. An agent counts as exited when its status or its block says
// so.
func statusHold(a Agent, now time.Time) Hold {
	s := a.Status()
	if s == automation.StatusExited || a.Block(now) == automation.BlockExited {
		return HoldExited
	}
	switch {
	case automation.Deliverable(s):
		return HoldNone
	case s == automation.StatusWaiting:
		return HoldWaiting
	case limitHold(s) != HoldNone:
		return limitHold(s)
	case s == automation.StatusStarting:
		// The judge's boot gate is closed: the agent has not shown ready
		// and its boot grace is not over (automation.Judgment.BootOpen).
		return HoldBooting
	}
	return HoldBusy
}

// blockHold is gate (3): the block's hold, or HoldNone for none.
func blockHold(a Agent, now time.Time) Hold {
	return BlockHold(a.Block(now))
}

// precondition is gate (5).
func (d *Drainer) precondition(ctx context.Context, m queue.Message) (bool, error) {
	if d.cfg.Preconditions == nil {
		return m.Precondition == "", nil
	}
	return d.cfg.Preconditions(ctx, m)
}

// preconditionName names m's precondition in a drop reason.
func preconditionName(m queue.Message) string {
	switch {
	case m.Precondition != "":
		return m.Precondition
	case m.Kind != "":
		return string(m.Kind)
	}
	return "(none)"
}

// cooldown is the agent's own cooldown (SubmitProfile.Cooldown), else def.
func cooldown(a Agent, def time.Duration) time.Duration {
	if c := a.Submit().Cooldown; c > 0 {
		return c
	}
	return def
}
