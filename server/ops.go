package server

// ops.go is the server's side of the table of calls (wire/ops.go declares
// each call's name, arguments and answer once): the office registers a
// handler for each call it answers with Register, which refuses a call
// wire does not declare, and the server runs them by name (Ops.Handle;
// a client's calls through Office.Call, client.call). A call's arguments
// travel in Request.Args as JSON.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"office/wire"
)

// Request is one call, as a handler gets it: from a client's wire.Call
// (client.go) or from a command's one call (engine.Call).
type Request struct {
	// Op names the call (wire.Ops).
	Op    string `json:"op"`
	Agent string `json:"agent,omitempty"`
	// Args carries the call's arguments (wire.Ops declares their type).
	Args json.RawMessage `json:"args,omitempty"`
}

// ErrBadInput is what a call's error wraps when the office refused the
// request's input (wire.Reply.Input), so a command can exit 2 for it as
// for the same refusal made locally.
var ErrBadInput = errors.New("bad input")

// Handler answers one call.
type Handler func(ctx context.Context, req Request) (any, error)

// Ops is the table of calls the office answers, by name.
type Ops map[string]Handler

// OpTimeout bounds one call's work (and one pass of the clients' state
// loop, which reads as much).
const OpTimeout = 4 * time.Second

// Register records f as op's handler in ops: the call's arguments decoded
// into A (none for wire.None), its answer of type R (nothing sent for
// wire.None). An op wire does not declare is a programming error: it
// panics, so the first office any test opens says so.
func Register[A, R any](ops Ops, op wire.Op[A, R], f func(ctx context.Context, req Request, args A) (R, error)) {
	if info, ok := wire.LookupOp(op.Name); !ok || info != op.Info() {
		panic(fmt.Sprintf("engine: op %q is not in wire.Ops as declared", op.Name))
	}
	ops[op.Name] = func(ctx context.Context, req Request) (any, error) {
		var args A
		if _, none := any(args).(wire.None); !none {
			if err := DecodeArgs(req, &args); err != nil {
				return nil, err
			}
		}
		r, err := f(ctx, req, args)
		if err != nil {
			return nil, err
		}
		if _, none := any(r).(wire.None); none {
			return nil, nil
		}
		return r, nil
	}
}

// Handle answers one request from the table, within OpTimeout.
func (ops Ops) Handle(req Request) (any, error) {
	op, ok := ops[req.Op]
	if !ok {
		return nil, fmt.Errorf("%w: unknown request %q", ErrBadInput, req.Op)
	}
	ctx, cancel := context.WithTimeout(context.Background(), OpTimeout)
	defer cancel()
	return op(ctx, req)
}

// DecodeArgs decodes req.Args into v (an error wrapping ErrBadInput when
// they are not v's JSON), for a handler that reads them before Register's
// decoding would.
func DecodeArgs(req Request, v any) error {
	if len(req.Args) == 0 {
		return nil
	}
	if err := json.Unmarshal(req.Args, v); err != nil {
		return fmt.Errorf("%s: %w: bad arguments: %w", req.Op, ErrBadInput, err)
	}
	return nil
}

// call runs one call on its own goroutine, at most maxCallsInFlight at once.
func (c *client) call(m wire.Call) {
	select {
	case c.calls <- struct{}{}:
	default:
		c.reply(wire.Reply{ID: m.ID, Error: fmt.Sprintf("too many calls in flight (at most %d)", maxCallsInFlight)})
		return
	}
	go func() {
		defer func() { <-c.calls }()
		data, err := c.s.office.Call(Request{Op: m.Op, Agent: m.Agent, Args: m.Args})
		r := wire.Reply{ID: m.ID}
		if err != nil {
			r.Error = err.Error()
			r.Input, r.Reason = c.s.office.Judge(err)
		} else if data != nil {
			b, mErr := json.Marshal(data)
			if mErr != nil {
				r.Error = mErr.Error()
			} else {
				r.Data = b
			}
		}
		c.reply(r)
	}()
}
