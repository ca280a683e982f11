package drain

// One delivery, on its agent's submit goroutine: re-check the terminal, stamp
// the attempt, type, then settle the message (delivered, failed attempt,
// typed but not submitted). At most one runs per agent (the in-flight guard
// in drain.go).

import (
	"context"
	"errors"
	"log/slog"

	"office/queue"
)

// deliver types m into a and settles it. Store calls after the first write
// use a context that outlives ctx, so a stopping office still records what
// reached the PTY.
func (d *Drainer) deliver(ctx context.Context, name string, a Agent, m queue.Message) {
	log := d.log.With("agent", name, "msg", m.ID)
	now := d.cfg.Clock.Now()
	// The pass may be stale: re-read status and blocks right before writing.
	// Abandoning here is not an attempt.
	if h := statusHold(a, now); h != "" {
		log.Debug("not typing: the agent changed since the pass", "hold", h)
		return
	}
	if h := blockHold(a, now); h != "" {
		log.Debug("not typing: the agent changed since the pass", "hold", h)
		return
	}
	t, hold := plan(m.Text, a, d.cfg.PasteThreshold)
	if hold != "" || t.text == "" {
		log.Debug("not typing: the agent changed since the pass", "hold", hold)
		return
	}
	// The cooldown starts before the first write, so a failed attempt waits
	// too (and a store that keeps failing is not hammered).
	d.stampAttempt(name, now)
	stamped, err := d.cfg.Store.Attempt(ctx, m.ID)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("stamping the attempt; not typing", "err", err)
		}
		return
	}
	if stamped.Text != m.Text {
		// The store rendered the text at attempt time (an inbox delivery).
		t, hold = plan(stamped.Text, a, d.cfg.PasteThreshold)
		if hold != "" || t.text == "" {
			log.Info("not typing: the text rendered at attempt time cannot be typed now", "hold", hold)
			return
		}
		m = stamped
	}
	ack := context.WithoutCancel(ctx)
	typed, landed, err := d.typeIn(ctx, a, t)
	if errors.Is(err, errPersonTyped) {
		// Our text sits on the prompt with the person's keys: it is theirs
		// now, never submitted by us and never retyped.
		d.notSubmitted(ack, log, name, a, m, t)
		return
	}
	if err != nil {
		d.writeFailed(ctx, ack, log, name, a, m, t, typed, err)
		return
	}
	note, ok := d.verify(ctx, a, t, landed)
	if !ok && note == noteNotTaken {
		// Nothing showed: the CLI ignored the keys (still loading, say).
		// Nothing sits on the prompt, so a later attempt duplicates nothing.
		d.writeFailed(ctx, ack, log, name, a, m, t, false, errNotTaken)
		return
	}
	if !ok {
		d.notSubmitted(ack, log, name, a, m, t)
		return
	}
	if err := d.cfg.Store.Delivered(ack, m.ID, note); err != nil {
		log.Error("recording delivery", "note", note, "err", err)
		return
	}
	log.Info("delivered", "note", note)
}

// writeFailed settles an attempt whose write failed. A failure on a live
// agent counts an attempt (the store drops the message at the last one,
// loudly); an exited agent or a stopping drain counts nothing and the message
// stays queued. Text left on the prompt without its Enter becomes a draft.
func (d *Drainer) writeFailed(ctx, ack context.Context, log *slog.Logger, name string, a Agent, m queue.Message, t typing, typed bool, werr error) {
	if typed {
		a.MarkDraft(t.text)
	}
	switch {
	case ctx.Err() != nil:
		log.Info("drain stopped mid-delivery; the message stays queued", "err", werr)
		return
	case statusHold(a, d.cfg.Clock.Now()) == HoldExited:
		log.Info("agent exited during delivery; the message stays queued, no attempt counted", "err", werr)
		return
	}
	dropped, attempts, err := d.cfg.Store.AttemptFailed(ack, m.ID, werr.Error(), d.cfg.MaxAttempts)
	if err != nil {
		log.Error("recording a failed attempt", "write_err", werr, "err", err)
		return
	}
	if !dropped {
		log.Warn("delivery attempt failed; retrying after the cooldown", "attempt", attempts, "of", d.cfg.MaxAttempts, "err", werr)
		return
	}
	log.Warn("message dropped after failed delivery attempts", "attempts", attempts, "err", werr, "text", preview(m.Text))
	d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeDropped, Text: m.Text})
}

// notSubmitted settles a message whose text was typed but never submitted: it
// leaves the queue (typing it again would duplicate it on the prompt), the
// text counts as a draft, and the person is told.
func (d *Drainer) notSubmitted(ack context.Context, log *slog.Logger, name string, a Agent, m queue.Message, t typing) {
	a.MarkDraft(t.text)
	if err := d.cfg.Store.Drop(ack, m.ID, "typed, not submitted"); err != nil {
		log.Error("dropping a message typed but not submitted", "err", err)
	}
	log.Warn("message typed but not submitted; it sits on the prompt as a draft", "text", preview(t.text))
	d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeTypedNotSubmitted, Text: t.text})
}

// preview shortens text for a log line.
func preview(text string) string {
	const max = 80
	r := []rune(text)
	if len(r) <= max {
		return text
	}
	return string(r[:max]) + "…"
}
