package automation

import "time"

// Timing holds the windows of the block rule, the line model, readiness and
// the status debouncer that an office file may tune (its settings stale,
// echo_grace, picker_settle, ready_quiet, status_debounce, hook_stale,
// hook_waiting_stale and turn_grace). A zero field means its constant, so
// the zero Timing is the seed's rules. The caller passes it in:
// Tracker.Timing (echo grace, picker settle, and the stale window it puts in
// State.Stale), Boot.ReadyQuiet, StatusDebouncer.After, Inputs.HookStale,
// Inputs.HookWaitingStale and Turn.Grace take its fields.
type Timing struct {
	// Stale is how long an inferred draft or picker block lasts; 0 means
	// StaleAfter.
	Stale time.Duration
	// EchoGrace is how long after a keystroke the screen is no evidence
	// about the draft; 0 means EchoGrace.
	EchoGrace time.Duration
	// PickerSettle is the settling block after a picker is released; 0
	// means PickerCloseSettle.
	PickerSettle time.Duration
	// ReadyQuiet is the quiet after the first output that makes a profile
	// without ready markers ready; 0 means CustomReadyQuiet.
	ReadyQuiet time.Duration
	// StatusDebounce is how long a raw idle must last before the debounced
	// status says idle; 0 means StatusDebounce.
	StatusDebounce time.Duration
	// HookStale is how long the title may contradict a busy or idle hook
	// report before the report no longer counts; 0 means HookStaleAfter.
	HookStale time.Duration
	// HookWaitingStale is the same for a waiting report; 0 means
	// HookWaitingStaleAfter.
	HookWaitingStale time.Duration
	// TurnGrace is how long after a submitting Enter a turn that has not
	// shown busy stays open (and the person's turn holds busy); 0 means
	// TurnGrace.
	TurnGrace time.Duration
}

// orDefault returns d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
