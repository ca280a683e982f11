package engine

// socket.go is the engine's control socket: one JSON request per line, one
// JSON response per line, on a Unix socket in the state directory (mode 0600,
// never TCP).

import (
	"bufio"
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

	"office/queue"
)

// Request is one call to the engine.
type Request struct {
	// Op names the call: "poke" (the store changed), "status", "explain"
	// (what decided each status), "hook" (a CLI hook's report), and the
	// inbox and team calls (engine/inbox.go, engine/team.go).
	Op    string `json:"op"`
	Agent string `json:"agent,omitempty"`
	Event string `json:"event,omitempty"`
	// Args carries the call's other arguments (see the call's handler).
	Args json.RawMessage `json:"args,omitempty"`
}

// Response answers one Request: Error is set on failure, else Data holds the
// call's result (JSON).
type Response struct {
	Error string `json:"error,omitempty"`
	// Input marks an Error that is the request's fault (bad input: an
	// unknown agent, a name in use, a malformed argument); nothing was
	// changed. Call returns such an error wrapping ErrBadInput.
	Input bool            `json:"input,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
}

// ErrBadInput is what an engine call's error wraps when the engine refused
// the request's input (Response.Input), so a command can exit 2 for it as
// for the same refusal made locally.
var ErrBadInput = errors.New("bad input")

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

// callTimeout bounds one socket call.
const callTimeout = 5 * time.Second

// maxRequest bounds the bytes of one socket request read: the largest
// request is a body of queue.MaxBody (1 MiB), which JSON may write at up to
// six bytes a byte (\u00XX for a control character), so 8 MiB holds any
// valid request and nothing from outside is read unbounded.
const maxRequest = 8 << 20

// Call sends req to the engine on stateDir and decodes its answer into out
// (out may be nil). It returns an error wrapping ErrNoEngine when none runs.
func Call(ctx context.Context, stateDir string, req Request, out any) error {
	path := filepath.Join(stateDir, SocketFile)
	d := net.Dialer{Timeout: callTimeout}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("engine: %w (%s): %v", ErrNoEngine, stateDir, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(callTimeout))
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return fmt.Errorf("engine: send %s: %w", req.Op, err)
	}
	var resp Response
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&resp); err != nil {
		return fmt.Errorf("engine: read answer to %s: %w", req.Op, err)
	}
	if resp.Error != "" {
		// The engine's own errors already say "engine: ".
		return &callError{msg: "engine: " + strings.TrimPrefix(resp.Error, "engine: "), input: resp.Input}
	}
	if out != nil && len(resp.Data) > 0 {
		if err := json.Unmarshal(resp.Data, out); err != nil {
			return fmt.Errorf("engine: decode answer to %s: %w", req.Op, err)
		}
	}
	return nil
}

// Listening reports whether an engine listens on stateDir's socket: a dial
// succeeds (the engine opens its socket only once its agents are
// registered). It asks nothing, so a busy or stopped engine still counts.
func Listening(ctx context.Context, stateDir string) bool {
	d := net.Dialer{Timeout: callTimeout}
	conn, err := d.DialContext(ctx, "unix", filepath.Join(stateDir, SocketFile))
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
	_ = Call(ctx, stateDir, Request{Op: "poke"}, nil)
}

// listen opens the socket, replacing a stale one (we hold the engine lock, so
// nobody else serves it), and returns the identity of its file.
func listen(stateDir string) (net.Listener, socketID, error) {
	return listenAt(filepath.Join(stateDir, SocketFile))
}

// listenAt listens on a fresh 0600 Unix socket at path (whatever was there
// is removed first) and returns the listener with the socket's identity.
func listenAt(path string) (net.Listener, socketID, error) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, socketID{}, fmt.Errorf("engine: listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, socketID{}, fmt.Errorf("engine: chmod %s: %w", path, err)
	}
	id, ok := statSocket(path)
	if !ok {
		ln.Close()
		return nil, socketID{}, fmt.Errorf("engine: listen on %s: the socket file vanished at once", path)
	}
	return ln, id, nil
}

// serve answers connections until ln is closed.
func serve(ln net.Listener, handle func(Request) (any, error)) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func(c net.Conn) {
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(callTimeout))
			if err := CheckPeer(c, os.Getuid()); err != nil { // engine/server.go
				_ = json.NewEncoder(c).Encode(Response{Error: err.Error()})
				return
			}
			var req Request
			if err := json.NewDecoder(bufio.NewReader(io.LimitReader(c, maxRequest))).Decode(&req); err != nil {
				_ = json.NewEncoder(c).Encode(Response{Error: "bad request: " + err.Error(), Input: true})
				return
			}
			data, err := handle(req)
			var resp Response
			if err != nil {
				resp.Error, resp.Input = err.Error(), isBadInput(err)
			} else if data != nil {
				b, mErr := json.Marshal(data)
				if mErr != nil {
					resp.Error = mErr.Error()
				} else {
					resp.Data = b
				}
			}
			_ = json.NewEncoder(c).Encode(resp)
		}(conn)
	}
}
