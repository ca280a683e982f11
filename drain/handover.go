package drain

// Handing a message over at a turn's end without typing (docs/channels.md,
// "A design for office"): the CLI's turn-end hook (`office hook Stop`) asks
// the server, which asks Handover; Handover claims the agent's head exactly
// as a typed attempt does (the same in-flight guard, the same gates but
// those about the prompt, the same durable marks: Store.Attempt, then
// Store.Handing as the channel's "writing begins") and only then returns the
// text, which the hook's answer carries. Nothing is written to the PTY here:
// the drain's goroutines stay the only writers, and the CLI takes the text
// through its own hook. The delivery is confirmed from the CLI's own records
// (Evidence.Handed, never Received) and settled by the one settle, as
// classify decides (classifyHanded). Handover answers at once: it waits on
// nothing but the store's two writes, and with any doubt hands nothing over.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"office/automation"
	"office/queue"
)

// Turn is the turn-end hook call Handover answers.
type Turn struct {
	// Channel is the channel's word (wire.ChannelStopHook), recorded with
	// the attempt.
	Channel string
	// PromptID is the turn the hook ends (Claude's prompt_id): the blocks
	// of one turn are counted by it.
	PromptID string
	// Continued is the hook payload's stop_hook_active: a Stop hook
	// blocked this turn's end before.
	Continued bool
}

// Handed is Handover's answer: the message handed over, or why none was.
type Handed struct {
	// ID and Text are the message handed over and its text, as the hook's
	// answer carries it; Text is "" when nothing is handed over.
	ID   int64
	Text string
	// Why says why nothing was handed over (for the log).
	Why string
	// Err is set when an error kept it from being handed over (the store
	// failed to read or record, a check failed), not a gate: Why says it
	// too.
	Err error
}

// failed is the Handed of an error in doing what: nothing handed over.
func failed(what string, err error) Handed {
	err = fmt.Errorf("%s: %w", what, err)
	return Handed{Why: err.Error(), Err: err}
}

// Whys of a Handover that hands nothing over.
const (
	whyNotRunning    = "the drain is not running"
	whyInFlight      = "a delivery to the agent is in flight"
	whySettling      = "a delivery to the agent is not settled"
	whyCap           = "the turn's blocks in a row reached channel_blocks"
	whyUnknownAgent  = "no such agent"
	whyEmpty         = "nothing queued"
	whyHeld          = "the head is held"
	whyManual        = "the person sent it now: typed"
	whyPaused        = "paused"
	whyPrecondition  = "its precondition does not hold"
	whyPersonsWords  = "the person's own words: typed"
	whyCommand       = "a slash command: typed (a hook's text is no command)"
	whyUntaken       = "its last typed attempt's record may still come: typed after one more look at the records (untaken.go)"
	whyNothingToHand = "nothing left to hand over once sanitized"
	whyTooLong       = "longer than MaxHandBytes: typed"
	whyStore         = "the store did not record the attempt"
)

// MaxHandBytes bounds the text Handover hands over; a longer one is typed.
// The text rides the hook's stdout and the CLI's hook answer into one
// message (Claude: one system reminder) that its screen also prints whole,
// a path the channel's tests measured only with short texts; the typed
// path pastes any length and checks it on the screen and in the records.
// It is above the inbox's batch_bytes default (32 KiB), so a default
// batch fits.
const MaxHandBytes = 64 << 10

// blockRun counts the blocks office answered in one turn, in a row.
type blockRun struct {
	prompt string
	blocks int
}

// Handover hands the agent's head message over through its CLI's turn-end
// hook when every gate but those about the prompt passes (docs/channels.md):
// no delivery to the agent in flight or unsettled, fewer than
// Config.ChannelBlocks blocks in a row answered in this turn, the head
// neither held nor sent now by the person (a manual message is typed), the
// agent and the floor not paused, the agent busy or idle (not exited,
// waiting on a dialog, limited or starting), no automation block but the
// person's draft (which the channel never touches), its precondition holds,
// Config.Channel takes it (whose words it is), and its text, as stamped
// and sanitized, is at most MaxHandBytes. The cooldown does not
// hold it (nothing is typed into the TUI); the attempt it stamps starts the
// cooldown of the typed attempt after it. It is claimed exactly as a typed
// attempt (Store.Attempt, then Store.Handing) before it is returned, and its
// confirmation runs on a goroutine of its own, as a typed delivery's submit
// check does. Safe for concurrent use; it never waits on the agent.
func (d *Drainer) Handover(ctx context.Context, name string, turn Turn) Handed {
	d.mu.Lock()
	run := d.runCtx
	st := d.stateLocked(name)
	if !turn.Continued || st.run.prompt != turn.PromptID {
		st.run = blockRun{prompt: turn.PromptID}
	}
	why := ""
	switch {
	case run == nil || run.Err() != nil:
		why = whyNotRunning
	case st.inFlight:
		why = whyInFlight
	case st.held != nil || st.aside != nil || len(st.unsettled) > 0 || st.approval != nil:
		why = whySettling
	case st.run.blocks >= d.cfg.ChannelBlocks:
		why = whyCap
	default:
		st.inFlight = true // the agent's one delivery slot, as start takes it
		// Counted with the slot, under the lock Run's stop takes before it
		// waits: the stop waits for this claim and its confirmation.
		d.inFlight.Add(1)
	}
	d.mu.Unlock()
	if why != "" {
		return Handed{Why: why}
	}
	h, m, a := d.claim(ctx, name, turn)
	if h.Text == "" {
		d.finished(name)
		d.inFlight.Done()
		return h
	}
	d.mu.Lock()
	st.run.blocks++
	d.mu.Unlock()
	since := d.cfg.Clock.Now()
	go func() {
		defer d.inFlight.Done()
		defer d.finished(name)
		d.confirmHanded(run, name, a, m, turn.Channel, since)
	}()
	return h
}

// claim applies the channel's gates to the agent's head and stamps it; the
// agent's in-flight guard is held. An empty Text hands nothing over (and
// undoes a stamped attempt).
func (d *Drainer) claim(ctx context.Context, name string, turn Turn) (Handed, queue.Message, Agent) {
	a, ok := d.cfg.Agents.Agent(name)
	if !ok {
		return Handed{Why: whyUnknownAgent}, queue.Message{}, nil
	}
	m, ok, err := d.cfg.Store.Head(ctx, name)
	switch {
	case err != nil:
		return failed("reading the head", err), m, a
	case !ok:
		return Handed{Why: whyEmpty}, m, a
	}
	if h := d.channelGates(ctx, a, m); h.Why != "" {
		return h, m, a
	}
	now := d.cfg.Clock.Now()
	stamped, err := d.cfg.Store.Attempt(ctx, m.ID)
	if err != nil {
		return failed(whyStore, err), m, a
	}
	d.stampAttempt(name, now)
	log := d.log.With("agent", name, "msg", m.ID)
	// Whose words, once more on what the attempt stamped: an inbox
	// delivery's batch is leased in Attempt's transaction, so an item from
	// the person that arrived after the check above (or one a typed attempt
	// left leased to it) is in it now. Nothing was written: undo the attempt
	// and let the drain type it.
	if h := d.whoseWords(ctx, stamped); h.Why != "" {
		d.unattempt(context.WithoutCancel(ctx), log, m.ID, h.Why)
		return h, m, a
	}
	text := Sanitize(stamped.Text, true)
	if text == "" {
		d.unattempt(context.WithoutCancel(ctx), log, m.ID, whyNothingToHand)
		return Handed{Why: whyNothingToHand}, m, a
	}
	if len(text) > MaxHandBytes {
		d.unattempt(context.WithoutCancel(ctx), log, m.ID, whyTooLong)
		return Handed{Why: whyTooLong}, m, a
	}
	if err := d.cfg.Store.Handing(ctx, m.ID, turn.Channel); err != nil {
		log.Warn("recording the hand-over; typed instead", "err", err)
		d.unattempt(context.WithoutCancel(ctx), log, m.ID, "")
		return failed(whyStore, err), m, a
	}
	stamped.Text = text
	log.Info("handed over through the turn-end hook", "channel", turn.Channel, "prompt_id", turn.PromptID)
	return Handed{ID: m.ID, Text: text}, stamped, a
}

// channelGates is the typed gates less those about the prompt: a zero
// Handed when m may be handed over to a now, else why not.
func (d *Drainer) channelGates(ctx context.Context, a Agent, m queue.Message) Handed {
	switch {
	case m.Interrupted || m.SetAside:
		return Handed{Why: whyHeld}
	case m.Manual:
		return Handed{Why: whyManual}
	case !d.untakenDue(m.Agent, m.ID).IsZero():
		return Handed{Why: whyUntaken}
	case isCommand(strings.TrimSpace(m.Text)):
		return Handed{Why: whyCommand}
	}
	agentPaused, floorPaused, err := d.cfg.Store.Paused(ctx, m.Agent)
	switch {
	case err != nil:
		return failed("reading the pause", err)
	case agentPaused || floorPaused:
		return Handed{Why: whyPaused}
	}
	now := d.cfg.Clock.Now()
	if h := channelStatusHold(a, now); h != HoldNone {
		return Handed{Why: string(h)}
	}
	if h := BlockHold(a.Block(now)); h != HoldNone && h != HoldDraft {
		return Handed{Why: string(h)}
	}
	ok, err := d.precondition(ctx, m)
	switch {
	case err != nil:
		return failed("checking the precondition", err)
	case !ok:
		return Handed{Why: whyPrecondition}
	}
	return d.whoseWords(ctx, m)
}

// whoseWords asks Config.Channel whether m's words may take the channel: a
// zero Handed when they may (or no Config.Channel is set), else why not.
func (d *Drainer) whoseWords(ctx context.Context, m queue.Message) Handed {
	if d.cfg.Channel == nil {
		return Handed{}
	}
	ok, err := d.cfg.Channel(ctx, m)
	switch {
	case err != nil:
		return failed("checking whose words", err)
	case !ok:
		return Handed{Why: whyPersonsWords}
	}
	return Handed{}
}

// channelStatusHold is gate (2) at a turn's end: busy is no hold (the hook
// runs as the turn ends, before the judge may read idle); every other
// status that holds a typed message holds a handed one.
func channelStatusHold(a Agent, now time.Time) Hold {
	if h := statusHold(a, now); h != HoldBusy {
		return h
	}
	return HoldNone
}

// confirmHanded reads the agent's records for the message handed over at
// since, every evidencePoll for up to Config.EvidenceFor, and settles it as
// classify decides. ctx is the drain's (Run's): a stop ends the polls with
// one last read, and settles nothing but what that read confirms (the
// next start's recovery judges the rest).
func (d *Drainer) confirmHanded(ctx context.Context, name string, a Agent, m queue.Message, channel string, since time.Time) {
	log := d.log.With("agent", name, "msg", m.ID, "channel", channel)
	o := observed{stage: stageHanded, inbox: m.Kind == queue.KindInbox, channel: channel}
	if d.cfg.Evidence != nil {
		o.evidence, _ = d.cfg.Evidence.Keeps(name)
	}
	if o.evidence {
		deadline := since.Add(d.cfg.EvidenceFor)
		for {
			source, ok, err := d.cfg.Evidence.Handed(ctx, name, m.Text, since)
			o.unread = err
			if ok {
				o.found, o.source = true, source
				break
			}
			if !d.cfg.Clock.Now().Before(deadline) || d.sleep(ctx, evidencePoll) != nil {
				break
			}
		}
		if !o.found && ctx.Err() != nil {
			// A stop cut the polls short: one last read, since the CLI
			// may well have taken it meanwhile, and settling it now spares
			// the next start's recovery the judgment.
			if source, ok, err := d.cfg.Evidence.Handed(context.WithoutCancel(ctx), name, m.Text, since); ok {
				o.found, o.source, o.unread = true, source, nil
			} else if err != nil {
				o.unread = err
			}
		}
	}
	o.stopped = ctx.Err() != nil
	o.exited = a.Status() == automation.StatusExited || a.Block(d.cfg.Clock.Now()) == automation.BlockExited
	d.settle(context.WithoutCancel(ctx), log, name, a, m, typing{text: m.Text}, since, o, classify(o))
}

// LastChannel returns the channel that carried the last message recorded
// delivered to the agent, and its id (ok false: none yet): the channel's
// word, or "" for typed.
func (d *Drainer) LastChannel(name string) (id int64, channel string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.stateLocked(name)
	if st.delivered.ID == 0 {
		return 0, "", false
	}
	return st.delivered.ID, st.deliveredBy, true
}

// handedReason is the evidence recorded for a message held because it was
// handed over and its CLI's records never showed it.
const handedReason = "handed over at a turn's end, not confirmed: the CLI's records do not show the text"

// handedNotice is the person's notice of a message handed over to agent and
// not confirmed by its records.
func handedNotice(agent string, m queue.Message) string {
	return fmt.Sprintf("message %d held: handed over to %s, not confirmed; office queue rm %d or release %d\n"+
		"Message %d was handed over to %s by its turn-end hook, but %s's own records never showed it: the hook may have "+
		"answered too late, or the CLI ended the turn anyway. It is not handed over or typed again on its own, and "+
		"nothing else is delivered to %s until you decide (other agents go on). Look at its pane: if it arrived, or you "+
		"do not want it, `office queue rm %d`%s; `office queue release %d` types it again.\nText: %s",
		m.ID, agent, m.ID, m.ID, m.ID, agent, agent, agent, m.ID, rmInbox(m), m.ID, NoticeText(m))
}

// StopHookRan records that the agent's turn-end hook ran for its process
// started at spawned (a Stop hook call reached the server).
func (d *Drainer) StopHookRan(name string, spawned time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stateLocked(name).hookRan = spawned
}

// StopHookSilent is told that a turn of the agent's process started at
// spawned ended; it reports true once per process when no turn-end hook
// call came for it (the hook did not run: Codex skips a hook the person has
// not trusted), so the caller tells the person once. Nothing is handed
// over without a hook call, so every message is typed meanwhile.
func (d *Drainer) StopHookSilent(name string, spawned time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.stateLocked(name)
	if st.hookRan.Equal(spawned) || st.hookSilent.Equal(spawned) {
		return false
	}
	st.hookSilent = spawned
	return true
}
