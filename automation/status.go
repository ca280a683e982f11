package automation

// Status detection and deliverability (docs/design.md §4): which status an
// agent is in, judged from the signals pool observes, and which signal decided.

import "time"

const (
	// QuietAfter is how long without output makes a busy agent idle when no
	// stronger signal decides (docs/design.md §4: 12 s quiet means idle).
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
	// Busy, Idle and Waiting are texts on Inputs.Screen (ScreenHas); blank
	// patterns never match. Waiting means a dialog waits for a human.
	Busy    []string
	Idle    []string
	Waiting []string
	// Quiet is how long without output means idle; 0 means QuietAfter.
	Quiet time.Duration
	// Limits are the usage-limit patterns (the limit menu is read as a
	// dialog; the banners and API errors are read by the caller).
	Limits LimitRules
}

// StatusDebouncer smooths raw detected statuses asymmetrically: a change to a
// non-deliverable status (busy, waiting, starting, exited) is adopted at once,
// so automation never types into a busy agent; a change to idle is adopted
// only after the raw status has been idle continuously for After
// (StatusDebounce unless set). The zero value is ready and reports
// StatusStarting. Not safe for concurrent use: one goroutine (or the
// caller's lock) owns it.
type StatusDebouncer struct {
	// After is how long a raw idle must last (Timing.StatusDebounce, the
	// office file's status_debounce); 0 means StatusDebounce.
	After time.Duration

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
	if now.Sub(d.idleSince) >= orDefault(d.After, StatusDebounce) {
		d.current = StatusIdle
		d.idlePending = false
	}
	return d.current
}

// Current returns the debounced status without feeding a new observation.
func (d *StatusDebouncer) Current() Status {
	return d.current
}

// Pending reports when the debouncer will adopt idle if the raw status stays
// idle until then; ok is false when no change to idle is pending.
func (d *StatusDebouncer) Pending() (at time.Time, ok bool) {
	if !d.idlePending {
		return time.Time{}, false
	}
	return d.idleSince.Add(orDefault(d.After, StatusDebounce)), true
}
