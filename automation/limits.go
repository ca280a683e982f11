package automation

import "time"

// Numbers from seed 002 (munder-difflin's terminalAutomation.ts and
// terminalPool.ts), each named once. They are defaults the office file may
// change: stale, echo_grace and picker_settle through Timing,
// recover_settle through pool.
const (
	// StaleAfter is how long a draft or picker block lasts after the last
	// keystroke or latch (STALE_INPUT_MS = STALE_PICKER_MS = 1_800_000).
	StaleAfter = 30 * time.Minute
	// EchoGrace is how long after a keystroke the screen is no evidence about
	// the draft, because the PTY echo may not have arrived (ECHO_GRACE_MS).
	EchoGrace = time.Second
	// PickerCloseSettle is the settling block after a picker is released
	// (by Enter, a lone Esc or a lone Ctrl-C).
	PickerCloseSettle = 500 * time.Millisecond
	// RecoverPromptSettle is the settling block after the person asks office to
	// clear their prompt with Ctrl-U ("recover prompt" in the composer).
	RecoverPromptSettle = 300 * time.Millisecond
)
