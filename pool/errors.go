package pool

import (
	"errors"
	"fmt"
)

// ErrExited is returned by Write and Input once the agent's process has exited:
// bytes written into the PTY of a dead child would vanish silently.
var ErrExited = errors.New("pool: agent process has exited")

// ErrClosed is returned by Write and Input after Close.
var ErrClosed = errors.New("pool: terminal closed")

// InputTooLargeError refuses the person's keys (a paste) longer than
// MaxQueuedInput: none of them is typed.
type InputTooLargeError struct {
	Len int
}

// Error says how long the paste was and what the bound is.
func (e *InputTooLargeError) Error() string {
	return fmt.Sprintf("pool: a paste of %d bytes is longer than the %d bytes an agent's input may hold; nothing of it was typed (send a long text as a file)", e.Len, MaxQueuedInput)
}

// SpawnError says which agent could not be started and why.
type SpawnError struct {
	Agent string
	Argv  []string
	Err   error
}

// Error names the agent, the program and the cause.
func (e *SpawnError) Error() string {
	prog := ""
	if len(e.Argv) > 0 {
		prog = e.Argv[0]
	}
	return fmt.Sprintf("pool: start agent %q (%s): %v", e.Agent, prog, e.Err)
}

// Unwrap returns the cause.
func (e *SpawnError) Unwrap() error { return e.Err }

// PartialWriteError is a write that failed after some of its bytes reached
// the PTY (a deadline cut a write into a child that stopped reading): those
// bytes are on the agent's input now.
type PartialWriteError struct {
	Written int
	Err     error
}

// Error says how much was written before the failure.
func (e *PartialWriteError) Error() string {
	return fmt.Sprintf("%v (after %d bytes were written)", e.Err, e.Written)
}

// Unwrap returns the cause.
func (e *PartialWriteError) Unwrap() error { return e.Err }

// Partial reports true: some bytes were written. Callers that must not
// import pool test for it with an interface{ Partial() bool }.
func (e *PartialWriteError) Partial() bool { return true }
