package drain

// Recording a delivery's outcome (outcome.go decides it): settle is the one
// call, each outcome one store transaction (queue.Store.Delivered,
// AttemptFailed, TypedNotSubmitted, Hold, SetAside, Unattempt), with the
// person's notice and what the drain remembers.

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"office/queue"
)

// settle records out, the outcome of typing m (as t, typing began at since)
// into the agent name (a). ack outlives the delivery's context, so a stopping
// office still records what reached the PTY. It reports whether m is no
// longer its agent's held head (false: unchanged, or a set aside of a held
// message the store failed).
func (d *Drainer) settle(ack context.Context, log *slog.Logger, name string, a Agent, m queue.Message, t typing, since time.Time, o observed, out outcome) bool {
	if out.log != "" && out.kind == outDelivered {
		log.Info(out.log)
	}
	switch out.kind {
	case outUnchanged:
		return false
	case outStopped:
		if out.draft {
			a.MarkDraft(t.text)
		}
		log.Info(out.log, "err", o.writeErr)
	case outRequeue:
		if out.log != "" {
			log.Info(out.log, "err", o.writeErr)
		}
		d.unattempt(ack, log, m.ID, out.note)
	case outDelivered:
		d.settleDelivered(ack, log, name, m, deliveredRecord{note: out.note, state: deliveredState(out.confirmed)}, o.channel)
	case outNotSubmitted:
		d.notSubmitted(ack, log, name, a, m, t)
	case outRetry:
		if out.log != "" {
			log.Warn(out.log)
		}
		if dropped := d.attemptFailed(ack, log, name, m, out.err); !dropped && errors.Is(out.err, errNoRecord) {
			d.rememberUntaken(name, untakenTyping{id: m.ID, text: t.text, since: since, screen: o.screen.note, confirmed: o.screen.confirmed})
		}
	case outHold:
		d.hold(ack, log, name, m, heldTyping{id: m.ID, why: out.held, text: t.text, since: since, screen: o.screen.note, confirmed: o.screen.confirmed, channel: o.channel}, out.log)
	case outAside:
		d.setAsideExited(ack, log, name, m, out.note, out.log)
	case outAsideHeld:
		ok, changed := d.setAsideHeld(ack, name, m, out.note, out.restarted)
		return ok || changed
	}
	return true
}

// settleDelivered records a delivery, retrying a failing store a few times.
// If it still fails, the message is remembered as unsettled: it is held
// ("interrupted") and never typed again by this drain, and each pass tries
// to record the delivery once more.
// channel is the channel's word that carried it ("" typed).
func (d *Drainer) settleDelivered(ctx context.Context, log *slog.Logger, name string, m queue.Message, rec deliveredRecord, channel string) {
	note := rec.note
	id := m.ID
	wait := settleRetry
	for try := 1; ; try++ {
		err := d.cfg.Store.Delivered(ctx, id, note, rec.state)
		if err == nil {
			log.Info("delivered", "note", note)
			d.mu.Lock()
			st := d.stateLocked(name)
			st.delivered = m // refused.go: the probe a refusal puts back
			st.deliveredBy = channel
			d.mu.Unlock()
			d.requeueRefused(ctx, name, m)
			return
		}
		if try == settleTries {
			log.Error("recording a delivery failed; the message is held and not typed again", "note", note, "err", err)
			d.mu.Lock()
			d.stateLocked(name).unsettled = map[int64]deliveredRecord{id: rec}
			d.mu.Unlock()
			return
		}
		_ = d.sleep(ctx, wait)
		wait *= 2
	}
}

// unattempt records that the stamped attempt on id was abandoned, nothing of
// it taken: why says how ("" is "nothing typed").
func (d *Drainer) unattempt(ctx context.Context, log *slog.Logger, id int64, why string) {
	if err := d.cfg.Store.Unattempt(context.WithoutCancel(ctx), id, why); err != nil {
		log.Warn("recording an abandoned attempt", "err", err)
	}
}

// attemptFailed counts a failed attempt on m (the store drops it at the
// last one, loudly: a log line and a notice).
func (d *Drainer) attemptFailed(ack context.Context, log *slog.Logger, name string, m queue.Message, werr error) (dropped bool) {
	dropped, attempts, err := d.cfg.Store.AttemptFailed(ack, m.ID, werr.Error(), d.cfg.MaxAttempts)
	if err != nil {
		log.Error("recording a failed attempt", "write_err", werr, "err", err)
		return false
	}
	if !dropped {
		log.Warn("delivery attempt failed; retrying after the cooldown", "attempt", attempts, "of", d.cfg.MaxAttempts, "err", werr)
		return false
	}
	log.Warn("message dropped after failed delivery attempts", "attempts", attempts, "err", werr, "text", preview(m.Text))
	d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeDropped, Text: m.Text})
	return true
}

// notSubmitted settles a message whose text was typed but never submitted: it
// leaves the queue (typing it again would duplicate it on the prompt), the
// text counts as a draft, and the person is told.
func (d *Drainer) notSubmitted(ack context.Context, log *slog.Logger, name string, a Agent, m queue.Message, t typing) {
	a.MarkDraft(t.text)
	if err := d.cfg.Store.TypedNotSubmitted(ack, m.ID); err != nil {
		log.Error("dropping a message typed but not submitted", "err", err)
	}
	log.Warn("message typed but not submitted; it sits on the prompt as a draft", "text", preview(t.text))
	d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeTypedNotSubmitted, Text: t.text})
}

// hold holds m at its agent's head for h.why (typed, not confirmed; nothing
// drawn after it), remembers h, and tells the person.
func (d *Drainer) hold(ack context.Context, log *slog.Logger, name string, m queue.Message, h heldTyping, why string) {
	log.Warn(why, "screen", h.screen, "text", preview(m.Text))
	if err := d.cfg.Store.Hold(ack, m.ID, h.why.label()); err != nil {
		log.Error("holding the message", "err", err)
	} else {
		d.mu.Lock()
		d.stateLocked(name).held = &h
		d.mu.Unlock()
	}
	text := heldNotice(name, m)
	switch h.why {
	case heldUnconfirmed:
		text = unconfirmedNotice(name, m)
	case heldHanded:
		text = handedNotice(name, m)
	}
	d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeHeld, Text: text})
}

// setAsideExited sets m aside with evidence (its agent exited during the
// submit check and no evidence settles it) and tells the person; should the
// store fail, it is held instead, or remembered to be set aside on each pass
// (retryAside).
func (d *Drainer) setAsideExited(ack context.Context, log *slog.Logger, name string, m queue.Message, evidence, why string) {
	log.Warn(why, "evidence", evidence)
	switch d.setAside(ack, log, m.ID, evidence) {
	case asideDone:
		d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeSetAside, Text: exitedNotice(name, m, evidence)})
	case asideHeld:
		d.mu.Lock()
		d.stateLocked(name).held = &heldTyping{id: m.ID, why: heldAsideFailed}
		d.mu.Unlock()
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
