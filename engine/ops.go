package engine

// ops.go is the table of calls the engine answers on its socket. Each
// feature registers its calls in registerOps; a call's arguments travel in
// Request.Args as JSON.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"office/queue"
)

// opFunc answers one call.
type opFunc func(ctx context.Context, req Request) (any, error)

// opTimeout bounds one call's work.
const opTimeout = 4 * time.Second

// registerOps fills the table of socket calls.
func (e *Engine) registerOps() {
	e.ops = map[string]opFunc{
		"poke":   e.opPoke,
		"status": e.opStatus,
	}
	e.registerInboxOps()
	e.registerTeamOps()
	e.registerHookOps()
	e.registerServerOps()
	e.registerHistoryOps()
}

// handle answers one socket request from the table.
func (e *Engine) handle(req Request) (any, error) {
	op, ok := e.ops[req.Op]
	if !ok {
		return nil, fmt.Errorf("%w: unknown request %q", ErrBadInput, req.Op)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if s := e.srv.Load(); s != nil {
		// A request may have changed the store (a message, a pause, mail):
		// clients hear of it now, not at the state loop's next tick.
		defer s.poke()
	}
	return op(ctx, req)
}

// decodeArgs decodes req.Args into v.
func decodeArgs(req Request, v any) error {
	if len(req.Args) == 0 {
		return nil
	}
	if err := json.Unmarshal(req.Args, v); err != nil {
		return fmt.Errorf("%s: %w: bad arguments: %w", req.Op, ErrBadInput, err)
	}
	return nil
}

func (e *Engine) opPoke(context.Context, Request) (any, error) {
	e.drain.Wake()
	return nil, nil
}

// opStatus is "status": every agent of the floor (FloorStatus), or the
// one req.Agent names.
func (e *Engine) opStatus(ctx context.Context, req Request) (any, error) {
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
