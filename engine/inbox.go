package engine

// inbox.go wires the inbox and mail layer into the engine: it wraps the store
// the drain uses (so an inbox delivery is rendered and its items leased in the
// attempt's transaction, and acknowledged with the delivery), supplies the
// drain's preconditions, reacts to turn ends and exits, and runs the inbox's
// timers. (Filled in by the inbox layer; until then it is the plain store.)

import (
	"context"

	"office/drain"
	"office/pool"
)

// initInbox returns the store and preconditions the drain uses.
func (e *Engine) initInbox() (drain.Store, drain.Preconditions, error) {
	return e.store, nil, nil
}

// inboxEvent sees every terminal event (turn ends, exits, status changes).
// It must not block.
func (e *Engine) inboxEvent(ev pool.Event) {}

// runInbox runs the inbox's timers until ctx ends.
func (e *Engine) runInbox(ctx context.Context) {}

// registerInboxOps adds the inbox's socket calls.
func (e *Engine) registerInboxOps() {}
