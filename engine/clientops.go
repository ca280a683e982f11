package engine

// clientops.go holds the calls a client needs besides the short ops: stop
// the office, the queue as data and its intents, the composer's buttons
// (close picker, recover prompt), restart an agent (restart.go does it),
// a message's fate (for `office wait --until delivered:ID`) and the
// needs-you list. They are in the engine's op table (ops.go), which the
// server (package server) runs for clients and commands alike.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"office/drain"
	"office/inbox"
	"office/queue"
	"office/wire"
)

// registerServerOps adds the clients' calls to the op table.
func (e *Engine) registerServerOps() {
	register(e, wire.OpStop, e.opStop)
	register(e, wire.OpQueueList, e.opQueueList)
	register(e, wire.OpEnqueue, e.opEnqueue)
	register(e, wire.OpQueueRelease, e.opQueueEdit)
	register(e, wire.OpQueueRemove, e.opQueueEdit)
	register(e, wire.OpQueueClear, e.opQueueClear)
	register(e, wire.OpPause, e.opPause)
	register(e, wire.OpResume, e.opPause)
	register(e, wire.OpLimitRelease, e.opLimitRelease)
	register(e, wire.OpFloor, e.opFloor)
	register(e, wire.OpPickerClose, e.opClosePicker)
	register(e, wire.OpPromptRecover, e.opRecoverPrompt)
	register(e, wire.OpRestart, e.opRestart)
	register(e, wire.OpMessage, e.opMessage)
	register(e, wire.OpNeeds, e.opNeeds)
}

func (e *Engine) opStop(context.Context, Request, wire.None) (wire.None, error) {
	s := e.serve.srv.Load()
	if s == nil {
		return wire.None{}, errors.New("this office cannot be stopped from outside")
	}
	e.log.Info("stop requested by a client")
	s.RequestStop()
	return wire.None{}, nil
}

func (e *Engine) opQueueList(ctx context.Context, req Request, args wire.QueueListArgs) ([]wire.QueuedMessage, error) {
	if args.Agent == "" {
		args.Agent = req.Agent
	}
	msgs, labels, err := QueueListing(ctx, e.store, args.Agent, e.Holds(), true)
	if err != nil {
		return nil, err
	}
	return queuedMessages(msgs, labels), nil
}

func (e *Engine) opEnqueue(ctx context.Context, req Request, args wire.EnqueueArgs) (wire.EnqueueResult, error) {
	if args.Agent == "" {
		args.Agent = req.Agent
	}
	if args.Source == "" {
		args.Source = "client"
	}
	if slices.Contains(reservedSources, args.Source) {
		return wire.EnqueueResult{}, fmt.Errorf("enqueue for %q: source %q is office's own (a client's enqueue may not claim it): %w", args.Agent, args.Source, ErrBadInput)
	}
	id, err := Enqueue(ctx, e.store, args.Agent, args.Text, queue.EnqueueOptions{Source: args.Source})
	var dup *queue.DuplicateError
	if errors.As(err, &dup) {
		return wire.EnqueueResult{ID: dup.ExistingID, Duplicate: true}, nil
	}
	if err != nil {
		return wire.EnqueueResult{}, fmt.Errorf("enqueue for %q: %w", args.Agent, err)
	}
	e.wake(wakeQueue)
	return wire.EnqueueResult{ID: id}, nil
}

func (e *Engine) opQueueEdit(ctx context.Context, req Request, args wire.IDArgs) (wire.None, error) {
	var err error
	if req.Op == wire.OpQueueRelease.Name {
		err = e.store.Release(ctx, args.ID)
	} else {
		var svc *inbox.Service
		if e.inbox != nil {
			svc = e.inbox.svc
		}
		_, err = RemoveQueued(ctx, e.store, svc, args.ID)
	}
	if err != nil {
		return wire.None{}, fmt.Errorf("%s %d: %w", req.Op, args.ID, err)
	}
	e.wake(wakeQueue)
	return wire.None{}, nil
}

func (e *Engine) opQueueClear(ctx context.Context, req Request, _ wire.None) (wire.ClearResult, error) {
	_, n, err := ClearQueue(ctx, e.store, req.Agent)
	if errors.Is(err, queue.ErrUnknownAgent) {
		return wire.ClearResult{}, fmt.Errorf("queue.clear: %w", err)
	}
	if err != nil {
		return wire.ClearResult{}, fmt.Errorf("queue.clear %s: %w", req.Agent, err)
	}
	e.wake(wakeQueue)
	return wire.ClearResult{Cleared: n}, nil
}

// opPause is "pause" and "resume": of req.Agent, or of the floor when it is
// "" ("resume" with no agent clears the floor flag and every agent's).
func (e *Engine) opPause(ctx context.Context, req Request, _ wire.None) (wire.None, error) {
	if err := SetPause(ctx, e.store, req.Agent, req.Op == wire.OpPause.Name); err != nil {
		return wire.None{}, fmt.Errorf("%s %s: %w", req.Op, req.Agent, err)
	}
	e.wake(wakeQueue)
	return wire.None{}, nil
}

// opFloor sets the floor-wide pause flag alone (agents' own flags stay).
func (e *Engine) opFloor(ctx context.Context, _ Request, args wire.FloorArgs) (wire.None, error) {
	if err := e.store.SetFloorPaused(ctx, args.Paused); err != nil {
		return wire.None{}, fmt.Errorf("floor: %w", err)
	}
	e.wake(wakeQueue)
	return wire.None{}, nil
}

// liveAgent returns the named agent when its process runs.
func (e *Engine) liveAgent(name string) (*Agent, error) {
	a, ok := e.Agent(name)
	if !ok {
		return nil, fmt.Errorf("%w %q", queue.ErrUnknownAgent, name)
	}
	if a.Term == nil {
		return nil, fmt.Errorf("agent %q is not running", name)
	}
	return a, nil
}

func (e *Engine) opClosePicker(ctx context.Context, req Request, _ wire.None) (wire.None, error) {
	a, err := e.liveAgent(req.Agent)
	if err != nil {
		return wire.None{}, err
	}
	return wire.None{}, a.Term.ClosePicker(ctx)
}

func (e *Engine) opRecoverPrompt(ctx context.Context, req Request, _ wire.None) (wire.RecoverResult, error) {
	a, err := e.liveAgent(req.Agent)
	if err != nil {
		return wire.RecoverResult{}, err
	}
	text, err := a.Term.RecoverPrompt(ctx)
	if err != nil {
		return wire.RecoverResult{}, err
	}
	return wire.RecoverResult{Text: text}, nil
}

func (e *Engine) opRestart(_ context.Context, req Request, _ wire.None) (wire.None, error) {
	return wire.None{}, e.RestartAgent(req.Agent)
}

func (e *Engine) opMessage(ctx context.Context, _ Request, args wire.IDArgs) (wire.MessageFate, error) {
	return e.messageFate(ctx, args.ID)
}

// messageFate reads a message's fate from the queue and the event log.
func (e *Engine) messageFate(ctx context.Context, id int64) (wire.MessageFate, error) {
	f := wire.MessageFate{ID: id}
	m, err := e.store.Get(ctx, id)
	if err == nil {
		f.State, f.Agent = wire.FateQueued, m.Agent
		return f, nil
	}
	if !errors.Is(err, queue.ErrNotFound) {
		return f, err
	}
	var kind, state string
	var at int64
	err = e.store.DB().QueryRowContext(ctx,
		`SELECT seq, at, agent, kind, detail, state FROM events WHERE msg_id = ? AND kind IN (?, ?, ?, ?) ORDER BY seq DESC LIMIT 1`,
		id, queue.EventDelivered, queue.EventDropped, queue.EventRemoved, queue.EventCleared).Scan(&f.Seq, &at, &f.Agent, &kind, &f.Detail, &state)
	if errors.Is(err, sql.ErrNoRows) {
		f.State = wire.FateUnknown
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("message %d: %w", id, err)
	}
	f.State = storeEvent(queue.Event{Seq: f.Seq, Agent: f.Agent, MsgID: id, Kind: kind, Detail: f.Detail, State: state}).State
	if kind == queue.EventRemoved || kind == queue.EventCleared {
		f.State = wire.FateRemoved
	}
	return f, nil
}

// storeEvent turns one entry of the store's log into a stream event. The
// states come from the row's typed state (queue.Event.State), never from
// its detail's words, but in rows written before the store kept one
// (legacyDeliveryVerified, legacyMailState).
func storeEvent(row queue.Event) wire.Event {
	kind, detail := row.Kind, row.Detail
	ev := wire.Event{Seq: row.Seq, At: row.At, Agent: row.Agent, MsgID: row.MsgID, Kind: kind, Detail: detail}
	switch kind {
	case queue.EventAttempt:
		ev.Type, ev.State = wire.EventDelivery, wire.DeliveryTyping
	case queue.EventDelivered:
		ev.Type, ev.State = wire.EventDelivery, wire.DeliverySubmitted
		verified := row.State == queue.StateConfirmed
		if row.State == "" {
			verified = legacyDeliveryVerified(detail)
		}
		if verified {
			ev.State = wire.DeliveryVerified
		}
	case queue.EventHanded:
		ev.Type, ev.State, ev.Channel = wire.EventDelivery, wire.DeliveryHanded, detail
	case queue.EventAttemptFailed:
		ev.Type, ev.State = wire.EventDelivery, wire.DeliveryFailed
	case queue.EventDropped:
		ev.Type, ev.State = wire.EventDelivery, wire.DeliveryDropped
		if detail == string(drain.DropTypedNotSubmitted) {
			ev.State = wire.DeliveryNotSubmitted
		}
	case queue.EventInterrupted:
		ev.Type, ev.State = wire.EventDelivery, wire.DeliveryHeld
	case queue.EventEnqueued, queue.EventReleased, queue.EventRemoved, queue.EventCleared,
		queue.EventPaused, queue.EventResumed, queue.EventAttemptAbandoned:
		ev.Type = wire.EventQueue
	case queue.EventAgentAdded, queue.EventAgentRemoved:
		ev.Type = wire.EventAgent
	case inbox.EventMailState:
		ev.Type, ev.State = wire.EventMail, row.State
		if row.State == "" {
			ev.State = legacyMailState(detail)
		}
	case inbox.EventInboxSent:
		ev.Type = wire.EventStore
		// Its parts as fields (what a notice shows); Text the whole
		// detail when its shape is not the one inbox writes.
		var ok bool
		ev.Item, _, ev.From, ev.Text, ok = inbox.SentDetail(detail)
		if !ok {
			ev.From, ev.Text = "", detail
		}
	default:
		ev.Type = wire.EventStore
	}
	return ev
}

// legacyDeliveryVerified is the state of a "delivered" row written before
// the store kept an event's state (queue schema 8): its detail, the drain's
// note, began "verified" or "received" when the screen or the CLI's records
// showed the submit. The one place a delivery's words are read; rows
// written since carry queue.StateConfirmed or StateUnconfirmed.
func legacyDeliveryVerified(detail string) bool {
	return strings.HasPrefix(detail, "verified") || strings.HasPrefix(detail, "received")
}

// legacyMailState is the new state of a "mail_state" row written before
// the store kept an event's state (queue schema 8), from its detail "mail
// ID FROM -> TO (REASON)"; "" when the detail has another shape. Rows
// written since carry the state itself.
func legacyMailState(detail string) string {
	_, to, ok := strings.Cut(detail, "-> ")
	if !ok {
		return ""
	}
	state, _, _ := strings.Cut(to, " ")
	return state
}

// opNeeds is the "needs" call: the list, of one agent when one is named.
func (e *Engine) opNeeds(ctx context.Context, req Request, _ wire.None) ([]wire.Need, error) {
	needs, err := e.Needs(ctx)
	if err != nil {
		return nil, err
	}
	if req.Agent == "" {
		return needs, nil
	}
	if _, ok := e.Agent(req.Agent); !ok {
		return nil, fmt.Errorf("%w %q", queue.ErrUnknownAgent, req.Agent)
	}
	out := []wire.Need{}
	for _, n := range needs {
		if n.Agent == req.Agent {
			out = append(out, n)
		}
	}
	return out, nil
}
