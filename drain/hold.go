package drain

// Hold reasons: why an agent's head message is not being typed right now, in
// the one vocabulary of design.md §9 (UI titles, `office queue`, tests). The
// drain keeps the current reason per agent in memory (Holds, for the UI) and
// records it in the store only when it changes.

import "context"

// The hold reasons the drain gives besides the automation block words
// (automation.Block.String: "exited", "picker open", "your draft",
// "settling").
const (
	// HoldBusy: the agent is working on a turn (or still starting).
	HoldBusy = "busy"
	// HoldWaiting: a dialog waits for a human; Enter would answer it.
	HoldWaiting = "waiting"
	// HoldExited: the agent's process has exited; its messages stay queued
	// and no attempt is counted.
	HoldExited = "exited"
	// HoldPaused: the agent's or the floor's auto-delivery is paused and the
	// message is not manual.
	HoldPaused = "paused"
	// HoldBooting: the agent's boot grace is not over and its profile has
	// not said ready.
	HoldBooting = "booting"
	// HoldCoolingDown: the last attempt to this agent began less than the
	// cooldown ago.
	HoldCoolingDown = "cooling down"
	// HoldNoPasteMode: the text has several lines, the agent has bracketed
	// paste off and is not typed line by line; the message is held, never
	// split into several prompts.
	HoldNoPasteMode = "no paste mode"
	// HoldUnknownAgent: no terminal has the message's agent name.
	HoldUnknownAgent = "unknown agent"
	// HoldInterrupted: the office stopped while typing this message, so it
	// may already have reached the agent; it waits for the person to release
	// it ("send now") or remove it, and is never retyped on its own.
	HoldInterrupted = "interrupted"
)

// Holds returns, for every agent whose head message is held, the current hold
// reason. Agents being delivered to, or with nothing queued, are absent. The
// map is a fresh copy. Safe for concurrent use.
func (d *Drainer) Holds() map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]string)
	for name, st := range d.agents {
		if st.hold != "" {
			out[name] = st.hold
		}
	}
	return out
}

// setHold makes reason the agent's current hold and records it in the store
// if the store does not have it yet. Run's goroutine only.
func (d *Drainer) setHold(ctx context.Context, name, reason string) {
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
		if !pending[name] && !st.inFlight && (st.hold != "" || (st.storedKnown && st.stored != "")) {
			stale = append(stale, name)
		}
	}
	d.mu.Unlock()
	for _, name := range stale {
		d.setHold(ctx, name, "")
	}
}
