package drain

// classify, row by row (outcome.go): every branch of today's rules, the
// submit check's and the records' (verify.go), an exit during the check,
// a message held at the head, and start-up recovery.

import (
	"errors"
	"strings"
	"testing"
	"time"

	"office/queue"
)

func TestClassifyEveryRow(t *testing.T) {
	t.Parallel()
	errWrite := errors.New("write /dev/ptmx: timed out")
	errRead := errors.New("permission denied")
	verified := screenSeen{kind: seenSubmit, note: "verified"}
	lastScreen := screenSeen{kind: seenLastScreen, note: signLastScreen.note()}
	exitedSeen := screenSeen{kind: seenExited}
	// written is a delivery whose text and Enter were written, with the
	// screen's result s.
	written := func(s screenSeen) observed { return observed{stage: stageWritten, screen: s, evidence: true} }
	with := func(o observed, edit func(*observed)) observed { edit(&o); return o }
	proven := func(o *observed) { o.keeps, o.proven, o.rowRead = true, true, true }
	t1 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) // a record's date
	t2 := t1.Add(time.Minute)                         // a restart's
	for _, tc := range []struct {
		name string
		o    observed
		want outcome
	}{
		// Nothing typed.
		{"nothing typed", observed{stage: stageNotTyped}, outcome{kind: outRequeue}},

		// The write failed.
		{"write: exited, typed", observed{stage: stageWriteFailed, writeErr: errWrite, exited: true, typed: true},
			outcome{kind: outRequeue, note: diedOnPrompt}},
		{"write: exited, nothing typed", observed{stage: stageWriteFailed, writeErr: errWrite, exited: true},
			outcome{kind: outRequeue}},
		{"write: the person typed, exited", observed{stage: stageWriteFailed, personTyped: true, exited: true},
			outcome{kind: outNotSubmitted}},
		{"write: the person typed, stopped", observed{stage: stageWriteFailed, personTyped: true, stopped: true},
			outcome{kind: outNotSubmitted}},
		{"write: typed, live", observed{stage: stageWriteFailed, writeErr: errWrite, typed: true},
			outcome{kind: outNotSubmitted}},
		{"write: stopped, typed", observed{stage: stageWriteFailed, writeErr: errWrite, typed: true, stopped: true},
			outcome{kind: outStopped, draft: true}},
		{"write: stopped", observed{stage: stageWriteFailed, writeErr: errWrite, stopped: true},
			outcome{kind: outStopped}},
		{"write: failed, live", observed{stage: stageWriteFailed, writeErr: errWrite},
			outcome{kind: outRetry, err: errWrite}},

		// The records decide.
		{"record found", with(written(verified), func(o *observed) { o.keeps, o.found, o.source = true, true, "hook" }),
			outcome{kind: outDelivered, note: "verified; evidence=hook"}},
		{"record found, no submit seen", with(written(screenSeen{kind: seenNotSubmitted}), func(o *observed) { o.keeps, o.found, o.source = true, true, "hook" }),
			outcome{kind: outDelivered, note: "received (the screen did not show the submit); evidence=hook"}},
		{"unproven records, no record", with(written(verified), func(o *observed) { o.keeps = true }),
			outcome{kind: outHold, held: heldUnconfirmed}},
		{"unproven records, no record, stopped", with(written(verified), func(o *observed) { o.keeps, o.stopped = true, true }),
			outcome{kind: outStopped}},
		{"proven, no record, stopped", with(written(verified), func(o *observed) { proven(o); o.stopped = true }),
			outcome{kind: outStopped}},
		{"proven, no record, exited", with(written(verified), func(o *observed) { proven(o); o.exited = true }),
			outcome{kind: outRetry, err: errExitedNotTaken}},
		{"proven, no record, busy", with(written(verified), func(o *observed) { proven(o); o.busy = true }),
			outcome{kind: outHold, held: heldUnconfirmed}},
		{"proven, no record, row unread", with(written(verified), func(o *observed) { proven(o); o.rowRead = false }),
			outcome{kind: outHold, held: heldUnconfirmed}},
		{"proven, no record, on the row, found after an Enter", with(written(verified), func(o *observed) {
			proven(o)
			o.onRow, o.foundAgain, o.sourceAgain = true, true, "session record"
		}), outcome{kind: outDelivered, note: "verified (an Enter after no record); evidence=session record"}},
		{"proven, no record, on the row", with(written(verified), func(o *observed) { proven(o); o.onRow = true }),
			outcome{kind: outNotSubmitted}},
		{"proven, no record, empty row", with(written(verified), func(o *observed) { proven(o); o.rowEmpty = true }),
			outcome{kind: outRetry, err: errNoRecord}},
		{"proven, no record, other text on the row", with(written(verified), proven),
			outcome{kind: outHold, held: heldUnconfirmed}},

		// The screen decides.
		{"not taken, the agent drew", with(written(screenSeen{kind: seenNotTaken}), func(o *observed) { o.drewAfter = true }),
			outcome{kind: outRetry, err: errNotTaken}},
		{"not taken, the agent drew, exited", with(written(screenSeen{kind: seenNotTaken}), func(o *observed) { o.drewAfter, o.exited = true, true }),
			outcome{kind: outRequeue}},
		{"not taken, the agent drew, stopped", with(written(screenSeen{kind: seenNotTaken}), func(o *observed) { o.drewAfter, o.stopped = true, true }),
			outcome{kind: outStopped}},
		{"not taken, nothing drawn", written(screenSeen{kind: seenNotTaken}),
			outcome{kind: outHold, held: heldNothingDrawn}},
		{"not submitted", written(screenSeen{kind: seenNotSubmitted}), outcome{kind: outNotSubmitted}},
		{"submitted, no records kept", written(screenSeen{kind: seenSubmit, note: "verified (second Enter)"}),
			outcome{kind: outDelivered, note: "verified (second Enter); evidence=screen"}},
		{"submitted, no evidence read at all", observed{stage: stageWritten, screen: screenSeen{kind: seenSubmit, note: "unverified"}},
			outcome{kind: outDelivered, note: "unverified"}},

		// An exit during the submit check.
		{"exited, record found", with(written(exitedSeen), func(o *observed) { o.keeps, o.found, o.source = true, true, "hook" }),
			outcome{kind: outDelivered, note: "received (the agent exited before the screen showed the submit); evidence=hook"}},
		{"last screen, record found", with(written(lastScreen), func(o *observed) { o.keeps, o.found, o.source = true, true, "hook" }),
			outcome{kind: outDelivered, note: "verified on its last screen (the agent exited); evidence=hook"}},
		{"exited, record found, stopped", with(written(exitedSeen), func(o *observed) { o.keeps, o.found, o.source, o.stopped = true, true, "hook", true }),
			outcome{kind: outDelivered, note: "received (the agent exited before the screen showed the submit); evidence=hook"}},
		{"last screen, record found, stopped", with(written(lastScreen), func(o *observed) { o.keeps, o.found, o.source, o.stopped = true, true, "hook", true }),
			outcome{kind: outDelivered, note: "verified on its last screen (the agent exited); evidence=hook"}},
		{"exited, stopped", with(written(exitedSeen), func(o *observed) { o.keeps, o.proven, o.stopped = true, true, true }),
			outcome{kind: outStopped}},
		{"last screen, no records", written(lastScreen),
			outcome{kind: outDelivered, note: "verified on its last screen (the agent exited); evidence=screen"}},
		{"last screen, no evidence read", observed{stage: stageWritten, screen: lastScreen},
			outcome{kind: outDelivered, note: "verified on its last screen (the agent exited)"}},
		{"exited, inbox", with(written(exitedSeen), func(o *observed) { o.inbox, o.keeps = true, true }),
			outcome{kind: outRetry, err: errExitedInbox}},
		{"exited, proven records without it", with(written(exitedSeen), func(o *observed) { o.keeps, o.proven = true, true }),
			outcome{kind: outRetry, err: errExitedNotTaken}},
		{"exited, proven records unread", with(written(exitedSeen), func(o *observed) { o.keeps, o.proven, o.unread = true, true, errRead }),
			outcome{kind: outAside, note: "typed, then the agent's process exited before the submit was seen; the CLI's records that would show it were not read (permission denied), so it may or may not have reached the agent"}},
		{"exited, unproven records", with(written(exitedSeen), func(o *observed) { o.keeps = true }),
			outcome{kind: outAside, note: "typed, then the agent's process exited before the submit was seen; the CLI's records do not show it and were not yet seen recording that run of it, so it may or may not have reached the agent"}},
		{"exited, a command", with(written(exitedSeen), func(o *observed) { o.command, o.proven = true, true }),
			outcome{kind: outAside, note: "typed, then the agent's process exited before the submit was seen; a command leaves no record in the CLI's records, so it may or may not have reached the agent"}},
		{"exited, no records", written(exitedSeen),
			outcome{kind: outAside, note: "typed, then the agent's process exited before the submit was seen; its CLI keeps no record office reads, so it may or may not have reached the agent"}},
		{"last screen, unproven records", with(written(lastScreen), func(o *observed) { o.keeps = true }),
			outcome{kind: outAside, note: "typed, then the agent's process exited, its last screen showing the prompt emptied as after a submit; the CLI's records do not show it and were not yet seen recording that run of it, so it may or may not have reached the agent"}},

		// A message held at its agent's head.
		{"held, its record came late", observed{stage: stageHeld, held: heldUnconfirmed, screen: verified, found: true, source: "session record"},
			outcome{kind: outDelivered, note: "verified; evidence=session record (recorded after it was held)"}},
		{"held, its record came late, inbox", observed{stage: stageHeld, held: heldUnconfirmed, screen: verified, found: true, source: "hook", inbox: true},
			outcome{kind: outDelivered, note: "verified; evidence=hook (recorded after it was held)"}},
		{"held, found, restarted, recorded before the restart", observed{stage: stageHeld, held: heldUnconfirmed, heldEvidence: unconfirmedReason, screen: verified,
			found: true, source: "hook", restarted: true, recordAt: t1, spawned: t2},
			outcome{kind: outDelivered, note: "verified; evidence=hook (recorded after it was held)"}},
		{"held, found, restarted, recorded since the restart", observed{stage: stageHeld, held: heldUnconfirmed, heldEvidence: unconfirmedReason, screen: verified,
			found: true, source: "hook", restarted: true, recordAt: t2, spawned: t2},
			outcome{kind: outAsideHeld, note: unconfirmedReason}},
		{"held, found, restarted, undated", observed{stage: stageHeld, held: heldUnconfirmed, heldEvidence: unconfirmedReason, screen: verified,
			found: true, source: "transcript", restarted: true, spawned: t2},
			outcome{kind: outAsideHeld, note: unconfirmedReason}},
		{"held, found since the restart, inbox", observed{stage: stageHeld, held: heldUnconfirmed, heldEvidence: unconfirmedReason, screen: verified,
			found: true, source: "hook", restarted: true, inbox: true, recordAt: t2.Add(time.Second), spawned: t2},
			outcome{kind: outUnchanged}},
		{"held, found before the restart, inbox", observed{stage: stageHeld, held: heldUnconfirmed, heldEvidence: unconfirmedReason, screen: verified,
			found: true, source: "hook", restarted: true, inbox: true, recordAt: t1, spawned: t2},
			outcome{kind: outDelivered, note: "verified; evidence=hook (recorded after it was held)"}},
		{"held, no remembered reason, nothing-drawn evidence, restarted", observed{stage: stageHeld, heldEvidence: heldReason, restarted: true},
			outcome{kind: outAsideHeld, note: restartedEvidence, restarted: true}},
		{"held, no remembered reason, unconfirmed evidence, restarted", observed{stage: stageHeld, heldEvidence: unconfirmedReason, restarted: true},
			outcome{kind: outAsideHeld, note: unconfirmedReason}},
		{"held, the same process", observed{stage: stageHeld, held: heldUnconfirmed, heldEvidence: unconfirmedReason},
			outcome{kind: outUnchanged}},
		{"held, restarted, inbox", observed{stage: stageHeld, held: heldNothingDrawn, heldEvidence: heldReason, restarted: true, inbox: true},
			outcome{kind: outUnchanged}},
		{"held, nothing drawn, restarted", observed{stage: stageHeld, held: heldNothingDrawn, heldEvidence: heldReason, restarted: true},
			outcome{kind: outAsideHeld, note: restartedEvidence, restarted: true}},
		{"held, no evidence, restarted", observed{stage: stageHeld, restarted: true},
			outcome{kind: outAsideHeld, note: restartedEvidence, restarted: true}},
		{"held, unconfirmed, restarted", observed{stage: stageHeld, held: heldUnconfirmed, heldEvidence: unconfirmedReason, restarted: true},
			outcome{kind: outAsideHeld, note: unconfirmedReason}},
		{"held, an exit the store failed to set aside, restarted", observed{stage: stageHeld, held: heldAsideFailed, heldEvidence: "typed, then …", restarted: true},
			outcome{kind: outAsideHeld, note: "typed, then …"}},

		// Handed over at a turn's end (handover.go): the records alone settle it.
		{"handed: record found", observed{stage: stageHanded, channel: "stop hook", evidence: true, found: true, source: "transcript"},
			outcome{kind: outDelivered, note: "handed over (stop hook); evidence=transcript"}},
		{"handed: record found, then exited", observed{stage: stageHanded, channel: "stop hook", evidence: true, found: true, source: "transcript", exited: true},
			outcome{kind: outDelivered, note: "handed over (stop hook); evidence=transcript"}},
		{"handed: no records read", observed{stage: stageHanded, channel: "stop hook"},
			outcome{kind: outDelivered, note: "handed over (stop hook); evidence=" + EvidenceAnswer}},
		{"handed: stopped", observed{stage: stageHanded, channel: "stop hook", evidence: true, stopped: true},
			outcome{kind: outStopped}},
		{"handed: exited, inbox", observed{stage: stageHanded, channel: "stop hook", evidence: true, exited: true, inbox: true},
			outcome{kind: outRetry, err: errExitedInbox}},
		{"handed: exited", observed{stage: stageHanded, channel: "stop hook", evidence: true, exited: true},
			outcome{kind: outAside, note: "handed over at a turn's end, then the agent's process exited before its records showed it, so it may or may not have reached the agent"}},
		{"handed: no record", observed{stage: stageHanded, channel: "stop hook", evidence: true},
			outcome{kind: outHold, held: heldHanded}},
		{"handed: no record, records unread", observed{stage: stageHanded, channel: "stop hook", evidence: true, unread: errRead},
			outcome{kind: outHold, held: heldHanded}},
		{"held handed over, restarted since", observed{stage: stageHeld, held: heldHanded, heldEvidence: handedReason, restarted: true},
			outcome{kind: outAsideHeld, note: handedReason}},
		{"held handed over, live", observed{stage: stageHeld, held: heldHanded, heldEvidence: handedReason},
			outcome{kind: outUnchanged}},

		// About to be typed again after an attempt counted failed for want
		// of a record (untaken.go): a late record settles it.
		{"untaken: record found late", observed{stage: stageUntaken, screen: verified, found: true, source: "session record"},
			outcome{kind: outDelivered, note: "verified; evidence=session record" + untakenNote, log: "the CLI's record of an attempt counted failed came late: delivered, not typed again"}},
		{"untaken: still no record", observed{stage: stageUntaken, screen: verified},
			outcome{kind: outUnchanged}},
		{"held handed over, its record late", observed{stage: stageHeld, held: heldHanded, heldEvidence: handedReason, channel: "stop hook", found: true, source: "transcript"},
			outcome{kind: outDelivered, note: "handed over (stop hook); evidence=transcript" + lateNote}},
		{"held handed over, a record after a restart", observed{stage: stageHeld, held: heldHanded, heldEvidence: handedReason, found: true, source: "transcript", restarted: true},
			outcome{kind: outAsideHeld, note: handedReason}},

		// Start-up recovery.
		{"recovered, unknown agent", observed{stage: stageRecovered},
			outcome{kind: outAside, note: queue.EvidenceUnknown + " (the agent is not in the office file)"}},
		{"recovered, no records", observed{stage: stageRecovered, known: true},
			outcome{kind: outAside, note: queue.EvidenceUnknown + " (its CLI keeps no record office reads)"}},
		{"recovered, records unread", observed{stage: stageRecovered, known: true, keeps: true, recordKind: "codex", unread: errRead},
			outcome{kind: outAside, note: queue.EvidenceUnknown + " (its records could not be read: permission denied)"}},
		{"recovered, record found", observed{stage: stageRecovered, known: true, keeps: true, recordKind: "claude", found: true, source: "hook"},
			outcome{kind: outDelivered, note: "hook"}},
		{"recovered, no record", observed{stage: stageRecovered, known: true, keeps: true, recordKind: "gemini"},
			outcome{kind: outAside, note: "typing had begun; the CLI's records (gemini) do not show it, so it may or may not have reached the agent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The rows give the screen's note; verify sets its confirmed
			// with it (sign.confirms), as the note's first word says.
			tc.o.screen.confirmed = strings.HasPrefix(tc.o.screen.note, "verified")
			got := classify(tc.o)
			got.log = "" // words for the log line, not the outcome
			if got.kind != tc.want.kind || got.note != tc.want.note || !errors.Is(got.err, tc.want.err) ||
				got.held != tc.want.held || got.draft != tc.want.draft || got.restarted != tc.want.restarted {
				t.Fatalf("classify = %+v, want %+v", got, tc.want)
			}
			// The typed state is what the words said before the store
			// kept it (engine's legacyDeliveryVerified): the move changes
			// no event's state.
			if said := strings.HasPrefix(got.note, "verified") || strings.HasPrefix(got.note, "received"); got.kind == outDelivered && got.confirmed != said {
				t.Errorf("classify: confirmed %v for note %q, whose words say %v", got.confirmed, got.note, said)
			}
		})
	}
}

// Recover is classify's judgment for start-up recovery, as a queue.Verdict.
func TestRecoverIsClassifysVerdict(t *testing.T) {
	t.Parallel()
	if v := Recover(Interrupted{Known: true, Records: "claude", Found: true, Source: "hook"}); v.Settle != queue.SettleDelivered || v.Evidence != "hook" {
		t.Fatalf("found: %+v", v)
	}
	if v := Recover(Interrupted{Known: true, Records: "claude"}); v.Settle != queue.SettleAside || v.Evidence == "" {
		t.Fatalf("not found: %+v", v)
	}
}

// Each hold reason has its label, the evidence `office queue` shows.
func TestHeldWhyLabels(t *testing.T) {
	t.Parallel()
	if heldNothingDrawn.label() != heldReason || heldUnconfirmed.label() != unconfirmedReason || heldAsideFailed.label() != "" ||
		heldHanded.label() != handedReason {
		t.Fatal("hold reasons and their labels differ")
	}
}
