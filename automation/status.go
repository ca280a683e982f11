package automation

// Status detection and deliverability (design.md §3 and §9): which status an
// agent is in, judged from the signals pool observes, and which signal decided.

import (
	"strings"
	"time"
)

const (
	// QuietAfter is how long without output makes a busy agent idle when no
	// stronger signal decides (design.md §3: 12 s quiet means idle).
	QuietAfter = 12 * time.Second
	// StatusDebounce is how long a raw idle must last before StatusDebouncer
	// adopts it. Transitions away from idle are never delayed.
	StatusDebounce = 300 * time.Millisecond
)

// OSCStatus reads a CLI's own state report (Codex's OSC 7501 state=):
// "working" is busy, "idle" and "done" (a turn ended) are idle, "blocked"
// (an approval waits) is waiting; ok is false for anything else.
func OSCStatus(state string) (s Status, ok bool) {
	switch state {
	case "working":
		return StatusBusy, true
	case "idle", "done":
		return StatusIdle, true
	case "blocked":
		return StatusWaiting, true
	}
	return StatusStarting, false
}

// Deliverable reports whether automation may type into an agent in status s:
// only StatusIdle is. Busy, waiting (Enter would answer the dialog), starting
// and exited are not.
func Deliverable(s Status) bool {
	return s == StatusIdle
}

// Signals is what pool has observed about one agent, the input of DetectStatus.
// The zero value is a live agent that is not ready yet.
type Signals struct {
	// Exited is true once the process has exited.
	Exited bool
	// Ready is true once the CLI showed it is ready (see ReadySettled, BootGraceOver).
	Ready bool
	// Hook is the status the CLI's own hooks last reported; StatusStarting
	// means no hook information.
	Hook Status
	// HookAt is when Hook was reported (for the caller's staleness and stall
	// checks; DetectStatus does not read it).
	HookAt time.Time
	// OSCState is the CLI's own state report from an OSC sequence (Codex's
	// OSC 7501): "working", "idle", "done" (a turn ended: idle), "blocked"
	// (an approval waits: waiting), or "" for none. Other values are ignored.
	OSCState string
	// Title is the window title the CLI set last.
	Title string
	// InSyncFrame is true while the CLI is inside a synchronized-output frame:
	// the screen is half drawn, so screen patterns are not read.
	InSyncFrame bool
	// Screen is the visible text, rows joined by "\n".
	Screen string
	// LastOutput is when the PTY last produced output; zero means never.
	LastOutput time.Time
}

// StatusRules is a profile's description of its CLI's status signals. The
// zero value has no title or screen rules and a QuietAfter quiet window.
type StatusRules struct {
	// TitleBusy: a title whose first non-space rune is in this set means busy.
	TitleBusy string
	// TitleIdle: a title whose first non-space rune is in this set means idle.
	// A rune in both sets means busy.
	TitleIdle string
	// TitleBraille: a title starting with a braille rune (U+2800–U+28FF, the
	// spinner frames) means busy.
	TitleBraille bool
	// Busy, Idle and Waiting are substrings of Signals.Screen; blank patterns
	// never match. Waiting means a dialog waits for a human.
	Busy    []string
	Idle    []string
	Waiting []string
	// Quiet is how long without output means idle; 0 means QuietAfter.
	Quiet time.Duration
}

// DetectStatus judges an agent's status at now from sig and a profile's rules,
// and names the signal that decided (for `office status --explain`). The
// first rule that applies wins:
//
//  1. sig.Exited: StatusExited, "exited".
//  2. !sig.Ready: StatusStarting, "starting".
//  3. a Waiting pattern on the screen: StatusWaiting, "screen: PATTERN".
//     A dialog blocks delivery whatever else says idle.
//  4. a hook report (Hook != StatusStarting): that status, "hook".
//  5. OSCState "working", "idle" or "done", "blocked": busy, idle, idle,
//     waiting, "osc-state".
//  6. the title's first non-space rune (TitleBusy, TitleBraille, then
//     TitleIdle): busy or idle, "title".
//  7. a Busy pattern, then an Idle pattern, on the screen: "screen: PATTERN".
//  8. quiescence: busy, "output" while now.Sub(LastOutput) < Quiet; else
//     idle, "quiescence".
//
// Screen patterns (3 and 7) are skipped while sig.InSyncFrame. So quiescence
// makes an agent idle only when no stronger signal decided.
func DetectStatus(sig Signals, rules StatusRules, now time.Time) (Status, string) {
	if sig.Exited {
		return StatusExited, "exited"
	}
	if !sig.Ready {
		return StatusStarting, "starting"
	}
	if !sig.InSyncFrame {
		if p, ok := findPattern(sig.Screen, rules.Waiting); ok {
			return StatusWaiting, "screen: " + p
		}
	}
	if sig.Hook != StatusStarting {
		return sig.Hook, "hook"
	}
	if s, ok := OSCStatus(sig.OSCState); ok {
		return s, "osc-state"
	}
	if s, ok := titleStatus(sig.Title, rules); ok {
		return s, "title"
	}
	if !sig.InSyncFrame {
		if p, ok := findPattern(sig.Screen, rules.Busy); ok {
			return StatusBusy, "screen: " + p
		}
		if p, ok := findPattern(sig.Screen, rules.Idle); ok {
			return StatusIdle, "screen: " + p
		}
	}
	quiet := rules.Quiet
	if quiet <= 0 {
		quiet = QuietAfter
	}
	if !sig.LastOutput.IsZero() && now.Sub(sig.LastOutput) < quiet {
		return StatusBusy, "output"
	}
	return StatusIdle, "quiescence"
}

// findPattern returns the first non-blank pattern that occurs in screen.
func findPattern(screen string, patterns []string) (string, bool) {
	for _, p := range patterns {
		if p != "" && strings.Contains(screen, p) {
			return p, true
		}
	}
	return "", false
}

// titleStatus applies the title rules to the title's first non-space rune.
func titleStatus(title string, rules StatusRules) (Status, bool) {
	t := strings.TrimSpace(title)
	if t == "" {
		return 0, false
	}
	var first rune
	for _, r := range t {
		first = r
		break
	}
	switch {
	case strings.ContainsRune(rules.TitleBusy, first):
		return StatusBusy, true
	case rules.TitleBraille && first >= 0x2800 && first <= 0x28FF:
		return StatusBusy, true
	case strings.ContainsRune(rules.TitleIdle, first):
		return StatusIdle, true
	}
	return 0, false
}

// StatusDebouncer smooths raw detected statuses asymmetrically: a change to a
// non-deliverable status (busy, waiting, starting, exited) is adopted at once,
// so automation never types into a busy agent; a change to idle is adopted
// only after the raw status has been idle continuously for StatusDebounce.
// The zero value is ready and reports StatusStarting. Not safe for concurrent
// use: one goroutine (or the caller's lock) owns it.
type StatusDebouncer struct {
	current     Status
	idlePending bool      // raw has been idle since idleSince
	idleSince   time.Time // first raw idle of the current idle run
}

// Update feeds the raw status observed at now and returns the debounced one.
func (d *StatusDebouncer) Update(raw Status, now time.Time) Status {
	if raw != StatusIdle {
		d.current = raw
		d.idlePending = false
		return d.current
	}
	if d.current == StatusIdle {
		return d.current
	}
	if !d.idlePending {
		d.idlePending = true
		d.idleSince = now
	}
	if now.Sub(d.idleSince) >= StatusDebounce {
		d.current = StatusIdle
		d.idlePending = false
	}
	return d.current
}

// Current returns the debounced status without feeding a new observation.
func (d *StatusDebouncer) Current() Status {
	return d.current
}
