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
