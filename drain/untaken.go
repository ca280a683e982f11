package drain

// An attempt the screen saw submitted but the CLI's proven records did not
// show within evidence_wait is counted failed and typed again after the
// cooldown (classifyNoRecord). Its record may still come: a CLI under load
// writes it late. Before the text is typed again, the drain waits until
// untakenWaits evidence_waits after that typing began and reads the records
// once more; the first prompt recorded since that typing, equal to its
// text, settles it delivered (classify, stageUntaken) and nothing is typed.

import (
	"context"
	"log/slog"
	"time"

	"office/queue"
)

// untakenTyping is an attempt counted failed for want of a record.
type untakenTyping struct {
	id     int64
	text   string    // as typed
	since  time.Time // when its typing began
	screen string    // the note of the submit the screen saw
	// confirmed: that screen showed the submit (screenSeen.confirmed).
	confirmed bool
}

// rememberUntaken notes u, an attempt of the agent name's counted failed
// because the records did not show it.
func (d *Drainer) rememberUntaken(name string, u untakenTyping) {
	if u.text == "" || u.since.IsZero() {
		return
	}
	d.mu.Lock()
	d.stateLocked(name).untaken = &u
	d.mu.Unlock()
}

// untakenOf is the agent's remembered untaken attempt of message id, or nil.
// An entry for another message stays: a message sent now by the person may
// go first, and the untaken one comes back to the head after it.
func (d *Drainer) untakenOf(name string, id int64) *untakenTyping {
	d.mu.Lock()
	defer d.mu.Unlock()
	if u := d.stateLocked(name).untaken; u != nil && u.id == id {
		return u
	}
	return nil
}

// untakenDue is when message id, untaken, may be typed again (zero: it is
// not an untaken one, or the drain reads no records): the typed gates hold
// it as cooling down until then (gates.go), and the channel never hands it
// over (handover.go): only the typed path reads its records once more.
func (d *Drainer) untakenDue(name string, id int64) time.Time {
	if d.cfg.Evidence == nil {
		return time.Time{}
	}
	if u := d.untakenOf(name, id); u != nil {
		return u.since.Add(untakenWaits * d.cfg.EvidenceFor)
	}
	return time.Time{}
}

// untakenSettled reports whether m must not be typed now: its last attempt
// was counted failed for want of a record and untakenWaits evidence_waits
// have not passed since its typing began (the gates hold it until then;
// this is the backstop of a stale pass, and no attempt), or its records
// show it now and it was settled delivered. On the agent's submit
// goroutine, before anything is stamped.
func (d *Drainer) untakenSettled(ctx context.Context, log *slog.Logger, name string, a Agent, m queue.Message) bool {
	u := d.untakenOf(name, m.ID)
	if u == nil || d.cfg.Evidence == nil {
		return false
	}
	if d.cfg.Clock.Now().Before(d.untakenDue(name, m.ID)) {
		log.Debug("not typing again yet: the records of the last attempt may still come")
		return true
	}
	d.mu.Lock()
	if st := d.stateLocked(name); st.untaken == u {
		st.untaken = nil
	}
	d.mu.Unlock()
	var until time.Time
	if spawned := a.Spawned(); spawned.After(u.since) {
		until = spawned // a prompt since is the new process's
	}
	late, err := d.cfg.Evidence.Late(ctx, name, u.text, u.since, until)
	if err != nil {
		log.Debug("reading the records of an attempt counted failed", "err", err)
	}
	o := observed{stage: stageUntaken, screen: screenSeen{kind: seenSubmit, note: u.screen, confirmed: u.confirmed},
		found: late.Any && late.Same, source: late.Source, recordAt: late.At}
	out := classify(o)
	if out.kind == outUnchanged {
		return false
	}
	d.settle(context.WithoutCancel(ctx), log, name, a, m, typing{}, u.since, o, out)
	return true
}
