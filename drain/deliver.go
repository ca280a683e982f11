package drain

// One delivery, on its agent's submit goroutine: re-check the terminal, stamp
// the attempt, type, then settle the message (delivered, failed attempt,
// typed but not submitted). At most one runs per agent (the in-flight guard
// in drain.go).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

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
	if h := statusHold(a, now); h != HoldNone {
		log.Debug("not typing: the agent changed since the pass", "hold", h)
		return
	}
	if h := blockHold(a, now); h != HoldNone {
		log.Debug("not typing: the agent changed since the pass", "hold", h)
		return
	}
	t, hold := plan(m.Text, a, d.cfg.PasteThreshold)
	t.id = m.ID
	if hold != HoldNone || t.text == "" {
		log.Debug("not typing: the agent changed since the pass", "hold", hold)
		return
	}
	// Whether the agent's records record this process's prompts, read
	// before anything is typed: should the process exit during the submit
	// check, a restart replaces it, and settleExited needs the answer for
	// the process typed into.
	_, proven := d.recordable(name, t)
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
	// Stamping may have waited on the store (another writer, an fsync):
	// look at the agent again right before the first byte.
	if h := statusHold(a, d.cfg.Clock.Now()) + blockHold(a, d.cfg.Clock.Now()); h != HoldNone {
		log.Debug("not typing: the agent changed while the attempt was stamped", "hold", h)
		d.unattempt(ctx, log, m.ID, "")
		return
	}
	if stamped.Text != m.Text {
		// The store rendered the text at attempt time (an inbox delivery).
		t, hold = plan(stamped.Text, a, d.cfg.PasteThreshold)
		t.id = m.ID
		if hold != HoldNone || t.text == "" {
			log.Info("not typing: the text rendered at attempt time cannot be typed now", "hold", hold)
			d.unattempt(ctx, log, m.ID, "")
			return
		}
		m = stamped
	}
	ack := context.WithoutCancel(ctx)
	typing := d.cfg.Clock.Now()
	// Durably "writing began" before the first byte: a stop before this
	// proves nothing of the attempt was typed.
	if err := d.cfg.Store.Writing(ctx, m.ID); err != nil {
		if ctx.Err() == nil {
			log.Error("recording that typing begins; not typing", "err", err)
		}
		d.unattempt(ctx, log, m.ID, "")
		return
	}
	// And durably "the Enter is next" before the first Enter: a stop before
	// it proves the text was never submitted (it died on the agent's prompt
	// with the agent's process).
	entered := false
	t.entering = func() error {
		if entered {
			return nil
		}
		entered = true
		return d.cfg.Store.Entering(ack, m.ID)
	}
	typed, landed, err := d.typeIn(ctx, a, t)
	if err != nil && ctx.Err() == nil && !errors.Is(err, errPersonTyped) && !errors.Is(err, errPartlyTyped) &&
		statusHold(a, d.cfg.Clock.Now()) == HoldExited {
		// The process exited before the Enter could be written (a restart
		// in the gap, a crash): our text died on its prompt with it, so
		// nothing was submitted and nothing sits on a prompt. It stays
		// queued, no attempt counted, for the next process.
		d.writeFailed(ctx, ack, log, name, a, m, t, typed, err)
		return
	}
	if errors.Is(err, errPersonTyped) || errors.Is(err, errPartlyTyped) || (err != nil && typed && ctx.Err() == nil) {
		// Some of our text (or a whole line of it) reached the prompt and
		// was not submitted as a whole: it is the person's now, never
		// retyped (that would duplicate what is there).
		d.notSubmitted(ack, log, name, a, m, t)
		return
	}
	if err != nil {
		d.writeFailed(ctx, ack, log, name, a, m, t, typed, err)
		return
	}
	note, ok := d.verify(ctx, a, t, landed)
	if !ok && note == noteExited {
		d.settleExited(ctx, ack, log, name, m, t, typing, proven, "")
		return
	}
	if ok && strings.HasPrefix(note, signLastScreen.note()) {
		// Exited too: settled by the records of the process typed into
		// (proven as read before typing: a restart has replaced it).
		d.settleExited(ctx, ack, log, name, m, t, typing, proven, note)
		return
	}
	if src, found, keeps := d.confirm(ctx, name, t, typing, ok, proven); found {
		// The CLI's own record shows the text: it arrived, whatever the
		// screen said.
		if !ok {
			note = ""
		}
		d.settleDelivered(ack, log, name, m.ID, evidenceNote(note, src, true, true))
		return
	} else if ok && d.cfg.Evidence != nil {
		if keeps && d.noRecord(ctx, ack, log, name, a, m, t, typing, proven) {
			return
		}
		note = evidenceNote(note, "", false, keeps)
	}
	if !ok && note == noteNotTaken {
		if a.LastOutput().After(typing) {
			// The agent kept drawing but never showed our text: its UI
			// dropped the keys (a CLI still loading). Nothing of it is
			// pending anywhere, so a later attempt duplicates nothing.
			d.writeFailed(ctx, ack, log, name, a, m, t, false, errNotTaken)
			return
		}
		// No output at all since we typed: the agent may not be reading
		// its input, and our bytes may wait there to be read later. Typing
		// again could duplicate them: only the person may.
		log.Warn("the agent showed nothing after the text; held until released", "text", preview(m.Text))
		if err := d.cfg.Store.Hold(ack, m.ID, heldReason); err != nil {
			log.Error("holding the message", "err", err)
		}
		d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeHeld, Text: heldNotice(name, m)})
		return
	}
	if !ok {
		d.notSubmitted(ack, log, name, a, m, t)
		return
	}
	d.settleDelivered(ack, log, name, m.ID, note)
}

// settleDelivered records a delivery, retrying a failing store a few times.
// If it still fails, the message is remembered as unsettled: it is held
// ("interrupted") and never typed again by this drain, and each pass tries
// to record the delivery once more.
func (d *Drainer) settleDelivered(ctx context.Context, log *slog.Logger, name string, id int64, note string) {
	wait := settleRetry
	for try := 1; ; try++ {
		err := d.cfg.Store.Delivered(ctx, id, note)
		if err == nil {
			log.Info("delivered", "note", note)
			return
		}
		if try == settleTries {
			log.Error("recording a delivery failed; the message is held and not typed again", "note", note, "err", err)
			d.mu.Lock()
			d.stateLocked(name).unsettled = map[int64]string{id: note}
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

// writeFailed settles an attempt whose write failed. A failure on a live
// agent counts an attempt (the store drops the message at the last one,
// loudly); an exited agent or a stopping drain counts nothing and the message
// stays queued (an exited agent's attempt is undone: what reached its prompt
// died with it). Text left on a live prompt without its Enter becomes a
// draft.
func (d *Drainer) writeFailed(ctx, ack context.Context, log *slog.Logger, name string, a Agent, m queue.Message, t typing, typed bool, werr error) {
	switch {
	case ctx.Err() != nil:
		if typed {
			a.MarkDraft(t.text)
		}
		log.Info("drain stopped mid-delivery; the message stays queued", "err", werr)
		return
	case statusHold(a, d.cfg.Clock.Now()) == HoldExited:
		// Whatever of the text reached the prompt died there with the
		// process, before any Enter: no draft (the terminal is gone), and
		// the attempt is undone, so the next process gets it.
		log.Info("agent exited during delivery; the message stays queued, no attempt counted", "err", werr)
		why := ""
		if typed {
			why = "typed into a process that exited before any Enter: it died on that prompt"
		}
		d.unattempt(ack, log, m.ID, why)
		return
	}
	if typed {
		a.MarkDraft(t.text)
	}
	d.attemptFailed(ack, log, name, m, werr)
}

// attemptFailed counts a failed attempt on m (the store drops it at the
// last one, loudly: a log line and a notice).
func (d *Drainer) attemptFailed(ack context.Context, log *slog.Logger, name string, m queue.Message, werr error) {
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
	if err := d.cfg.Store.TypedNotSubmitted(ack, m.ID); err != nil {
		log.Error("dropping a message typed but not submitted", "err", err)
	}
	log.Warn("message typed but not submitted; it sits on the prompt as a draft", "text", preview(t.text))
	d.cfg.Notify(Notice{Agent: name, MsgID: m.ID, Kind: NoticeTypedNotSubmitted, Text: t.text})
}

// preview shortens text for a log line: its first 80 runes and, when cut,
// its length (the log never carries a whole body).
func preview(text string) string {
	const max = 80
	r := []rune(text)
	if len(r) <= max {
		return text
	}
	return string(r[:max]) + fmt.Sprintf("… (%d bytes)", len(text))
}
