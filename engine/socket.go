package engine

// socket.go is how a command asks the running server one thing: Call (and
// its typed form, Do) connects to the clients' socket, speaks the versioned
// protocol (docs/protocol.md) through the client library asking for no
// screens and no events, runs one call of the op table and hangs up. There
// is no other way in: the unversioned office.sock of earlier builds is gone.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	clientlib "office/client"
	"office/queue"
	"office/server"
	"office/wire"
)

// Request is one call to the engine, as its op table gets it: from a
// client's wire.Call (package server) or from Call.
type Request = server.Request

// ErrBadInput is what an engine call's error wraps when the engine refused
// the request's input (Response.Input), so a command can exit 2 for it as
// for the same refusal made locally.
var ErrBadInput = server.ErrBadInput

// badInputErrors are the sentinels whose errors are the request's fault.
var badInputErrors = []error{ErrBadInput, ErrNameInUse, ErrConfigAgent, queue.ErrUnknownAgent,
	queue.ErrBlank, queue.ErrNotFound, queue.ErrTooLarge, queue.ErrInvalidUTF8, queue.ErrKeyConflict,
	queue.ErrBadKey}

// isBadInput reports whether err is the request's fault.
func isBadInput(err error) bool {
	for _, s := range badInputErrors {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// callError is an engine's error answer as Call returns it: its text, and
// ErrBadInput under it when the engine said it was bad input.
type callError struct {
	msg   string
	input bool
}

func (c *callError) Error() string { return c.msg }

// Is makes a bad-input answer match ErrBadInput.
func (c *callError) Is(target error) bool { return c.input && target == ErrBadInput }

// ErrNoEngine is returned by Call when no engine listens on the state directory.
var ErrNoEngine = errors.New("no office is running on this state directory")

// ErrStopped is returned by Call when the engine holding the state
// directory is a stopped process (SIGSTOP, a debugger): it would answer
// nothing until it runs again, so nothing is asked.
var ErrStopped = errors.New("the office's server process is stopped")

// callTimeout bounds one call, from the dial to the answer (a shorter ctx
// deadline bounds it more): the op itself is bounded by server.OpTimeout, so an
// answer later than this will not come.
const callTimeout = 5 * time.Second

// Call sends req to the engine on stateDir and decodes its answer into out
// (out may be nil). It returns an error wrapping ErrNoEngine when none runs.
//
// A server process that is stopped (SIGSTOP) is not asked: the error wraps
// ErrStopped at once. ctx's deadline or cancellation also ends a call whose
// server accepted the connection but does not answer.
func Call(ctx context.Context, stateDir string, req Request, out any) error {
	if pid := ServerPid(stateDir); pid > 0 && processStopped(pid) {
		return fmt.Errorf("engine: %w: the office on %s (pid %d) answers nothing until it runs again (kill -CONT %d)", ErrStopped, stateDir, pid, pid)
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	path := filepath.Join(stateDir, ClientSocketFile)
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("engine: %w (%s): %v", ErrNoEngine, stateDir, err)
	}
	c, err := clientlib.Dial(ctx, dialed{nc, path}, clientlib.Options{Client: "office " + req.Op})
	if err != nil {
		return fmt.Errorf("engine: %s: %w", req.Op, err)
	}
	defer c.Close()
	var args any
	if len(req.Args) > 0 {
		args = req.Args
	}
	err = c.Call(ctx, req.Op, req.Agent, args, out)
	var ce *clientlib.CallError
	switch {
	case errors.As(err, &ce):
		// The engine's own errors already say "engine: ".
		return &callError{msg: "engine: " + strings.TrimPrefix(ce.Msg, "engine: "), input: ce.Input}
	case err != nil:
		return fmt.Errorf("engine: %s: %w", req.Op, err)
	}
	return nil
}

// Do runs op on the engine on stateDir for agent ("" when the call names
// none) and returns its answer: Call with the call's types from wire.Ops.
func Do[A, R any](ctx context.Context, stateDir string, op wire.Op[A, R], agent string, args A) (R, error) {
	var out R
	req := Request{Op: op.Name, Agent: agent}
	if _, none := any(args).(wire.None); !none {
		b, err := json.Marshal(args)
		if err != nil {
			return out, fmt.Errorf("engine: %s: %w", op.Name, err)
		}
		req.Args = b
	}
	var dst any = &out
	if _, none := any(out).(wire.None); none {
		dst = nil
	}
	err := Call(ctx, stateDir, req, dst)
	return out, err
}

// dialed is a clientlib.Transport over a connection Call already opened (so
// a failed dial is ErrNoEngine, as it always was).
type dialed struct {
	c    net.Conn
	path string
}

func (d dialed) Dial(context.Context) (io.ReadWriteCloser, error) { return d.c, nil }
func (d dialed) String() string                                   { return d.path }

// processStopped reports whether the process pid is stopped (state T or
// t in /proc/PID/stat: SIGSTOP, a job-control stop, a tracer).
func processStopped(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "PID (COMM) STATE ...": COMM may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'T' || b[i+2] == 't'
}

// Listening reports whether an engine listens on stateDir's socket: a dial
// succeeds (the engine opens its socket only once its agents are
// registered). It asks nothing, so a busy or stopped engine still counts.
func Listening(ctx context.Context, stateDir string) bool {
	d := net.Dialer{Timeout: callTimeout}
	conn, err := d.DialContext(ctx, "unix", filepath.Join(stateDir, ClientSocketFile))
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// Poke tells the engine on stateDir that the store changed. It is best effort:
// with no engine running it does nothing (the store is the truth; the engine
// reads it when it starts).
func Poke(stateDir string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = Do(ctx, stateDir, wire.OpPoke, "", wire.None{})
}
