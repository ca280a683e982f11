package drain

// An agent whose process exits during the submit check (docs/evidence.md,
// "An exit during the submit check"): classifyExited (outcome.go) decides;
// here are a set aside the store failed to record, tried again each pass,
// and the person's notices.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"office/queue"
)

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

// exitedHeldNotice is the person's notice of message m held (the store
// failed to set it aside) because agent's process exited during its submit
// check.
func exitedHeldNotice(agent string, m queue.Message, evidence string) string {
	return fmt.Sprintf("message %d held: %s exited before its submit was seen; office queue release %d or rm %d\n"+
		"Message %d for %s is held: %s. It is not typed again on its own and holds the rest of the queue until "+
		"the agent runs again: `office queue release %d` types it again, `office queue rm %d` drops it.\nText: %s",
		m.ID, agent, m.ID, m.ID, m.ID, agent, evidence, m.ID, m.ID, NoticeText(m))
}

// NoticeText is m's text as a person's notice quotes it: trimmed and
// bounded to maxNoticeText runes, an ellipsis marking a cut.
func NoticeText(m queue.Message) string {
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
		m.ID, agent, m.ID, m.ID, m.ID, agent, evidence, m.ID, m.ID, NoticeText(m))
}
