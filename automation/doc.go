// Package automation is office's pure policy: it decides whether automation may
// type into an agent's terminal right now, and why not.
//
// It owns the rules of seed 002 and docs/design.md: the block
// reasons (exited, picker, draft, settling) and their stale windows (30 minutes
// unless the caller's Timing says otherwise),
// the bare interactive-command rule that latches a picker, the keystroke line
// model fed with the person's own input, the prompt-row reading (text office did not
// type is the person's draft), the deliverable-status rule,
// readiness settle times, and status detection from observed signals.
//
// Nothing here does I/O, starts a goroutine or reads a clock: every function
// that depends on time takes "now" as a parameter, so each rule is a table test.
//
// Where each rule lives:
//
//   - types.go: Status, Block and State; limits.go: the seed's fixed numbers.
//   - block.go: IsStale and BlockReason (exited > picker > draft > settling).
//   - picker.go: the bare interactive-command rule (OpensInteractiveUI).
//   - keys.go: how the person's keys and pasted text act on the line model (a table).
//   - line.go: Tracker, the keystroke line model with the picker latch and settling.
//   - prompt.go: reading the prompt row (PromptRowHasText, ReadPromptRow).
//   - status.go: Deliverable, OSCStatus, StatusRules and StatusDebouncer.
//   - judge.go: Judge, the one status judge, and its typed steps.
//   - ready.go: readiness settle times and the boot grace.
//   - timing.go: Timing, the windows an office file may tune (stale, echo
//     grace, picker settle, ready quiet, status debounce), zero meaning the
//     constants.
//   - turn.go: Turn, the turn machine (start at the submitting Enter with its
//     explicit cause, end at busy -> idle or idle 10 s after the Enter).
package automation
