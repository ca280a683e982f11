package drain

// Checking a submit (docs/design.md §2): after Enter, watch for up to VerifyFor
// that the prompt row emptied or the agent left idle. If neither, and nothing
// says an Enter could do harm (no dialog, no block, our own text still on the
// prompt row), press Enter once more after a pause and watch again. Otherwise
// the text was typed but not submitted.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"office/automation"
	"office/queue"
)

// noteNotTaken is verify's note when the text never showed on the prompt
// row and the agent did not react: the CLI did not take it.
const noteNotTaken = "not taken"

// errNotTaken is the failed attempt recorded for a text the CLI did not take.
var errNotTaken = errors.New("the agent did not take the text: it never showed on the prompt and the agent did not turn busy")

// probeRunes is how much of a line (without white space) must be found on
// the prompt row to count as our text still sitting there: enough to be
// specific, short enough to fit a narrow pane's row.
const probeRunes = 16

// sign is what one look at the agent after an Enter shows.
type sign int

const (
	// signNone: no evidence yet; the text may still sit on the prompt.
	signNone sign = iota
	// signSubmitted: the prompt row is empty or the agent turned busy.
	signSubmitted
	// signDialog: the agent is waiting on a dialog; it left idle, so the
	// Enter was taken, and no further Enter may be sent.
	signDialog
	// signExited: the agent's process exited after both writes succeeded:
	// no evidence of the submit either way (settleExited decides).
	signExited
	// signLastScreen: the agent's process exited, and its last screen shows
	// the prompt row empty after our text had shown on it: the CLI cleared
	// its input, the screen's evidence of a submit, seen after the exit.
	signLastScreen
)

// note is the delivery note recorded for a sign.
func (s sign) note() string {
	switch s {
	case signSubmitted:
		return "verified"
	case signDialog:
		return "unverified: a dialog opened"
	case signLastScreen:
		return "verified on its last screen (the agent exited)"
	}
	return "unverified"
}

// verify reports whether the text typed by t was submitted, and the note to
// record. An agent that cannot be checked (SubmitProfile.Unverifiable, or a
// prompt row that cannot be read) counts as delivered, "unverified"; so does
// a check cut short by ctx, since both writes succeeded.
//
// An agent whose process exits before a submit was seen proves nothing
// about it: verify then returns noteExited with submitted false, and the
// caller settles it from the agent's records (settleExited).
//
// landed says the prompt row showed text before the Enter. Without it an
// empty row proves nothing (the text may never have reached the input), so
// only the agent turning busy, or the text showing late and then clearing,
// confirms the submit; if nothing happens at all, verify returns
// noteNotTaken with submitted false.
func (d *Drainer) verify(ctx context.Context, a Agent, t typing, landed bool) (note string, submitted bool) {
	if a.Submit().Unverifiable {
		return "unverified", true
	}
	if statusHold(a, d.cfg.Clock.Now()) == HoldExited {
		// Gone already: only its last screen can still show the submit
		// (its prompt row is unreadable once a CLI restored the terminal).
		if look(a, d.cfg.Clock.Now(), &landed) == signLastScreen {
			return signLastScreen.note(), true
		}
		return noteExited, false
	}
	if _, ok := a.Prompt(); !ok {
		return "unverified", true
	}
	s, err := d.watch(ctx, a, &landed)
	switch {
	case err != nil:
		return "unverified", true
	case s == signExited:
		return noteExited, false
	case s != signNone:
		return s.note(), true
	}
	retries := max(a.Submit().EnterRetries, 1)
	for try := 1; ; try++ {
		note, submitted, retry := d.unconfirmed(a, t, &landed)
		if !retry {
			return note, submitted
		}
		if err := d.sleep(ctx, d.cfg.RetryEnterAfter); err != nil {
			return "unverified", true
		}
		// Things may have moved during the pause: judge again at the Enter.
		if note, submitted, retry = d.unconfirmed(a, t, &landed); !retry {
			return note, submitted
		}
		if err := d.enter(ctx, a, t.id); err != nil {
			switch {
			case ctx.Err() != nil:
				return "unverified", true
			case statusHold(a, d.cfg.Clock.Now()) == HoldExited:
				// An earlier Enter reached the process that is gone now.
				return noteExited, false
			}
			return "", false
		}
		s, err = d.watch(ctx, a, &landed)
		switch {
		case err != nil:
			return "unverified", true
		case s == signExited:
			return noteExited, false
		case s != signNone && try == 1:
			return s.note() + " (second Enter)", true
		case s != signNone:
			return fmt.Sprintf("%s (Enter %d)", s.note(), try+1), true
		case try >= retries:
			return "", false
		}
	}
}

// watch looks at the agent every verifyPoll for VerifyFor and returns the
// first sign other than signNone, or signNone at the end. err is ctx's.
func (d *Drainer) watch(ctx context.Context, a Agent, landed *bool) (sign, error) {
	deadline := d.cfg.Clock.Now().Add(d.cfg.VerifyFor)
	for {
		wait := min(verifyPoll, deadline.Sub(d.cfg.Clock.Now()))
		if err := d.sleep(ctx, wait); err != nil {
			return signNone, err
		}
		now := d.cfg.Clock.Now()
		if s := look(a, now, landed); s != signNone {
			return s, nil
		}
		if !now.Before(deadline) {
			return signNone, nil
		}
	}
}

// look reads the agent once after an Enter. An empty prompt row counts as
// submitted only once text had landed on it (*landed); text seen on the row
// now sets *landed. An exited agent's last screen counts only that way: our
// text still on its row proves nothing (a CLI may take the Enter before it
// redraws), nor does a row it erased as it exited (unreadable).
func look(a Agent, now time.Time, landed *bool) sign {
	switch s := a.Status(); {
	case s == automation.StatusExited || a.Block(now) == automation.BlockExited:
		if row, ok := a.Prompt(); ok && *landed && !automation.PromptRowHasText(row) {
			return signLastScreen
		}
		return signExited
	case s == automation.StatusWaiting:
		return signDialog
	case s == automation.StatusBusy:
		return signSubmitted
	}
	row, ok := a.Prompt()
	switch {
	case ok && automation.PromptRowHasText(row):
		*landed = true
	case ok && *landed:
		return signSubmitted
	}
	return signNone
}

// unconfirmed decides what to do once a submit was not confirmed: record a
// delivery after all (submitted, with note), press Enter once more (retry),
// or neither (the text was typed but not submitted). One more Enter is sent
// only when it can do no harm: no dialog, no block (the person is not at the
// prompt), and our own text is still what the prompt row shows.
func (d *Drainer) unconfirmed(a Agent, t typing, landed *bool) (note string, submitted, retry bool) {
	now := d.cfg.Clock.Now()
	switch s := look(a, now, landed); s {
	case signExited:
		return noteExited, false, false
	case signNone:
	default:
		return s.note(), true, false
	}
	row, ok := a.Prompt()
	switch {
	case !ok:
		return "unverified", true, false
	case !*landed && !automation.PromptRowHasText(row):
		return noteNotTaken, false, false
	case a.Block(now) != automation.BlockNone, !onRow(row, t.probe):
		return "", false, false
	}
	return "", false, true
}

// onRow reports whether the start of line shows on the prompt row. White
// space is ignored on both sides (the row pads wide runes, a prompt marker is
// followed by a no-break space), and only the first probeRunes runes of line
// are looked for, so a line wider than the pane still matches.
func onRow(row, line string) bool {
	probe := []rune(withoutSpace(line))
	if len(probe) == 0 {
		return false
	}
	if len(probe) > probeRunes {
		probe = probe[:probeRunes]
	}
	return strings.Contains(withoutSpace(row), string(probe))
}

// withoutSpace returns s without its white space.
func withoutSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// The evidence words a delivery note ends with (docs/evidence.md): which record
// showed the text, or that only the screen did.
const (
	// EvidenceScreen: the screen check alone confirmed the submit (the CLI
	// keeps no record office reads).
	EvidenceScreen = "screen"
	// EvidenceMissing: the screen changed as after a submit, but the CLI's
	// own records never showed the text.
	EvidenceMissing = "no record"
)

// evidencePoll is how often the agent's records are read while waiting.
const evidencePoll = 100 * time.Millisecond

// evidenceAfterNoSubmit is how long the records are watched after the screen
// check found no submit: a record can still show that the CLI took the text.
const evidenceAfterNoSubmit = time.Second

// evidenceUnproven is how long the records of an agent whose records were
// not yet seen to work are watched after a submit the screen confirmed: one
// look, no wait (the screen decides; the next delivery finds them proven
// once the CLI has recorded a prompt of this run).
const evidenceUnproven = 0

// confirm checks a typed delivery against the agent's own records. keeps is
// false when the agent keeps none, they were not seen to record this run of
// the agent yet, or the text is a slash command (the screen's verdict
// stands). Otherwise it waits up to
// Config.EvidenceFor (evidenceAfterNoSubmit when the screen saw no submit)
// for a record of t's text dated at or after since, and returns the record's
// source. A record found is taken whatever keeps says. proven is whether the
// records were seen to record the prompts of the process typed into, as read
// before typing (recordable).
func (d *Drainer) confirm(ctx context.Context, name string, t typing, since time.Time, screenOK, proven bool) (source string, found, keeps bool) {
	if has, _ := d.recordable(name, t); !has {
		return "", false, false
	}
	wait := d.cfg.EvidenceFor
	switch {
	case !screenOK:
		wait = evidenceAfterNoSubmit
	case !proven:
		wait = evidenceUnproven
	}
	if src, ok, _ := d.received(ctx, name, t, since, wait); ok {
		return src, true, true
	}
	return "", false, proven
}

// recordable reports whether the agent's records can be evidence for t
// (Evidence.Keeps), and whether they were seen to record this run of it:
// never for a slash command or text typed line by line.
func (d *Drainer) recordable(name string, t typing) (keeps, proven bool) {
	if d.cfg.Evidence == nil || t.mode == modeLines || isCommand(t.text) {
		return false, false
	}
	return d.cfg.Evidence.Keeps(name)
}

// received waits up to wait for the agent's records to show t's text
// recorded at or after since, and returns the record's source. unread is
// the last error reading them: when not found, a non-nil unread means the
// records were not all read, so their silence proves nothing.
func (d *Drainer) received(ctx context.Context, name string, t typing, since time.Time, wait time.Duration) (source string, found bool, unread error) {
	deadline := d.cfg.Clock.Now().Add(wait)
	for {
		src, ok, err := d.cfg.Evidence.Received(ctx, name, t.text, since)
		if err != nil {
			d.log.Warn("reading the agent's records", "agent", name, "err", err)
		}
		if ok {
			return src, true, nil
		}
		unread = err
		now := d.cfg.Clock.Now()
		if !now.Before(deadline) || ctx.Err() != nil {
			return "", false, unread
		}
		if d.sleep(ctx, min(evidencePoll, deadline.Sub(now))) != nil {
			return "", false, unread
		}
	}
}

// isCommand reports whether text is a slash command (/compact, /model ...):
// the CLI runs it instead of recording it as a prompt, so its records are no
// evidence either way.
func isCommand(text string) bool { return strings.HasPrefix(text, "/") }

// evidenceNote is the delivery note once the records were looked at: the
// screen's note, then which evidence decided.
func evidenceNote(screen, source string, found, keeps bool) string {
	switch {
	case found && screen == "":
		return "received (the screen did not show the submit); evidence=" + source
	case found:
		return screen + "; evidence=" + source
	case keeps:
		return "unverified: the CLI's records do not show it (screen: " + screen + "); evidence=" + EvidenceMissing
	}
	return screen + "; evidence=" + EvidenceScreen
}

// errNoRecord is the failed attempt recorded for a text the screen seemed to
// submit but the CLI's records never showed, with the prompt empty after.
var errNoRecord = errors.New("the agent did not take the text: its records do not show it and the prompt is empty")

// noRecord settles a delivery the screen confirmed but the agent's records
// (seen to work for this run of it) do not show: the CLI did not take it.
// Our text still on the prompt is the person's draft now (typed, not
// submitted); an empty prompt on an idle agent is a failed attempt, retried
// after the cooldown. It returns false, settling nothing, when the agent is
// busy (it may have queued the text, to record it later) or its prompt row
// cannot be read: the delivery then counts, noted "unverified". A stopping
// drain (ctx done) settles nothing and returns true: the message stays in
// flight for recovery.
func (d *Drainer) noRecord(ctx, ack context.Context, log *slog.Logger, name string, a Agent, m queue.Message, t typing, since time.Time, proven bool) bool {
	if ctx.Err() != nil {
		// A stop cut the check short (the screen's "unverified"), and the
		// agent's process may be ending with the office: a stop settles
		// nothing. The message stays in flight; the next start's recovery
		// settles it from the same records.
		log.Info("drain stopped while the CLI's records were checked; recovery settles the delivery at the next start")
		return true
	}
	log.Warn("the screen showed a submit but the CLI's records do not show the text", "text", preview(t.text))
	if statusHold(a, d.cfg.Clock.Now()) == HoldExited {
		// Records that record this process's prompts do not show it, and
		// the process is gone (whatever it had queued went with it).
		d.attemptFailed(ack, log, name, m, errExitedNotTaken)
		return true
	}
	if a.Status() == automation.StatusBusy {
		return false
	}
	row, ok := a.Prompt()
	switch {
	case !ok:
		return false
	case onRow(row, t.probe):
		// Our text still sits there: the Enter became a newline or was
		// lost. One more Enter, under the same rule as the submit check's.
		if a.Status() == automation.StatusIdle && a.Block(d.cfg.Clock.Now()) == automation.BlockNone &&
			d.enter(ctx, a, t.id) == nil {
			if src, found, _ := d.confirm(ctx, name, t, since, true, proven); found {
				d.settleDelivered(ack, log, name, m.ID, "verified (an Enter after no record); evidence="+src)
				return true
			}
		}
		d.notSubmitted(ack, log, name, a, m, t)
	case !automation.PromptRowHasText(row):
		d.writeFailed(ctx, ack, log, name, a, m, t, false, errNoRecord)
	default:
		return false
	}
	return true
}

// echoWait bounds how long an Enter waits for its text to show on the prompt
// row (SubmitProfile.EnterAfterEcho); echoPoll is how often it looks.
const (
	echoWait = 3 * time.Second
	echoPoll = 50 * time.Millisecond
)

// gapBeforeEnter waits gap after the text. With EnterAfterEcho it then
// waits, up to echoWait, for the prompt row to show text (the CLI has read
// ours), and when that took longer than the gap, the gap once more from
// there, so the Enter never reaches the CLI in the same read as the text.
func (d *Drainer) gapBeforeEnter(ctx context.Context, a Agent, gap time.Duration) error {
	if err := d.sleep(ctx, gap); err != nil {
		return err
	}
	if !a.Submit().EnterAfterEcho {
		return nil
	}
	deadline := d.cfg.Clock.Now().Add(echoWait)
	for waited := false; ; waited = true {
		row, ok := a.Prompt()
		if !ok || automation.PromptRowHasText(row) {
			if waited {
				return d.sleep(ctx, gap)
			}
			return nil
		}
		if !d.cfg.Clock.Now().Before(deadline) {
			return nil
		}
		if err := d.sleep(ctx, echoPoll); err != nil {
			return err
		}
	}
}
