package drain

// One delivery, on its agent's submit goroutine: re-check the terminal, stamp
// the attempt, type, gather what was observed (the write, the submit check,
// the records), then settle the outcome classify decides (outcome.go). At
// most one runs per agent (the in-flight guard in drain.go).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"office/queue"
)

// deliver types m into a and settles it. Store calls after the first write
// use a context that outlives ctx, so a stopping office still records what
// reached the PTY. It decides nothing about the outcome: it observes, and
// classify decides.
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
	if h, _, _ := screenHold(a); h != HoldNone {
		log.Debug("not typing: the agent's screen changed since the pass", "hold", h)
		return
	}
	t, hold := plan(m.Text, a, d.cfg.PasteThreshold)
	t.id = m.ID
	if hold != HoldNone || t.text == "" {
		log.Debug("not typing: the agent changed since the pass", "hold", hold)
		return
	}
	// The last attempt counted failed for want of a record may have
	// arrived after all (untaken.go): not typed again before its records
	// were read once more.
	if d.untakenSettled(ctx, log, name, a, m) {
		return
	}
	// Whether the agent's records record this process's prompts, read
	// before anything is typed: should the process exit during the submit
	// check, a restart replaces it, and classify needs the answer for
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
	if stamped.Text != m.Text {
		// The store rendered the text at attempt time (an inbox delivery).
		t, hold = plan(stamped.Text, a, d.cfg.PasteThreshold)
		t.id = m.ID
		if hold != HoldNone || t.text == "" {
			log.Info("not typing: the text rendered at attempt time cannot be typed now", "hold", hold)
			d.notTyped(ctx, log, name, a, m)
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
		d.notTyped(ctx, log, name, a, m)
		return
	}
	// Stamping and recording that writing begins may have waited on the
	// store (another writer, an fsync, up to its lock timeout): look at the
	// agent again right before the first byte.
	screen, _, _ := screenHold(a)
	if h := statusHold(a, d.cfg.Clock.Now()) + blockHold(a, d.cfg.Clock.Now()) + screen; h != HoldNone {
		log.Debug("not typing: the agent changed while the attempt was recorded", "hold", h)
		d.notTyped(ctx, log, name, a, m)
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
	o := observed{stage: stageWritten, inbox: m.Kind == queue.KindInbox, command: isCommand(t.text),
		evidence: d.cfg.Evidence != nil, proven: proven}
	if err != nil {
		o.stage, o.writeErr, o.typed = stageWriteFailed, err, typed
		o.personTyped = errors.Is(err, errPersonTyped) || errors.Is(err, errPartlyTyped)
		d.snapshot(ctx, a, &o)
	} else {
		o.screen = d.verify(ctx, a, t, landed)
		d.observeRecords(ctx, name, a, t, typing, &o)
	}
	d.settle(ack, log, name, a, m, t, typing, o, classify(o))
}

// notTyped settles an attempt stamped on m of which nothing was typed.
func (d *Drainer) notTyped(ctx context.Context, log *slog.Logger, name string, a Agent, m queue.Message) {
	o := observed{stage: stageNotTyped}
	d.settle(context.WithoutCancel(ctx), log, name, a, m, typing{}, time.Time{}, o, classify(o))
}

// snapshot records in o whether the drain is stopping and the agent's
// process has exited, as the outcome is judged.
func (d *Drainer) snapshot(ctx context.Context, a Agent, o *observed) {
	o.stopped = ctx.Err() != nil
	o.exited = statusHold(a, d.cfg.Clock.Now()) == HoldExited
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
