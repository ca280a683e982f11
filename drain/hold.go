package drain

// Hold reasons: why an agent's head message is not being typed right now, in
// the one vocabulary of the README's hold reasons (UI titles, `office queue`,
// tests). The
// drain keeps the current reason per agent in memory (Holds, for the UI) and
// records it in the store only when it changes.

import (
	"context"
	"fmt"
	"strings"

	"office/automation"
	"office/queue"
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
	// HoldInterrupted: the office stopped while typing this message, or the
	// agent drew nothing at all after it was typed, so it may already have
	// reached the agent (or still sit unread in its input); it waits for
	// the person to release it ("send now") or remove it, and is never
	// retyped on its own. Held at the head of the queue (not set aside), it
	// holds that agent's queue: nothing else is typed after bytes the agent
	// may not have read yet.
	HoldInterrupted Hold = "interrupted"
)

// restartedEvidence is the evidence of a held message set aside because the
// agent's process was restarted since it was typed.
const restartedEvidence = "typed, then the agent drew nothing and its process ended; it may or may not have reached the agent"

// maxNoticeText bounds the runes of a message's text quoted in a notice.
const maxNoticeText = 200

// heldReason is the evidence recorded for a message held because the agent
// drew nothing after it was typed (queue.Message.Evidence, `office queue`).
const heldReason = "the agent showed nothing after it was typed; it may still read it"

// heldNotice is the person's notice of message m held for agent: what
// happened, what it holds and the one command for each way out. Its first
// line says it all in short (a notice list shows that line).
func heldNotice(agent string, m queue.Message) string {
	text := []rune(strings.TrimSpace(m.Text))
	if len(text) > maxNoticeText {
		text = append(text[:maxNoticeText], '…')
	}
	return fmt.Sprintf("message %d held: %s drew nothing after it; office queue rm %d or release %d\n"+
		"Message %d was typed into %s, which drew nothing at all afterwards: it may not be reading its input yet, and may "+
		"still read the message later. It is not typed again on its own, and nothing else is typed into %s until you "+
		"decide (other agents go on). Look at its pane: if the message arrived, or you do not want it, `office queue rm %d` "+
		"drops it and the rest of the queue goes on; `office queue release %d` types it again.\nText: %s",
		m.ID, agent, m.ID, m.ID, m.ID, agent, agent, m.ID, m.ID, string(text))
}

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
