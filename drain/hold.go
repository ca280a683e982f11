package drain

// Hold reasons: why an agent's head message is not being typed right now, in
// the one vocabulary of the README's hold reasons (UI titles, `office queue`,
// tests). The
// drain keeps the current reason per agent in memory (Holds, for the UI) and
// records it in the store only when it changes.

import (
	"context"
	"fmt"
	"time"

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

// heldWhy is why the drain held a message it typed (queue.Store.Hold: it
// holds its agent's queue and is never typed again on its own): a code the
// drain decides by, and a label, recorded as the message's evidence (what
// `office queue` shows). The drain remembers the code of each message it
// holds (agentState.held); the label is never read back to decide.
type heldWhy int

const (
	// heldNothingDrawn: the agent drew nothing after the text was typed; it
	// may still read it.
	heldNothingDrawn heldWhy = iota + 1
	// heldUnconfirmed: typed into a CLI that keeps records, which never
	// showed it (typed, not confirmed).
	heldUnconfirmed
	// heldAsideFailed: its agent exited during the submit check and no
	// evidence settled it, and the store failed to set it aside; its label
	// is the evidence it was to be set aside with.
	heldAsideFailed
	// heldHanded: handed over through the CLI's turn-end hook, and its
	// records never showed it (handover.go).
	heldHanded
)

// label is the evidence recorded for a message held for w ("" for
// heldAsideFailed, whose evidence is its own).
func (w heldWhy) label() string {
	switch w {
	case heldNothingDrawn:
		return heldReason
	case heldUnconfirmed:
		return unconfirmedReason
	case heldHanded:
		return handedReason
	}
	return ""
}

// heldTyping is a message the drain held after typing it, with what it
// knows of that typing. It lives in memory only: a stop of the office
// settles every held message at the next start (queue.Store
// .RecoverInterrupted), from the same records.
type heldTyping struct {
	id     int64
	why    heldWhy
	text   string    // as typed
	since  time.Time // typing began
	screen string    // the submit check's note
	// confirmed: the submit check's screen showed the submit
	// (screenSeen.confirmed).
	confirmed bool
	writing   time.Time // the store's stamp of that typing (queue.Message.Writing), taken from the head at first sight
	looked    time.Time // the records were last read (settleHeld)
	done      bool      // the records are read no more: this typing's record can no longer come
	channel   string    // the channel it was handed over by ("" typed)
}

// heldOf returns what the drain knows of m, the agent's head, as it held
// it; nil if it did not hold it, or m is no longer held from that typing
// (released, removed or set aside since, or typed again: its Writing stamp
// changed; then it is forgotten).
func (d *Drainer) heldOf(name string, m queue.Message) *heldTyping {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.stateLocked(name)
	h := st.held
	if h == nil {
		return nil
	}
	if h.writing.IsZero() {
		// The drain held it right after typing it; the store stamped that
		// typing (Writing), and the head read next carries the stamp.
		h.writing = m.Writing
	}
	if h.id != m.ID || !m.Interrupted || m.SetAside || !h.writing.Equal(m.Writing) {
		st.held = nil
		return nil
	}
	return h
}

// settleHeld settles m, the agent's head held after it was typed, as
// classify decides from what is observed of it now: its records, read again
// at most every heldRecordPoll while it is held typed, not confirmed (a
// CLI under load may write its record after evidence_wait), and whether the
// process it was typed into has ended since (an inbox delivery's items stay
// leased to it; it is not set aside here). Only the first prompt recorded
// since its typing can be its record (Evidence.Late), and only one dated
// before a restart; the reads stop once another prompt is recorded, or
// heldRecordWaits evidence_waits after the typing began, so a person typing
// in its pane, now or hours later, never settles it, and the drain's one
// goroutine reads records a bounded number of times per held typing. It
// reports whether the head changed (delivered, set aside, or changed by the
// person meanwhile). Run's goroutine only.
func (d *Drainer) settleHeld(ctx context.Context, name string, a Agent, m queue.Message) bool {
	spawned := a.Spawned()
	o := observed{stage: stageHeld, inbox: m.Kind == queue.KindInbox, heldEvidence: m.Evidence, spawned: spawned,
		restarted: !m.SetAside && !m.Writing.IsZero() && spawned.After(m.Writing)}
	h := d.heldOf(name, m)
	if h != nil {
		o.held, o.screen = h.why, screenSeen{kind: seenSubmit, note: h.screen, confirmed: h.confirmed}
	}
	if h != nil && h.why == heldHanded && d.cfg.Evidence != nil {
		d.lateHanded(ctx, name, h, &o)
	}
	if h != nil && h.why == heldUnconfirmed && d.cfg.Evidence != nil {
		now := d.cfg.Clock.Now()
		d.mu.Lock()
		due := !h.done && now.Sub(h.looked) >= heldRecordPoll
		if due {
			h.looked = now
			h.done = now.Sub(h.since) > heldRecordWaits*d.cfg.EvidenceFor // this read is the last
		}
		d.mu.Unlock()
		if due {
			var until time.Time
			if o.restarted {
				until = spawned // a prompt since is the new process's
			}
			late, err := d.cfg.Evidence.Late(ctx, name, h.text, h.since, until)
			if err != nil {
				d.log.Debug("reading the records of a message held typed, not confirmed", "agent", name, "msg", m.ID, "err", err)
			}
			o.found, o.source, o.recordAt = late.Any && late.Same, late.Source, late.At
			if late.Any {
				// The first prompt since is recorded: it is this typing's
				// record, or this typing's record never comes.
				d.mu.Lock()
				h.done = true
				d.mu.Unlock()
			}
		}
	}
	out := classify(o)
	if out.kind == outDelivered {
		d.mu.Lock()
		d.stateLocked(name).held = nil
		d.mu.Unlock()
	}
	return d.settle(ctx, d.log.With("agent", name, "msg", m.ID), name, a, m, typing{}, time.Time{}, o, out)
}

// lateHanded reads again, at most every heldRecordPoll and for
// heldRecordWaits evidence_waits after it was handed over, the records of a
// message held handed over, not confirmed (a CLI under load may write its
// record late), into o. Only a hand-over of its text recorded since it was
// handed over counts (records.Handed: never a typed prompt).
func (d *Drainer) lateHanded(ctx context.Context, name string, h *heldTyping, o *observed) {
	now := d.cfg.Clock.Now()
	d.mu.Lock()
	due := !h.done && now.Sub(h.looked) >= heldRecordPoll
	if due {
		h.looked = now
		h.done = now.Sub(h.since) > heldRecordWaits*d.cfg.EvidenceFor
	}
	d.mu.Unlock()
	if !due {
		return
	}
	o.channel = h.channel
	source, ok, err := d.cfg.Evidence.Handed(ctx, name, h.text, h.since)
	if err != nil {
		d.log.Debug("reading the records of a message held handed over, not confirmed", "agent", name, "msg", h.id, "err", err)
	}
	o.found, o.source = ok, source
}

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
	return fmt.Sprintf("message %d held: %s drew nothing after it; office queue rm %d or release %d\n"+
		"Message %d was typed into %s, which drew nothing at all afterwards: it may not be reading its input yet, and may "+
		"still read the message later. It is not typed again on its own, and nothing else is typed into %s until you "+
		"decide (other agents go on). Look at its pane: if the message arrived, or you do not want it, `office queue rm %d` "+
		"drops it%s and the rest of the queue goes on; `office queue release %d` types it again.\nText: %s",
		m.ID, agent, m.ID, m.ID, m.ID, agent, agent, m.ID, rmInbox(m), m.ID, NoticeText(m))
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
