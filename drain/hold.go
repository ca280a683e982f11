package drain

// Hold reasons: why an agent's head message is not being typed right now, in
// the one vocabulary of the README's hold reasons (UI titles, `office queue`,
// tests). The
// drain keeps the current reason per agent in memory (Holds, for the UI) and
// records it in the store only when it changes.

import (
	"context"

	"office/automation"
)

// Hold is a hold reason: one word or short phrase of the one vocabulary, as
// it is shown and recorded. "" means not held.
type Hold string

// The hold reasons.
const (
	// HoldNone: not held.
	HoldNone Hold = ""
	// HoldBusy: the agent is working on a turn.
	HoldBusy Hold = "busy"
	// HoldWaiting: a dialog waits for a human; Enter would answer it.
	HoldWaiting Hold = "waiting"
	// HoldExited: the agent's process has exited; its messages stay queued
	// and no attempt is counted.
	HoldExited Hold = "exited"
	// HoldPicker: a menu the person opened is believed open
	// (automation.BlockPicker).
	HoldPicker Hold = "picker open"
	// HoldDraft: the person's text is on the prompt (automation.BlockDraft).
	HoldDraft Hold = "your draft"
	// HoldSettling: a picker just closed and the CLI is still redrawing
	// (automation.BlockSettling).
	HoldSettling Hold = "settling"
	// HoldPaused: the agent's or the floor's auto-delivery is paused and the
	// message is not manual.
	HoldPaused Hold = "paused"
	// HoldBooting: the agent is starting: its profile has not said ready and
	// its boot grace is not over.
	HoldBooting Hold = "booting"
	// HoldCoolingDown: the last attempt to this agent began less than the
	// cooldown ago.
	HoldCoolingDown Hold = "cooling down"
	// HoldNoPasteMode: the text has several lines, the agent has bracketed
	// paste off and is not typed line by line; the message is held, never
	// split into several prompts.
	HoldNoPasteMode Hold = "no paste mode"
	// HoldUnknownAgent: no terminal has the message's agent name.
	HoldUnknownAgent Hold = "unknown agent"
	// HoldInterrupted: the office stopped while typing this message, so it
	// may already have reached the agent; it waits for the person to release
	// it ("send now") or remove it, and is never retyped on its own.
	HoldInterrupted Hold = "interrupted"
)

// BlockHold is the hold reason of an automation block (HoldNone for
// automation.BlockNone). Its words are automation.Block.String's.
func BlockHold(b automation.Block) Hold {
	switch b {
	case automation.BlockExited:
		return HoldExited
	case automation.BlockPicker:
		return HoldPicker
	case automation.BlockDraft:
		return HoldDraft
	case automation.BlockSettling:
		return HoldSettling
	}
	return HoldNone
}

// Holds returns, for every agent whose head message is held, the current hold
// reason. Agents being delivered to, or with nothing queued, are absent. The
// map is a fresh copy. Safe for concurrent use.
func (d *Drainer) Holds() map[string]Hold {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]Hold)
	for name, st := range d.agents {
		if st.hold != HoldNone {
			out[name] = st.hold
		}
	}
	return out
}

// setHold makes reason the agent's current hold and records it in the store
// if the store does not have it yet. Run's goroutine only.
func (d *Drainer) setHold(ctx context.Context, name string, reason Hold) {
	d.mu.Lock()
	st := d.stateLocked(name)
	st.hold = reason
	same := st.storedKnown && st.stored == reason
	d.mu.Unlock()
	if same {
		return
	}
	if err := d.cfg.Store.SetHold(ctx, name, reason); err != nil {
		d.log.Error("recording hold", "agent", name, "reason", reason, "err", err)
		return
	}
	d.log.Debug("hold", "agent", name, "reason", reason)
	d.mu.Lock()
	st.stored, st.storedKnown = reason, true
	d.mu.Unlock()
}

// clearHolds clears the hold of every agent that is not in pending (its queue
// emptied or was cleared) and still has one. Run's goroutine only.
func (d *Drainer) clearHolds(ctx context.Context, pending map[string]bool) {
	d.mu.Lock()
	var stale []string
	for name, st := range d.agents {
		if !pending[name] && !st.inFlight && (st.hold != HoldNone || (st.storedKnown && st.stored != HoldNone)) {
			stale = append(stale, name)
		}
	}
	d.mu.Unlock()
	for _, name := range stale {
		d.setHold(ctx, name, HoldNone)
	}
}
