package engine

// ops.go is the engine's side of the table of calls (wire/ops.go declares
// each call's name, arguments and answer once; server.Ops runs them). Each
// feature registers its handlers in registerOps through register, which
// refuses a call wire does not declare; a call's arguments travel in
// Request.Args as JSON.

import (
	"context"
	"fmt"

	"office/queue"
	"office/server"
	"office/wire"
)

// registerOps fills the table of socket calls.
func (e *Engine) registerOps() {
	e.serve.ops = server.Ops{}
	register(e, wire.OpPoke, e.opPoke)
	register(e, wire.OpStatus, e.opStatus)
	e.registerInboxOps()
	e.registerTeamOps()
	e.registerHookOps()
	e.registerServerOps()
	e.registerHistoryOps()
	e.registerMailOps()
}

// register records f as op's handler in e's table (server.Register: it
// panics for an op wire does not declare).
func register[A, R any](e *Engine, op wire.Op[A, R], f func(ctx context.Context, req Request, args A) (R, error)) {
	server.Register(e.serve.ops, op, f)
}

// handle answers one call from the table (within server.OpTimeout); a call
// the table has wakes the clients after it (wakeCall).
func (e *Engine) handle(req Request) (any, error) {
	if _, ok := e.serve.ops[req.Op]; ok {
		// A request may have changed the store (a message, a pause, mail):
		// clients hear of it now, not at the state loop's next tick.
		defer e.wake(wakeCall)
	}
	return e.serve.ops.Handle(req)
}

// opPoke is "poke": another process changed the store (wake.go says what
// that wakes).
func (e *Engine) opPoke(context.Context, Request, wire.None) (wire.None, error) {
	e.wake(wakePoke)
	return wire.None{}, nil
}

// opStatus is "status": every agent of the floor (FloorStatus), or the
// one req.Agent names.
func (e *Engine) opStatus(ctx context.Context, req Request, _ wire.None) ([]AgentStatus, error) {
	all, err := e.FloorStatus(ctx)
	if err != nil {
		return nil, err
	}
	if req.Agent == "" {
		return all, nil
	}
	for _, s := range all {
		if s.Name == req.Agent {
			return []AgentStatus{s}, nil
		}
	}
	return nil, fmt.Errorf("%w %q", queue.ErrUnknownAgent, req.Agent)
}
