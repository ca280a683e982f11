package drain

// Checking a submit (docs/design.md §2): after Enter, watch for up to VerifyFor
// that the prompt row emptied or the agent left idle. If neither, and nothing
// says an Enter could do harm (no dialog, no block, our own text still on the
// prompt row), press Enter once more after a pause and watch again. Otherwise
// the text was typed but not submitted.

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"office/automation"
	"office/queue"
)

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
	// no evidence of the submit either way (classifyExited decides).
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

// confirms reports whether the screen's sign shows the submit (its note
// says "verified").
func (s sign) confirms() bool { return s == signSubmitted || s == signLastScreen }

// verify is the submit check: what the screen shows after the text typed
// by t and its Enter. An agent that cannot be checked
// (SubmitProfile.Unverifiable, or a prompt row that cannot be read) counts
// as submitted, "unverified"; so does a check cut short by ctx, since both
// writes succeeded.
//
// An agent whose process exits before a submit was seen proves nothing
// about it: verify then says seenExited, and classify settles it from the
// agent's records.
//
// landed says the prompt row showed text before the Enter. Without it an
// empty row proves nothing (the text may never have reached the input), so
// only the agent turning busy, or the text showing late and then clearing,
// confirms the submit; if nothing happens at all, verify says seenNotTaken.
func (d *Drainer) verify(ctx context.Context, a Agent, t typing, landed bool) screenSeen {
	unverified := screenSeen{kind: seenSubmit, note: "unverified"}
	exited := screenSeen{kind: seenExited}
	if a.Submit().Unverifiable {
		return unverified
	}
	if statusHold(a, d.cfg.Clock.Now()) == HoldExited {
		// Gone already: only its last screen can still show the submit
		// (its prompt row is unreadable once a CLI restored the terminal).
		if look(a, d.cfg.Clock.Now(), &landed) == signLastScreen {
			return screenSeen{kind: seenLastScreen, note: signLastScreen.note(), confirmed: true}
		}
		return exited
	}
	if _, ok := a.Prompt(); !ok {
		return unverified
	}
	s, err := d.watch(ctx, a, &landed)
	switch {
	case err != nil:
		return unverified
	case s == signExited:
		return exited
	case s != signNone:
		return s.seen("")
	}
	retries := max(a.Submit().EnterRetries, 1)
	for try := 1; ; try++ {
		got, retry := d.unconfirmed(a, t, &landed)
		if !retry {
			return got
		}
		if err := d.sleep(ctx, d.cfg.RetryEnterAfter); err != nil {
			return unverified
		}
		// Things may have moved during the pause: judge again at the Enter.
		if got, retry = d.unconfirmed(a, t, &landed); !retry {
			return got
		}
		if err := d.enter(ctx, a, t.id); err != nil {
			switch {
			case ctx.Err() != nil:
				return unverified
			case statusHold(a, d.cfg.Clock.Now()) == HoldExited:
				// An earlier Enter reached the process that is gone now.
				return exited
			}
			return screenSeen{kind: seenNotSubmitted}
		}
		s, err = d.watch(ctx, a, &landed)
		switch {
		case err != nil:
			return unverified
		case s == signExited:
			return exited
		case s != signNone && try == 1:
			return s.seen(" (second Enter)")
		case s != signNone:
			return s.seen(fmt.Sprintf(" (Enter %d)", try+1))
		case try >= retries:
			return screenSeen{kind: seenNotSubmitted}
		}
	}
}

// seen is the submit check's result for a sign other than signNone and
// signExited, its note followed by more.
func (s sign) seen(more string) screenSeen {
	if s == signLastScreen {
		return screenSeen{kind: seenLastScreen, note: s.note() + more, confirmed: s.confirms()}
	}
	return screenSeen{kind: seenSubmit, note: s.note() + more, confirmed: s.confirms()}
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

// unconfirmed decides what to do once a submit was not confirmed: take the
// screen's evidence after all (got), press Enter once more (retry), or
// neither (got says the text was typed but not submitted, or never taken).
// One more Enter is sent only when it can do no harm: no dialog, no block
// (the person is not at the prompt), and our own text is still what the
// prompt row shows.
func (d *Drainer) unconfirmed(a Agent, t typing, landed *bool) (got screenSeen, retry bool) {
	now := d.cfg.Clock.Now()
	switch s := look(a, now, landed); s {
	case signExited:
		return screenSeen{kind: seenExited}, false
	case signNone:
	default:
		return s.seen(""), false
	}
	row, ok := a.Prompt()
	switch {
	case !ok:
		return screenSeen{kind: seenSubmit, note: "unverified"}, false
	case !*landed && !automation.PromptRowHasText(row):
		return screenSeen{kind: seenNotTaken}, false
	case a.Block(now) != automation.BlockNone, !onRow(row, t.probe):
		return screenSeen{kind: seenNotSubmitted}, false
	}
	return screenSeen{}, true
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
	// EvidenceAnswer: a message handed over through a turn-end hook to a
	// CLI whose records office does not read: the hook's answer alone.
	EvidenceAnswer = "hook answer"
)

// evidencePoll is how often the agent's records are read while waiting.
const evidencePoll = 100 * time.Millisecond

// evidenceAfterNoSubmit is how long the records are watched after the screen
// check found no submit: a record can still show that the CLI took the text.
const evidenceAfterNoSubmit = time.Second

// confirm checks a typed delivery against the agent's own records. keeps is
// false when the agent keeps none, they were not seen to record this run of
// the agent yet, or the text is a slash command. Otherwise it waits up to
// Config.EvidenceFor (evidenceAfterNoSubmit when the screen saw no submit)
// for a record of t's text dated at or after since, and returns the record's
// source. A record found is taken whatever keeps says. proven is whether the
// records were seen to record the prompts of the process typed into, as read
// before typing (recordable).
func (d *Drainer) confirm(ctx context.Context, name string, t typing, since time.Time, screenOK, proven bool) (source string, found, keeps bool) {
	if has, _ := d.recordable(name, t); !has {
		return "", false, false
	}
	// Records not yet seen to record this run get the same wait: a CLI
	// that keeps records confirms every delivery (classify holds it).
	wait := d.cfg.EvidenceFor
	if !screenOK {
		wait = evidenceAfterNoSubmit
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

// evidenceConfirms is whether evidenceNote's note of screen confirms the
// submit: the records showing the text (found) with no screen note or a
// confirming one; records that keep it and do not show it, never; else
// the screen's own word.
func evidenceConfirms(screen screenSeen, found, keeps bool) bool {
	switch {
	case found && screen.note == "":
		return true
	case found:
		return screen.confirmed
	case keeps:
		return false
	}
	return screen.confirmed
}

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

// observeRecords gathers, after the submit check, what the agent's records
// say of t's text since typing began, into o (with the snapshot the outcome
// is judged at). An exit during the check gets Config.EvidenceFor to show
// the text; otherwise confirm's wait applies. A submit the screen saw and
// proven records never showed gets a look at the agent (afterNoRecord).
func (d *Drainer) observeRecords(ctx context.Context, name string, a Agent, t typing, since time.Time, o *observed) {
	o.keeps, _ = d.recordable(name, t)
	switch o.screen.kind {
	case seenExited, seenLastScreen:
		// Settled by the records of the process typed into (proven as
		// read before typing: a restart may have replaced it).
		if o.keeps {
			o.source, o.found, o.unread = d.received(ctx, name, t, since, d.cfg.EvidenceFor)
		}
		d.snapshot(ctx, a, o)
		return
	}
	// proven, from here on, is confirm's: records that keep and were seen
	// to record this run (a missing record counts against the delivery).
	o.source, o.found, o.proven = d.confirm(ctx, name, t, since, o.screen.submitted(), o.proven)
	if !o.found && o.screen.submitted() && o.keeps && o.proven {
		d.afterNoRecord(ctx, name, a, t, since, o)
		return
	}
	if o.screen.kind == seenNotTaken {
		o.drewAfter = a.LastOutput().After(since)
	}
	d.snapshot(ctx, a, o)
}

// afterNoRecord looks at the agent after a submit the screen saw and its
// proven records do not show (the snapshot the outcome is judged at, then
// what the agent and its prompt row show). Our text still on the prompt of
// an idle agent with no block gets one more Enter, under the submit check's
// rule (the Enter became a newline or was lost), and the records are
// watched once more.
func (d *Drainer) afterNoRecord(ctx context.Context, name string, a Agent, t typing, since time.Time, o *observed) {
	d.snapshot(ctx, a, o)
	if o.stopped {
		return
	}
	d.log.Warn("the screen showed a submit but the CLI's records do not show the text", "agent", name, "msg", t.id, "text", preview(t.text))
	if o.exited {
		return
	}
	if o.busy = a.Status() == automation.StatusBusy; o.busy {
		return
	}
	row, ok := a.Prompt()
	if o.rowRead = ok; !ok {
		return
	}
	o.onRow, o.rowEmpty = onRow(row, t.probe), !automation.PromptRowHasText(row)
	if o.onRow && a.Status() == automation.StatusIdle && a.Block(d.cfg.Clock.Now()) == automation.BlockNone &&
		d.enter(ctx, a, t.id) == nil {
		o.sourceAgain, o.foundAgain, _ = d.confirm(ctx, name, t, since, true, o.proven)
	}
}

// echoPoll is how often an Enter that waits for its text's echo
// (Config.EchoWait, the echo_wait setting) looks at the prompt row.
const echoPoll = 50 * time.Millisecond

// gapBeforeEnter waits gap after the text. With EnterAfterEcho it then
// waits, up to Config.EchoWait, for the prompt row to show text (the CLI has read
// ours), and when that took longer than the gap, the gap once more from
// there, so the Enter never reaches the CLI in the same read as the text.
func (d *Drainer) gapBeforeEnter(ctx context.Context, a Agent, gap time.Duration) error {
	if err := d.sleep(ctx, gap); err != nil {
		return err
	}
	if !a.Submit().EnterAfterEcho {
		return nil
	}
	deadline := d.cfg.Clock.Now().Add(d.cfg.EchoWait)
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

// unconfirmedReason is the evidence recorded for a message typed into a CLI
// that keeps records, whose records never showed it within evidence_wait
// (heldUnconfirmed's label).
const unconfirmedReason = "typed, not confirmed: the screen showed a submit but the CLI's records do not show the text"

// rmInbox is what a held notice adds to `office queue rm` for an inbox
// delivery: its items go with it, as done (inbox.Service.RemoveTx).
func rmInbox(m queue.Message) string {
	if m.Kind != queue.KindInbox {
		return ""
	}
	return " (its inbox items are then done, not delivered again)"
}

// unconfirmedNotice is the person's notice of a message typed into agent and
// not confirmed by its records.
func unconfirmedNotice(agent string, m queue.Message) string {
	return fmt.Sprintf("message %d held: typed into %s, not confirmed; office queue rm %d or release %d\n"+
		"Message %d was typed into %s and its screen showed a submit, but %s's own records never showed the text: it may "+
		"not have reached the model (a dialog, a screen office does not know), or may sit in the CLI's own queue. It is not "+
		"typed again on its own, and nothing else is typed into %s until you decide (other agents go on). Look at its pane: "+
		"if it arrived, or you do not want it, `office queue rm %d`%s; `office queue release %d` types it again.\nText: %s",
		m.ID, agent, m.ID, m.ID, m.ID, agent, agent, agent, m.ID, rmInbox(m), m.ID, NoticeText(m))
}
