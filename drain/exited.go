package drain

// An agent whose process exits during the submit check (docs/evidence.md,
// "An exit during the submit check"). The exit proves nothing about the
// submit: a CLI that exits on its own (/exit, a one-shot CLI, a crash right
// after it took the prompt) may have taken it, one killed by a restart while
// it was not yet taking Enter did not. So the evidence of crash recovery
// decides: the CLI's records where they can, else the message is set aside
// for the person, never counted delivered and never typed twice.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"office/queue"
)

// noteExited is verify's note when the agent's process exited before a
// submit was seen.
const noteExited = "the agent exited"

// errExitedNotTaken is the failed attempt recorded for a text whose agent
// exited during the submit check while its records, seen to record that
// process's prompts, do not show it.
var errExitedNotTaken = errors.New("the agent's process exited before it took the text: its records, which record its prompts, do not show it")

// settleExited settles m, typed with its Enter into a whose process exited
// before the submit check saw the submit, or (screen set: its note) whose
// last screen showed the prompt emptied after our text, as after a submit.
// since is when writing began; proven says whether, before typing, the
// agent's records were seen to record that process's prompts. In order:
//
//  1. the records show the text since writing began: delivered;
//  2. screen set and the CLI keeps no records that can tell (none office
//     reads, or a slash command): delivered on the last screen;
//  3. an inbox delivery: a failed attempt, typed again into the next
//     process (its items carry ids the agent can skip);
//  4. proven records, all read, do not show it (after Config.EvidenceFor;
//     records that could not be read, or a restart into a session whose
//     records are elsewhere, prove nothing): the CLI never took it, and the text died on its prompt with the process; a
//     failed attempt (bounded, loud at the last), typed again into the next
//     process after the cooldown;
//  5. anything else (no records, records not proven for that process, a
//     slash command): set aside with a notice naming it; it may or may not
//     have reached the agent. With screen set that is records not proven:
//     a last screen alone does not settle a delivery its CLI's records
//     could have (a CLI may redraw its input empty as it is killed).
//
// A drain stopping meanwhile settles nothing: the message stays in flight
// and the next start's recovery settles it from the same evidence.
func (d *Drainer) settleExited(ctx, ack context.Context, log *slog.Logger, name string, m queue.Message, t typing, since time.Time, proven bool, screen string) {
	keeps, _ := d.recordable(name, t)
	var unread error
	if keeps {
		var src string
		var ok bool
		if src, ok, unread = d.received(ctx, name, t, since, d.cfg.EvidenceFor); ok {
			note := "received (the agent exited before the screen showed the submit); evidence=" + src
			if screen != "" {
				note = screen + "; evidence=" + src
			}
			d.settleDelivered(ack, log, name, m.ID, note)
			return
		}
	}
	if ctx.Err() != nil {
		log.Info("drain stopped while settling a delivery whose agent exited; recovery settles it at the next start")
		return
	}
	switch {
	case screen != "" && !keeps:
		note := screen
		if d.cfg.Evidence != nil {
			note = evidenceNote(screen, "", false, false)
		}
		d.settleDelivered(ack, log, name, m.ID, note)
		return
	case m.Kind == queue.KindInbox:
		log.Warn("the agent exited during the submit check; the inbox delivery is typed again into its next process")
		d.attemptFailed(ack, log, name, m, errors.New("the agent's process exited before the submit was seen; delivered again (its items carry ids)"))
		return
	case keeps && proven && unread == nil:
		log.Warn("the agent exited during the submit check and its records do not show the text; typed again into its next process")
		d.attemptFailed(ack, log, name, m, errExitedNotTaken)
		return
	}
	what := "typed, then the agent's process exited before the submit was seen; "
	if screen != "" {
		what = "typed, then the agent's process exited, its last screen showing the prompt emptied as after a submit; "
	}
	evidence := what + exitUnknown(d.cfg.Evidence != nil, keeps, unread, t) + ", so it may or may not have reached the agent"
	log.Warn("the agent exited during the submit check; no evidence settles the delivery, set aside", "evidence", evidence)
	switch d.setAside(ack, log, m.ID, evidence) {
	case asideDone:
		d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeSetAside, Text: exitedNotice(name, m, evidence)})
	case asideHeld:
		d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeHeld, Text: exitedHeldNotice(name, m, evidence)})
	case asideFailed:
		// Still in flight in the store, neither set aside nor held: Head
		// would return it and gate 0 would not stop it. Remembered, the
		// agent's queue is held and each pass tries again (retryAside).
		d.mu.Lock()
		d.stateLocked(name).aside = &pendingAside{m: m, evidence: evidence}
		d.mu.Unlock()
	}
}

// pendingAside is a message whose setting aside the store did not record
// (nor a hold instead): it is still in flight there, so the drain holds its
// agent's queue and tries again each pass.
type pendingAside struct {
	m        queue.Message
	evidence string
}

// retryAside tries again to set aside the agent's pending message, if any.
// It reports whether the agent's queue may go on (nothing pending any more).
func (d *Drainer) retryAside(ctx context.Context, name string) bool {
	d.mu.Lock()
	p := d.stateLocked(name).aside
	d.mu.Unlock()
	if p == nil {
		return true
	}
	err := d.cfg.Store.SetAside(ctx, p.m.ID, p.evidence)
	switch {
	case err == nil:
		d.log.Warn("message set aside at last", "agent", name, "msg", p.m.ID)
		d.cfg.Notify(Notice{Agent: name, MsgID: p.m.ID, Kind: NoticeSetAside, Text: exitedNotice(name, p.m, p.evidence)})
	case errors.Is(err, queue.ErrNotFound):
		d.log.Info("not set aside: the message changed meanwhile", "agent", name, "msg", p.m.ID, "why", err)
	default:
		if ctx.Err() == nil {
			d.log.Error("setting a message aside, again", "agent", name, "msg", p.m.ID, "err", err)
		}
		return false
	}
	d.mu.Lock()
	d.stateLocked(name).aside = nil
	d.mu.Unlock()
	return true
}

// exitUnknown says why no evidence settles a delivery whose agent exited.
func exitUnknown(evidence, keeps bool, unread error, t typing) string {
	switch {
	case evidence && isCommand(t.text):
		return "a command leaves no record in the CLI's records"
	case keeps && unread != nil:
		return "the CLI's records that would show it were not read (" + unread.Error() + ")"
	case keeps:
		return "the CLI's records do not show it and were not yet seen recording that run of it"
	}
	return "its CLI keeps no record office reads"
}

// asideResult is what setAside achieved.
type asideResult int

const (
	// asideDone: set aside.
	asideDone asideResult = iota
	// asideChanged: the message changed meanwhile (removed); nothing to do.
	asideChanged
	// asideHeld: the store did not set it aside but held it (gate 0 stops
	// it; set aside once the agent runs a new process).
	asideHeld
	// asideFailed: neither; it is still in flight in the store.
	asideFailed
)

// setAside sets message id aside, retrying a failing store as
// settleDelivered does. If it still fails, the message is held instead (it
// must never be typed again on its own).
func (d *Drainer) setAside(ack context.Context, log *slog.Logger, id int64, evidence string) asideResult {
	wait := settleRetry
	for try := 1; ; try++ {
		err := d.cfg.Store.SetAside(ack, id, evidence)
		switch {
		case err == nil:
			return asideDone
		case errors.Is(err, queue.ErrNotFound):
			log.Info("not set aside: the message changed meanwhile", "why", err)
			return asideChanged
		case try == settleTries:
			log.Error("setting a message aside failed; holding it instead", "err", err)
			if err := d.cfg.Store.Hold(ack, id, evidence); err != nil {
				log.Error("holding the message; its agent's queue waits until it is set aside", "err", err)
				return asideFailed
			}
			return asideHeld
		}
		_ = d.sleep(ack, wait)
		wait *= 2
	}
}

// exitedHeldNotice is the person's notice of message m held (the store
// failed to set it aside) because agent's process exited during its submit
// check.
func exitedHeldNotice(agent string, m queue.Message, evidence string) string {
	return fmt.Sprintf("message %d held: %s exited before its submit was seen; office queue release %d or rm %d\n"+
		"Message %d for %s is held: %s. It is not typed again on its own and holds the rest of the queue until "+
		"the agent runs again: `office queue release %d` types it again, `office queue rm %d` drops it.\nText: %s",
		m.ID, agent, m.ID, m.ID, m.ID, agent, evidence, m.ID, m.ID, noticeText(m))
}

// noticeText is m's text as a notice quotes it (bounded).
func noticeText(m queue.Message) string {
	text := []rune(strings.TrimSpace(m.Text))
	if len(text) > maxNoticeText {
		text = append(text[:maxNoticeText], '…')
	}
	return string(text)
}

// exitedNotice is the person's notice of message m set aside because
// agent's process exited during its submit check; its first line says it all
// in short.
func exitedNotice(agent string, m queue.Message, evidence string) string {
	return fmt.Sprintf("message %d set aside: %s exited before its submit was seen; office queue release %d or rm %d\n"+
		"Message %d for %s was set aside: %s. It is not typed again on its own and does not hold the rest of the "+
		"queue: `office queue release %d` types it again, `office queue rm %d` drops it.\nText: %s",
		m.ID, agent, m.ID, m.ID, m.ID, agent, evidence, m.ID, m.ID, noticeText(m))
}
