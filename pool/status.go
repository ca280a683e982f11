package pool

// status.go gathers what the status judge (automation.Judge) reads about one
// terminal and keeps its answer. Nothing here decides: the rules are the
// judge's.

import (
	"strings"
	"time"

	"office/automation"
)

// observed is what pool keeps between two judgments: inputs that are a
// history rather than a reading of the screen now.
type observed struct {
	hook         automation.HookReport // newest report of the CLI's hooks
	markerSince  time.Time             // all ready markers on screen since; zero: not all
	titleStatus  automation.Status     // the title's last reading
	titleOK      bool                  // the title said something
	titleSince   time.Time             // when that reading last changed
	overdueShown bool                  // BootOverdue was reported once

	// A shell agent's prompt, learned from the screen (see shellPromptLocked).
	fg          automation.Foreground // the last foreground reading
	fgSince     time.Time             // when it became that
	shellPrompt string                // the prompt's text before the cursor, "" until learned
	enterAt     time.Time             // the last Enter, the person's or office's
	enterGen    uint64                // the screen's generation just before that Enter reached the PTY
	learnedAt   time.Time             // the epoch of the learning: once per return to the prompt
	lastWrite   time.Time             // office's last automated write
}

// promptEpoch is when a shell's line was last known empty: the later of its
// return to the foreground and the last Enter.
func (o *observed) promptEpoch() time.Time { return later(o.fgSince, o.enterAt) }

// learning reports whether a shell's prompt is still to be learned since
// the line was last known empty.
func (o *observed) learning() bool {
	return o.fg == automation.ForegroundShell && !o.learnedAt.Equal(o.promptEpoch())
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// judged says what a judgment changed, for the events to emit once the
// terminal's lock is released.
type judged struct {
	status, overdue bool
	limit           bool                 // a new usage-limit banner (EventLimit)
	modelSwitch     bool                 // a new model-switch row (EventModelSwitch)
	turn            automation.TurnEvent // the turn's end, if this judgment ended it
}

// emitJudged emits the events a judgment asked for.
func (t *Terminal) emitJudged(ev judged) {
	if ev.status {
		t.emit(EventStatus)
	}
	if ev.overdue {
		t.emit(EventBootOverdue)
	}
	if ev.limit {
		t.emit(EventLimit)
	}
	if ev.modelSwitch {
		t.emit(EventModelSwitch)
	}
	t.emitTurn(ev.turn)
}

// inputsLocked gathers the judge's inputs at now from t.view (the last
// screen read) and the terminal's state. t.mu must be held.
func (t *Terminal) inputsLocked(now time.Time) automation.Inputs {
	b := t.behavior
	var rows automation.Rows // nil: a blank screen
	if b.readsText() {
		rows = &t.rows
	}
	lastOut := t.LastOutput()
	if len(b.ReadyMarkers) > 0 && !t.judgment.Ready {
		all := true
		for _, m := range b.ReadyMarkers {
			if !automation.MarkerShown(rows, m) {
				all = false
				break
			}
		}
		switch {
		case !all:
			t.obs.markerSince = time.Time{}
		case t.obs.markerSince.IsZero():
			t.obs.markerSince = now
		}
	}
	ts, tok := automation.ReadTitle(t.view.title, b.Status)
	if ts != t.obs.titleStatus || tok != t.obs.titleOK || t.obs.titleSince.IsZero() {
		t.obs.titleStatus, t.obs.titleOK, t.obs.titleSince = ts, tok, now
	}
	in := automation.Inputs{
		Now:      now,
		Exited:   t.exited,
		ExitCode: t.exitCode,
		Boot: automation.Boot{
			Spawned:      t.spawned,
			Grace:        b.BootGrace,
			Seen:         t.judgment.Ready,
			Markers:      len(b.ReadyMarkers) > 0,
			MarkersSince: t.obs.markerSince,
			Settle:       b.ReadySettle,
			ReadyQuiet:   b.Timing.ReadyQuiet,
		},
		Hook:             t.obs.hook,
		TitleSince:       t.obs.titleSince,
		LastOutput:       lastOut,
		HookStale:        b.Timing.HookStale,
		HookWaitingStale: b.Timing.HookWaitingStale,
		Limit:            t.lim.hold,
	}
	screenInputs(&in, t.view.modes, t.view.title, rows)
	if since, until, ok := t.turn.HoldWindow(); ok {
		in.Turn = automation.TurnHold{Since: since, Until: until}
	}
	if b.ShellIdle && !t.exited {
		if pg, err := foregroundPgrp(t.master); err == nil {
			if pg == t.pid {
				in.Foreground = automation.ForegroundShell
			} else {
				in.Foreground = automation.ForegroundJob
			}
		}
		if in.Foreground != t.obs.fg {
			t.obs.fg, t.obs.fgSince = in.Foreground, now
		}
		in.ShellAtPrompt = in.Foreground == automation.ForegroundShell && t.shellAtPromptLocked()
	}
	return in
}

// shellAtPromptLocked reports whether a shell agent's last prompt reading
// (readPromptLocked) found its prompt with an empty line on a screen drawn
// since the latest Enter (automation.Inputs.ShellAtPrompt). Before the shell
// reads the Enter the row still holds the command, and between its echo
// and the next prompt the cursor sits on a row of output, so neither passes.
// t.mu must be held.
func (t *Terminal) shellAtPromptLocked() bool {
	return !t.obs.enterAt.IsZero() && t.promptGen > t.obs.enterGen && t.promptOK && t.promptText == ""
}

// ScreenInputs sets the judge's inputs that a screen shows: the title, the
// OSC state, the synchronized-output frame and the text, as a Terminal
// gathers them.
func (s *Snapshot) ScreenInputs(in *automation.Inputs) {
	screenInputs(in, s.Modes, s.Title, automation.TextRows(s.Text()))
}

func screenInputs(in *automation.Inputs, m Modes, title string, rows automation.Rows) {
	in.OSCState = m.OSCState
	in.Title = title
	in.InSyncFrame = m.SyncOutput
	in.Screen = rows
}

// wakeLocked returns the next instant at which a judgment may change with
// no event: the judge's own deadlines (automation.Judgment.Next), the idle
// debounce, the line model's echo graces and settling, the end of a turn
// that never showed busy, a shell's foreground poll and prompt learning.
// Zero means none: the monitor sleeps until an event. t.mu must be held.
func (t *Terminal) wakeLocked(now time.Time) time.Time {
	var next time.Time
	consider := func(at time.Time) {
		if at.After(now) && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	consider(t.judgment.Next)
	if at, ok := t.debounce.Pending(); ok {
		consider(at)
	}
	consider(t.tracker.Next(now))
	if at, ok := t.turn.GraceEnd(); ok {
		consider(at)
	}
	if t.behavior.ShellIdle {
		consider(now.Add(t.behavior.ShellPoll))
		if t.obs.learning() {
			consider(t.LastOutput().Add(t.behavior.ShellPromptQuiet))
		}
	}
	return next
}

// shellPromptLocked reads a shell agent's input line: the text after the
// shell's prompt on the cursor row. The prompt is learned from the screen:
// once a command returned (the shell is back in the foreground, or an Enter
// ran a builtin; or at start) and the line is known empty (no key of the
// person's and no write of office's since, and the output quiet for
// Behavior.ShellPromptQuiet), the cursor row's text before the cursor is
// the prompt. ok is false until it is learned, while a job is in the
// foreground, and when the cursor row does not start with the prompt. t.mu must be held; snap is the screen just read.
func (t *Terminal) shellPromptLocked(snap *Snapshot, now time.Time) (string, bool) {
	o := &t.obs
	if o.fg != automation.ForegroundShell {
		return "", false
	}
	y := snap.CursorY
	row := snap.promptLine(y, 0, false)
	epoch := o.promptEpoch()
	if o.learning() && !t.tracker.LastKey().After(epoch) && !o.lastWrite.After(epoch) &&
		t.tracker.Draft() == "" && now.Sub(t.LastOutput()) >= t.behavior.ShellPromptQuiet {
		if p := strings.TrimRight(snap.cellsText(y, 0, snap.CursorX), " "); p != "" {
			o.shellPrompt, o.learnedAt = p, epoch
		}
	}
	if o.shellPrompt == "" || !strings.HasPrefix(row, o.shellPrompt) {
		return "", false
	}
	return strings.TrimSpace(row[len(o.shellPrompt):]), true
}

// judgeLocked runs the judge at now on the current inputs, keeps its
// answer, debounces the status and follows the current turn. t.mu must be
// held; t.view is the last screen read (readPromptLocked).
func (t *Terminal) judgeLocked(now time.Time) judged {
	switch {
	case !t.behavior.readsScreen():
		t.readModesLocked()
	case !t.view.read:
		t.readScreenLocked(now, false)
	}
	var ev judged
	ev.limit = t.observeLimitLocked(now)
	ev.modelSwitch = t.observeSwitchLocked()
	j := automation.Judge(t.inputsLocked(now), t.behavior.Status)
	t.judgment = j
	t.unjudged = false
	if j.BootOverdue && !t.obs.overdueShown {
		t.obs.overdueShown = true
		ev.overdue = true
	}
	base := j.Status // before the turn hold
	if j.Held {
		base = automation.StatusIdle
	}
	if ev.turn, _ = t.turn.Observe(base, j.Definitive, now); ev.turn.Kind == automation.TurnEnded {
		t.turnEnding++ // until emitTurn has delivered it
	}
	st := t.debounce.Update(j.Status, now)
	ev.status = st != t.status
	t.status = st
	if st == j.Status {
		t.signal = j.Signal()
	}
	return ev
}

// signalLocked names what decided the debounced status: the deciding signal
// of the last judgment whose status was adopted (while an idle reading waits
// out the debounce, the earlier status and its signal stay). t.mu must be
// held.
func (t *Terminal) signalLocked() string {
	if t.signal == "" {
		return "starting"
	}
	return t.signal
}

// BootOverdue reports whether the boot grace ended before the profile's
// readiness was ever seen (automation.Judgment.BootOverdue): the agent is
// judged by its other signals, and its screen may be one office does not
// recognise.
func (t *Terminal) BootOverdue() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.judgment.BootOverdue
}

// steadyLocked reports whether output that changed none of the judge's
// other inputs cannot change its answer at now, so the judge need not run:
// readiness was seen (it latches), no deadline of the last judgment is due,
// and that judgment found output flowing (more output keeps it flowing; the
// quiet window's end is a deadline already). A shell agent is always
// judged: its foreground process group is read at each judgment. t.mu must
// be held.
func (t *Terminal) steadyLocked(now time.Time) bool {
	if !t.judgment.Ready || t.behavior.ShellIdle || (!t.wake.IsZero() && !now.Before(t.wake)) {
		return false
	}
	for _, s := range t.judgment.Steps {
		if s.Signal == automation.SignalOutput {
			return s.Found == automation.FindOutputFlowing
		}
	}
	return false
}
