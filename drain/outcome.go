package drain

// The one place a delivery's outcome is decided (docs/evidence.md). The
// drain gathers what one delivery observed (deliver.go, verify.go: the
// write, the screen after the Enter, the CLI's records, the agent's exit,
// the clock) into an observed value; classify, a pure function of it,
// returns the typed outcome; settle (settle.go) records it, each outcome
// one store transaction. Start-up recovery judges a delivery a stop
// interrupted with the same function (Recover). Nothing here reads a
// screen, a file, the store or the clock, and nothing is decided by
// comparing words: the words are only what is recorded.

import (
	"errors"
	"fmt"
	"time"

	"office/queue"
)

// stage is how far a delivery got.
type stage int

const (
	// stageNotTyped: an attempt was stamped, and nothing was typed after
	// all (the text rendered at attempt time cannot be typed, the store
	// could not record that writing begins, the agent changed meanwhile).
	stageNotTyped stage = iota
	// stageWriteFailed: a write of the text or of its Enter failed, or the
	// submit stopped before the Enter (the person typed in the gap).
	stageWriteFailed
	// stageWritten: the text and its Enter were written; the submit check
	// and the records tell the rest.
	stageWritten
	// stageHeld: a message held typed, not confirmed, waiting at its
	// agent's head; its records were read again (settleHeld).
	stageHeld
	// stageRecovered: a stop of the office interrupted the delivery while
	// it was typed; start-up recovery judges it from the records alone.
	stageRecovered
	// stageHanded: handed over through the CLI's turn-end hook
	// (handover.go): nothing typed; its records tell the rest.
	stageHanded
	// stageUntaken: about to be typed again after an attempt the screen
	// saw submitted and the proven records did not show (errNoRecord);
	// those records were read once more first (untaken.go).
	stageUntaken
)

// seen is what the submit check (verify) saw on the screen.
type seen int

const (
	// seenSubmit: the screen's evidence of a submit (the prompt row
	// emptied after our text, the agent turned busy or opened a dialog),
	// or a check that could not tell, counted as one ("unverified").
	seenSubmit seen = iota
	// seenNotSubmitted: our text still sits on the prompt (or the person
	// is there) after the Enters the check may send.
	seenNotSubmitted
	// seenNotTaken: the text never showed on the prompt row and the agent
	// did not react.
	seenNotTaken
	// seenExited: the agent's process exited before a submit was seen.
	seenExited
	// seenLastScreen: the process exited, and its last screen shows the
	// prompt row emptied after our text had shown on it.
	seenLastScreen
)

// screenSeen is the submit check's result: what it saw, and the note a
// delivery it confirms records ("verified", "verified (second Enter)",
// "unverified: a dialog opened", ...).
type screenSeen struct {
	kind seen
	note string
	// confirmed: the screen showed the submit (its note says "verified"):
	// a delivery on it alone records queue.StateConfirmed.
	confirmed bool
}

// submitted reports whether the screen counts the submit as seen.
func (s screenSeen) submitted() bool { return s.kind == seenSubmit || s.kind == seenLastScreen }

// observed is everything one delivery observed, gathered in order by
// deliver; classify decides from it alone.
type observed struct {
	stage stage

	// What was typed, or handed over by channel (stageHanded: the
	// channel's word).
	channel  string
	inbox    bool // an inbox delivery (queue.KindInbox): its items carry ids
	command  bool // a slash command: the CLI records no prompt for it
	evidence bool // the drain reads agents' records at all (Config.Evidence)

	// The write (stageWriteFailed).
	writeErr    error
	personTyped bool // the person typed in the gap, or only some lines went in
	typed       bool // some of our text sits on the prompt without its Enter

	// The drain and the agent when the outcome is judged (for a submit the
	// records never showed: before the Enter afterNoRecord may press).
	stopped bool // the drain is stopping (its context is done)
	exited  bool // the agent's process has exited

	// The submit check (stageWritten).
	screen    screenSeen
	drewAfter bool // the agent drew output after typing began (seenNotTaken)

	// The CLI's records.
	keeps  bool   // they can be evidence for this text (recordable)
	proven bool   // they were seen, before typing, to record this process's prompts
	found  bool   // they show the text since typing began
	source string // which record: the evidence word ("hook", ...)
	unread error  // why they were not all read (their silence proves nothing)

	// A submit the screen saw and proven records never showed
	// (afterNoRecord): what the agent shows then.
	busy        bool   // it is busy: it may have queued the text
	rowRead     bool   // the prompt row could be read
	onRow       bool   // our text still sits on it
	rowEmpty    bool   // it is empty
	foundAgain  bool   // after one more Enter, the records show the text
	sourceAgain string // and which record

	// A held message (stageHeld): why the drain held it (0: not known),
	// the evidence it was held with, whether the process it was typed
	// into has ended since, when the agent's current process started, and
	// when the record found (found) was recorded (zero: undated).
	held         heldWhy
	heldEvidence string
	restarted    bool
	spawned      time.Time
	recordAt     time.Time

	// Start-up recovery (stageRecovered): the agent is in the office file,
	// and its profile's record kind ("" for none).
	known      bool
	recordKind string
}

// outcomeKind is what becomes of a delivery.
type outcomeKind int

const (
	// outUnchanged: nothing changes (a held message whose records still do
	// not show it stays held).
	outUnchanged outcomeKind = iota
	// outStopped: nothing is settled; the drain is stopping and the
	// message stays in flight, for the next start's recovery.
	outStopped
	// outRequeue: nothing of it was taken: it is queued again as it was,
	// no attempt counted (queue.Store.Unattempt).
	outRequeue
	// outDelivered: it arrived (queue.Store.Delivered), note says by what
	// evidence.
	outDelivered
	// outNotSubmitted: typed, not submitted: the text on the prompt is the
	// person's draft, and the message leaves the queue.
	outNotSubmitted
	// outRetry: a failed attempt, typed again after the cooldown; the
	// store drops it at the last attempt, loudly.
	outRetry
	// outHold: held at its agent's head with its reason, never typed again
	// on its own (queue.Store.Hold).
	outHold
	// outAside: set aside for the person, note the evidence: it may or
	// may not have arrived (queue.Store.SetAside).
	outAside
	// outAsideHeld: a held message set aside, note the evidence, once the
	// process it was typed into has ended (queue.Store.SetAsideHeld).
	outAsideHeld
)

// outcome is classify's answer.
type outcome struct {
	kind outcomeKind
	// note: outDelivered's note, outRequeue's why ("" is "nothing typed"),
	// outAside's evidence.
	note string
	// confirmed: with outDelivered, the screen or the CLI's records showed
	// the submit (the "delivered" event's queue.StateConfirmed; else
	// StateUnconfirmed). Set with the note, never read back from it.
	confirmed bool
	// err: the failure outRetry records.
	err error
	// held: outHold's reason.
	held heldWhy
	// draft: with outStopped, the typed text is the person's draft now.
	draft bool
	// restarted: with outAsideHeld, it was held because the agent drew
	// nothing after it (the person's notice says so).
	restarted bool
	// log: why, for the log line.
	log string
}

// The failures a failed attempt records.
var (
	// errNotTaken: the text never showed on the prompt row and the agent
	// did not react, though it kept drawing: its UI dropped the keys.
	errNotTaken = errors.New("the agent did not take the text: it never showed on the prompt and the agent did not turn busy")
	// errNoRecord: the screen seemed to submit it but the CLI's (proven)
	// records never showed it, and the prompt is empty after.
	errNoRecord = errors.New("the agent did not take the text: its records do not show it and the prompt is empty")
	// errExitedNotTaken: the agent exited during the submit check while
	// its records, seen to record that process's prompts, do not show it.
	errExitedNotTaken = errors.New("the agent's process exited before it took the text: its records, which record its prompts, do not show it")
	// errExitedInbox: an inbox delivery whose agent exited during the
	// submit check, delivered again.
	errExitedInbox = errors.New("the agent's process exited before the submit was seen; delivered again (its items carry ids)")
)

// lateNote ends the note of a delivery whose record came after it was held;
// untakenNote one whose record came after its attempt was counted failed.
const (
	lateNote    = " (recorded after it was held)"
	untakenNote = " (recorded after its attempt was counted failed)"
)

// diedOnPrompt is the why of an attempt undone because the text was typed
// into a process that exited before any Enter.
const diedOnPrompt = "typed into a process that exited before any Enter: it died on that prompt"

// classify decides a delivery's outcome from what it observed. Its rows, in
// order, are the rules of docs/evidence.md; the table in outcome_test.go
// has one case per row.
func classify(o observed) outcome {
	switch o.stage {
	case stageNotTyped:
		return outcome{kind: outRequeue}
	case stageWriteFailed:
		return classifyWrite(o)
	case stageHeld:
		// A CLI under load may write its record after evidence_wait: the
		// same rule as at the submit check settles it, never a retype.
		return classifyHeld(o)
	case stageRecovered:
		return classifyRecovered(o)
	case stageHanded:
		return classifyHanded(o)
	case stageUntaken:
		// The record of the attempt counted failed came after all: it
		// arrived, and typing it again would deliver it twice.
		if o.found {
			return outcome{kind: outDelivered, note: evidenceNote(o.screen.note, o.source, true, true) + untakenNote,
				confirmed: evidenceConfirms(o.screen, true, true), log: "the CLI's record of an attempt counted failed came late: delivered, not typed again"}
		}
		return outcome{kind: outUnchanged}
	}
	switch o.screen.kind {
	case seenExited, seenLastScreen:
		return classifyExited(o)
	}
	if o.found {
		// The CLI's own record shows the text: it arrived, whatever the
		// screen said.
		note, confirmed := "", true
		if o.screen.submitted() {
			note, confirmed = o.screen.note, evidenceConfirms(o.screen, true, true)
		}
		return outcome{kind: outDelivered, note: evidenceNote(note, o.source, true, true), confirmed: confirmed}
	}
	if o.screen.submitted() && o.keeps {
		// A CLI that keeps records confirms every delivery: the screen
		// alone never counts it delivered.
		if o.proven {
			if out, ok := classifyNoRecord(o); ok {
				return out
			}
		}
		if o.stopped {
			return outcome{kind: outStopped, log: "drain stopped while the CLI's records were checked; recovery settles the delivery at the next start"}
		}
		return outcome{kind: outHold, held: heldUnconfirmed,
			log: "typed, not confirmed: the CLI's records do not show it; held until released"}
	}
	switch o.screen.kind {
	case seenNotTaken:
		if o.drewAfter {
			// The agent kept drawing but never showed our text: its UI
			// dropped the keys (a CLI still loading). Nothing of it is
			// pending anywhere, so a later attempt duplicates nothing.
			return failedWrite(o, errNotTaken, false)
		}
		// No output at all since we typed: the agent may not be reading
		// its input, and our bytes may wait there to be read later. Typing
		// again could duplicate them: only the person may.
		return outcome{kind: outHold, held: heldNothingDrawn, log: "the agent showed nothing after the text; held until released"}
	case seenNotSubmitted:
		return outcome{kind: outNotSubmitted}
	}
	note := o.screen.note
	if o.evidence {
		note = evidenceNote(note, "", false, false)
	}
	return outcome{kind: outDelivered, note: note, confirmed: o.screen.confirmed}
}

// classifyHanded decides a message handed over through its CLI's turn-end
// hook (docs/evidence.md, "Handed over at a turn's end"): nothing was typed,
// so only the CLI's records settle it, with records.Handed's evidence (the
// CLI's own mark of a hook's text, never a typed prompt):
//
//  1. the records show it handed over since the answer: delivered;
//  2. the drain reads no records at all: delivered on the answer alone
//     (the hook's block is the CLI's submit);
//  3. a stopping drain settles nothing (recovery does, at the next start);
//  4. the agent's process exited meanwhile: an inbox delivery is delivered
//     again (its items carry ids), any other is set aside;
//  5. else held, handed over, not confirmed: never handed over or typed
//     again on a guess.
func classifyHanded(o observed) outcome {
	switch {
	case o.found:
		return outcome{kind: outDelivered, note: handedNote(o.channel, o.source)}
	case !o.evidence:
		return outcome{kind: outDelivered, note: handedNote(o.channel, EvidenceAnswer)}
	case o.stopped:
		return outcome{kind: outStopped, log: "drain stopped while the CLI's records of a hand-over were read; recovery settles it at the next start"}
	case o.exited && o.inbox:
		return outcome{kind: outRetry, err: errExitedInbox,
			log: "the agent exited before its records showed the inbox delivery handed over; delivered again into its next process"}
	case o.exited:
		return outcome{kind: outAside, note: "handed over at a turn's end, then the agent's process exited before its records showed it, so it may or may not have reached the agent",
			log: "the agent exited before its records showed the hand-over; set aside"}
	}
	return outcome{kind: outHold, held: heldHanded,
		log: "handed over, not confirmed: the CLI's records do not show it; held until released"}
}

// handedNote is the delivery note of a message handed over by channel,
// confirmed by source (the evidence word).
func handedNote(channel, source string) string {
	return "handed over (" + channel + "); evidence=" + source
}

// classifyHeld decides a message held at its agent's head after it was
// typed: a record that came late settles it delivered (the same rule as at
// the submit check; never a retype); once the process it was typed into has
// ended, nothing of it can wait unread in an input any more, and it is set
// aside with what is known (an inbox delivery is not: its items stay leased
// to it, and the next start's recovery judges it); else it stays held.
// After a restart, only a record dated before the new process started
// counts: a prompt since is the new process's (the person typing the text
// again), and Claude's hook log is one file across the agent's processes.
func classifyHeld(o observed) outcome {
	beforeRestart := !o.recordAt.IsZero() && o.recordAt.Before(o.spawned)
	switch {
	case o.found && o.held == heldHanded && !o.restarted:
		return outcome{kind: outDelivered, note: handedNote(o.channel, o.source) + lateNote,
			log: "the CLI's record of a message held handed over, not confirmed, came late: delivered"}
	case o.found && o.held != heldHanded && (!o.restarted || beforeRestart):
		return outcome{kind: outDelivered, note: evidenceNote(o.screen.note, o.source, true, true) + lateNote,
			confirmed: evidenceConfirms(o.screen, true, true), log: "the CLI's record of a message held typed, not confirmed, came late: delivered"}
	case !o.restarted || o.inbox:
		return outcome{kind: outUnchanged}
	case o.held == heldNothingDrawn:
		return outcome{kind: outAsideHeld, note: restartedEvidence, restarted: true}
	case o.held == 0 && (o.heldEvidence == "" || o.heldEvidence == heldReason):
		// The drain does not remember why it held the message (held by
		// an earlier drain of this office, or forgotten): the evidence it
		// was held with is all that is known of it, and the one place a
		// stored label is compared. Held for nothing drawn (or with no
		// evidence), it is set aside as a restart after nothing drawn.
		return outcome{kind: outAsideHeld, note: restartedEvidence, restarted: true}
	}
	// Held with evidence of its own (typed, not confirmed; an exit whose
	// setting aside the store failed): that is what is known.
	return outcome{kind: outAsideHeld, note: o.heldEvidence}
}

// classifyWrite decides a delivery whose write failed (or stopped before the
// Enter).
func classifyWrite(o observed) outcome {
	switch {
	case !o.stopped && !o.personTyped && o.exited:
		// The process exited before the Enter could be written (a restart
		// in the gap, a crash): our text died on its prompt with it, so
		// nothing was submitted and nothing sits on a prompt. It stays
		// queued, no attempt counted, for the next process.
		return failedWrite(o, o.writeErr, o.typed)
	case o.personTyped || (o.typed && !o.stopped):
		// Some of our text (or a whole line of it) reached the prompt and
		// was not submitted as a whole: it is the person's now, never
		// retyped (that would duplicate what is there).
		return outcome{kind: outNotSubmitted}
	}
	return failedWrite(o, o.writeErr, o.typed)
}

// failedWrite is the outcome of an attempt whose write (or whose text)
// failed: a failure on a live agent counts an attempt; an exited agent or a
// stopping drain counts nothing and the message stays queued (an exited
// agent's attempt is undone: what reached its prompt died with it). typed:
// some of the text sits on the prompt without its Enter.
func failedWrite(o observed, err error, typed bool) outcome {
	switch {
	case o.stopped:
		return outcome{kind: outStopped, draft: typed, log: "drain stopped mid-delivery; the message stays queued"}
	case o.exited:
		why := ""
		if typed {
			why = diedOnPrompt
		}
		return outcome{kind: outRequeue, note: why, log: "agent exited during delivery; the message stays queued, no attempt counted"}
	}
	return outcome{kind: outRetry, err: err}
}

// classifyNoRecord decides a delivery the screen confirmed but the agent's
// proven records do not show: the CLI did not take it. Our text still on
// the prompt is the person's draft (typed, not submitted) unless the one
// more Enter it got made the records show it; an empty prompt on an idle
// agent is a failed attempt. ok is false when nothing is settled here (the
// agent is busy and may have queued the text to record later, or its prompt
// row cannot be read, or shows other text): the delivery is then held,
// typed, not confirmed.
func classifyNoRecord(o observed) (out outcome, ok bool) {
	switch {
	case o.stopped:
		// A stop cut the check short, and the agent's process may be
		// ending with the office: a stop settles nothing.
		return outcome{kind: outStopped, log: "drain stopped while the CLI's records were checked; recovery settles the delivery at the next start"}, true
	case o.exited:
		// Records that record this process's prompts do not show it, and
		// the process is gone (whatever it had queued went with it).
		return outcome{kind: outRetry, err: errExitedNotTaken}, true
	case o.busy || !o.rowRead:
		return outcome{}, false
	case o.onRow && o.foundAgain:
		return outcome{kind: outDelivered, note: "verified (an Enter after no record); evidence=" + o.sourceAgain, confirmed: true}, true
	case o.onRow:
		return outcome{kind: outNotSubmitted}, true
	case o.rowEmpty:
		return outcome{kind: outRetry, err: errNoRecord}, true
	}
	return outcome{}, false
}

// classifyExited decides a delivery whose agent's process exited during the
// submit check (docs/evidence.md, "An exit during the submit check"), or
// whose last screen showed the prompt emptied after our text. The exit
// proves nothing about the submit; what was known before typing, of the
// process typed into (proven), decides with the records:
//
//  1. the records show the text since writing began: delivered;
//  2. the last screen showed the submit and the CLI keeps no records that
//     can tell (none office reads, or a slash command): delivered on it;
//  3. an inbox delivery: a failed attempt, typed again into the next
//     process (its items carry ids the agent can skip);
//  4. proven records, all read, do not show it: the CLI never took it, and
//     the text died on its prompt with the process: a failed attempt;
//  5. anything else: set aside, it may or may not have reached the agent.
//     A last screen alone does not settle a delivery its CLI's records
//     could have (a CLI may redraw its input empty as it is killed).
//
// A drain stopping meanwhile settles nothing.
func classifyExited(o observed) outcome {
	lastScreen := o.screen.kind == seenLastScreen
	switch {
	case o.found && lastScreen:
		return outcome{kind: outDelivered, note: o.screen.note + "; evidence=" + o.source, confirmed: o.screen.confirmed}
	case o.found:
		return outcome{kind: outDelivered, note: "received (the agent exited before the screen showed the submit); evidence=" + o.source, confirmed: true}
	case o.stopped:
		return outcome{kind: outStopped, log: "drain stopped while settling a delivery whose agent exited; recovery settles it at the next start"}
	case lastScreen && !o.keeps:
		note := o.screen.note
		if o.evidence {
			note = evidenceNote(note, "", false, false)
		}
		return outcome{kind: outDelivered, note: note, confirmed: o.screen.confirmed}
	case o.inbox:
		return outcome{kind: outRetry, err: errExitedInbox,
			log: "the agent exited during the submit check; the inbox delivery is typed again into its next process"}
	case o.keeps && o.proven && o.unread == nil:
		return outcome{kind: outRetry, err: errExitedNotTaken,
			log: "the agent exited during the submit check and its records do not show the text; typed again into its next process"}
	}
	what := "typed, then the agent's process exited before the submit was seen; "
	if lastScreen {
		what = "typed, then the agent's process exited, its last screen showing the prompt emptied as after a submit; "
	}
	return outcome{kind: outAside, note: what + exitUnknown(o) + ", so it may or may not have reached the agent",
		log: "the agent exited during the submit check; no evidence settles the delivery, set aside"}
}

// exitUnknown says why no evidence settles a delivery whose agent exited.
func exitUnknown(o observed) string {
	switch {
	case o.evidence && o.command:
		return "a command leaves no record in the CLI's records"
	case o.keeps && o.unread != nil:
		return "the CLI's records that would show it were not read (" + o.unread.Error() + ")"
	case o.keeps:
		return "the CLI's records do not show it and were not yet seen recording that run of it"
	}
	return "its CLI keeps no record office reads"
}

// classifyRecovered decides a delivery a stop interrupted while it was typed
// (docs/evidence.md, "Crash recovery", rules 3 and 5; the store itself
// settles what it can prove without records, rules 1, 2 and 4): the
// agent's records show the text since writing began, or it is set aside.
func classifyRecovered(o observed) outcome {
	switch {
	case !o.known:
		return outcome{kind: outAside, note: queue.EvidenceUnknown + " (the agent is not in the office file)"}
	case !o.keeps:
		return outcome{kind: outAside, note: queue.EvidenceUnknown + " (its CLI keeps no record office reads)"}
	case o.unread != nil:
		return outcome{kind: outAside, note: queue.EvidenceUnknown + " (its records could not be read: " + o.unread.Error() + ")"}
	case o.found:
		return outcome{kind: outDelivered, note: o.source}
	}
	return outcome{kind: outAside,
		note: fmt.Sprintf("typing had begun; the CLI's records (%s) do not show it, so it may or may not have reached the agent", o.recordKind)}
}

// Interrupted is what start-up recovery observed of one delivery a stop
// interrupted while it was typed, for Recover.
type Interrupted struct {
	// Known: the agent is in the office file.
	Known bool
	// Records is its profile's record kind ("" for none).
	Records string
	// Unread is why its records could not be read (nil: they were).
	Unread error
	// Found: they show the text since writing began; Source is which
	// record (the evidence word).
	Found  bool
	Source string
}

// Recover is start-up recovery's judgment of an interrupted delivery
// (queue.Store.RecoverInterrupted's judge), decided by classify: delivered
// with its evidence, or set aside with what is known. The caller adds the
// transaction that settles an inbox batch's items with it.
func Recover(r Interrupted) queue.Verdict {
	out := classify(observed{stage: stageRecovered, known: r.Known, keeps: r.Records != "", recordKind: r.Records,
		unread: r.Unread, found: r.Found, source: r.Source})
	if out.kind == outDelivered {
		return queue.Verdict{Settle: queue.SettleDelivered, Evidence: out.note}
	}
	return queue.Verdict{Settle: queue.SettleAside, Evidence: out.note}
}
