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
// before the submit check saw the submit. since is when writing began;
// proven says whether, before typing, the agent's records were seen to
// record that process's prompts. In order:
//
//  1. the records show the text since writing began: delivered;
//  2. an inbox delivery: a failed attempt, typed again into the next
//     process (its items carry ids the agent can skip);
//  3. proven records do not show it (after Config.EvidenceFor): the CLI
//     never took it, and the text died on its prompt with the process; a
//     failed attempt (bounded, loud at the last), typed again into the next
//     process after the cooldown;
//  4. anything else (no records, records not proven for that process, a
//     slash command): set aside with a notice naming it; it may or may not
//     have reached the agent.
//
// A drain stopping meanwhile settles nothing: the message stays in flight
// and the next start's recovery settles it from the same evidence.
func (d *Drainer) settleExited(ctx, ack context.Context, log *slog.Logger, name string, m queue.Message, t typing, since time.Time, proven bool) {
	keeps, _ := d.recordable(name, t)
	if keeps {
		if src, ok := d.received(ctx, name, t, since, d.cfg.EvidenceFor); ok {
			d.settleDelivered(ack, log, name, m.ID, "received (the agent exited before the screen showed the submit); evidence="+src)
			return
		}
	}
	if ctx.Err() != nil {
		log.Info("drain stopped while settling a delivery whose agent exited; recovery settles it at the next start")
		return
	}
	switch {
	case m.Kind == queue.KindInbox:
		log.Warn("the agent exited during the submit check; the inbox delivery is typed again into its next process")
		d.attemptFailed(ack, log, name, m, errors.New("the agent's process exited before the submit was seen; delivered again (its items carry ids)"))
		return
	case keeps && proven:
		log.Warn("the agent exited during the submit check and its records do not show the text; typed again into its next process")
		d.attemptFailed(ack, log, name, m, errExitedNotTaken)
		return
	}
	evidence := "typed, then the agent's process exited before the submit was seen; " + exitUnknown(d.cfg.Evidence != nil, keeps, t) +
		", so it may or may not have reached the agent"
	log.Warn("the agent exited during the submit check; no evidence settles the delivery, set aside", "evidence", evidence)
	if !d.setAside(ack, log, m.ID, evidence) {
		return
	}
	d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeSetAside, Text: exitedNotice(name, m, evidence)})
}

// exitUnknown says why no evidence settles a delivery whose agent exited.
func exitUnknown(evidence, keeps bool, t typing) string {
	switch {
	case evidence && isCommand(t.text):
		return "a command leaves no record in the CLI's records"
	case keeps:
		return "the CLI's records do not show it and were not yet seen recording that run of it"
	}
	return "its CLI keeps no record office reads"
}

// setAside sets message id aside, retrying a failing store as
// settleDelivered does. If it still fails, the message is held instead
// (it must never be typed again on its own); it reports whether it was set
// aside.
func (d *Drainer) setAside(ack context.Context, log *slog.Logger, id int64, evidence string) bool {
	wait := settleRetry
	for try := 1; ; try++ {
		err := d.cfg.Store.SetAside(ack, id, evidence)
		switch {
		case err == nil:
			return true
		case errors.Is(err, queue.ErrNotFound):
			log.Info("not set aside: the message changed meanwhile", "why", err)
			return false
		case try == settleTries:
			log.Error("setting a message aside failed; holding it instead", "err", err)
			if err := d.cfg.Store.Hold(ack, id, evidence); err != nil {
				log.Error("holding the message", "err", err)
			}
			return false
		}
		_ = d.sleep(ack, wait)
		wait *= 2
	}
}

// exitedNotice is the person's notice of message m set aside because
// agent's process exited during its submit check; its first line says it all
// in short.
func exitedNotice(agent string, m queue.Message, evidence string) string {
	text := []rune(strings.TrimSpace(m.Text))
	if len(text) > maxNoticeText {
		text = append(text[:maxNoticeText], '…')
	}
	return fmt.Sprintf("message %d set aside: %s exited before its submit was seen; office queue release %d or rm %d\n"+
		"Message %d for %s was set aside: %s. It is not typed again on its own and does not hold the rest of the "+
		"queue: `office queue release %d` types it again, `office queue rm %d` drops it.\nText: %s",
		m.ID, agent, m.ID, m.ID, m.ID, agent, evidence, m.ID, m.ID, string(text))
}
