package engine

// server_ops.go holds the calls a client needs besides the short ops: stop
// the office, the queue as data and its intents, the composer's buttons
// (close picker, recover prompt), restart an agent, and a message's fate (for
// `office wait --until delivered:ID`). They are in the engine's op table, so
// the control socket answers them too.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"office/drain"
	"office/pool"
	"office/queue"
	"office/wire"
)

// registerServerOps adds the clients' calls to the op table.
func (e *Engine) registerServerOps() {
	e.ops["stop"] = e.opStop
	e.ops["queue.list"] = e.opQueueList
	e.ops["enqueue"] = e.opEnqueue
	e.ops["queue.release"] = e.opQueueEdit
	e.ops["queue.rm"] = e.opQueueEdit
	e.ops["queue.clear"] = e.opQueueClear
	e.ops["pause"] = e.opPause
	e.ops["resume"] = e.opPause
	e.ops["floor"] = e.opFloor
	e.ops["picker.close"] = e.opClosePicker
	e.ops["prompt.recover"] = e.opRecoverPrompt
	e.ops["restart"] = e.opRestart
	e.ops["message"] = e.opMessage
}

func (e *Engine) opStop(context.Context, Request) (any, error) {
	s := e.srv.Load()
	if s == nil {
		return nil, errors.New("this office cannot be stopped from outside")
	}
	e.log.Info("stop requested by a client")
	s.requestStop()
	return nil, nil
}

// queueListArgs are "queue.list"'s arguments; Agent "" lists every agent.
type queueListArgs struct {
	Agent string `json:"agent,omitempty"`
}

func (e *Engine) opQueueList(ctx context.Context, req Request) (any, error) {
	var args queueListArgs
	if err := decodeArgs(req, &args); err != nil {
		return nil, err
	}
	if args.Agent == "" {
		args.Agent = req.Agent
	}
	msgs, err := e.store.List(ctx, args.Agent)
	if err != nil {
		return nil, err
	}
	floor, err := e.store.FloorPaused(ctx)
	if err != nil {
		return nil, err
	}
	paused, err := e.store.PausedAgents(ctx)
	if err != nil {
		return nil, err
	}
	st := QueueState{Running: true, Holds: e.Holds(), FloorPaused: floor, Paused: map[string]bool{}}
	for _, p := range paused {
		st.Paused[p] = true
	}
	labels := QueueLabels(msgs, st)
	out := make([]wire.QueuedMessage, 0, len(msgs))
	for i, m := range msgs {
		out = append(out, wire.QueuedMessage{ID: m.ID, Agent: m.Agent, Text: m.Text, Created: m.Created, Attempts: m.Attempts,
			LastError: m.LastError, Manual: m.Manual, Held: labels[i]})
	}
	return out, nil
}

// enqueueArgs are "enqueue"'s arguments.
type enqueueArgs struct {
	Agent  string `json:"agent"`
	Text   string `json:"text"`
	Source string `json:"source,omitempty"`
}

func (e *Engine) opEnqueue(ctx context.Context, req Request) (any, error) {
	var args enqueueArgs
	if err := decodeArgs(req, &args); err != nil {
		return nil, err
	}
	if args.Agent == "" {
		args.Agent = req.Agent
	}
	if args.Source == "" {
		args.Source = "client"
	}
	id, err := e.store.Enqueue(ctx, args.Agent, args.Text, queue.EnqueueOptions{Source: args.Source})
	var dup *queue.DuplicateError
	if errors.As(err, &dup) {
		return wire.EnqueueResult{ID: dup.ExistingID, Duplicate: true}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("enqueue for %q: %w", args.Agent, err)
	}
	e.drain.Wake()
	return wire.EnqueueResult{ID: id}, nil
}

// idArgs name one queue message.
type idArgs struct {
	ID int64 `json:"id"`
}

func (e *Engine) opQueueEdit(ctx context.Context, req Request) (any, error) {
	var args idArgs
	if err := decodeArgs(req, &args); err != nil {
		return nil, err
	}
	var err error
	if req.Op == "queue.release" {
		err = e.store.Release(ctx, args.ID)
	} else {
		err = e.store.Remove(ctx, args.ID, "removed by the person")
	}
	if err != nil {
		return nil, fmt.Errorf("%s %d: %w", req.Op, args.ID, err)
	}
	e.drain.Wake()
	return nil, nil
}

func (e *Engine) opQueueClear(ctx context.Context, req Request) (any, error) {
	if _, err := e.store.Agent(ctx, req.Agent); err != nil {
		return nil, fmt.Errorf("queue.clear: %w", err)
	}
	n, err := e.store.Clear(ctx, req.Agent)
	if err != nil {
		return nil, fmt.Errorf("queue.clear %s: %w", req.Agent, err)
	}
	e.drain.Wake()
	return map[string]int{"cleared": n}, nil
}

// opPause is "pause" and "resume": of req.Agent, or of the floor when it is
// "" ("resume" with no agent clears the floor flag and every agent's).
func (e *Engine) opPause(ctx context.Context, req Request) (any, error) {
	paused := req.Op == "pause"
	var err error
	switch {
	case req.Agent == "" && paused:
		err = e.store.SetFloorPaused(ctx, true)
	case req.Agent == "":
		err = e.store.ResumeAll(ctx)
	default:
		err = e.store.SetPaused(ctx, req.Agent, paused)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Op, req.Agent, err)
	}
	e.drain.Wake()
	return nil, nil
}

// floorArgs are "floor"'s arguments.
type floorArgs struct {
	Paused bool `json:"paused"`
}

// opFloor sets the floor-wide pause flag alone (agents' own flags stay).
func (e *Engine) opFloor(ctx context.Context, req Request) (any, error) {
	var args floorArgs
	if err := decodeArgs(req, &args); err != nil {
		return nil, err
	}
	if err := e.store.SetFloorPaused(ctx, args.Paused); err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	e.drain.Wake()
	return nil, nil
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

func (e *Engine) opClosePicker(ctx context.Context, req Request) (any, error) {
	a, err := e.liveAgent(req.Agent)
	if err != nil {
		return nil, err
	}
	return nil, a.Term.ClosePicker(ctx)
}

func (e *Engine) opRecoverPrompt(ctx context.Context, req Request) (any, error) {
	a, err := e.liveAgent(req.Agent)
	if err != nil {
		return nil, err
	}
	text, err := a.Term.RecoverPrompt(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]string{"text": text}, nil
}

func (e *Engine) opRestart(_ context.Context, req Request) (any, error) {
	return nil, e.RestartAgent(req.Agent)
}

// RestartAgent stops the named agent's process (if it still runs) and
// starts it again as a new terminal, resuming its conversation as a start of
// the office does.
func (e *Engine) RestartAgent(name string) error {
	e.mu.Lock()
	a, ok := e.byName[name]
	if e.closing {
		e.mu.Unlock()
		return ErrServerStopping
	}
	if !ok {
		e.mu.Unlock()
		return fmt.Errorf("restart: %w %q", queue.ErrUnknownAgent, name)
	}
	e.restarting.Add(1)
	e.mu.Unlock()
	defer e.restarting.Done()
	old := a.Term
	if old != nil {
		e.mu.Lock()
		if e.exitSeen == nil {
			e.exitSeen = map[*pool.Terminal]bool{}
		}
		e.exitSeen[old] = true // this exit is ours: no policy restart
		e.mu.Unlock()
		old.Close()
	}
	fresh := &Agent{Config: a.Config, Profile: a.Profile}
	e.spawn(fresh)
	e.mu.Lock()
	cur, ok := e.byName[name]
	if e.closing || !ok || cur != a {
		e.mu.Unlock()
		if fresh.Term != nil {
			fresh.Term.Close()
		}
		return fmt.Errorf("restart %q: the agent changed meanwhile", name)
	}
	e.byName[name] = fresh
	for i, x := range e.agents {
		if x == a {
			e.agents[i] = fresh
		}
	}
	delete(e.exitSeen, old)
	e.mu.Unlock()
	e.log.Info("agent restarted by a client", "agent", name)
	e.checkExitedEarly(fresh)
	e.drain.Wake()
	if s := e.srv.Load(); s != nil {
		s.poke()
	}
	return nil
}

func (e *Engine) opMessage(ctx context.Context, req Request) (any, error) {
	var args idArgs
	if err := decodeArgs(req, &args); err != nil {
		return nil, err
	}
	return e.messageFate(ctx, args.ID)
}

// messageFate reads a message's fate from the queue and the event log.
func (e *Engine) messageFate(ctx context.Context, id int64) (wire.MessageFate, error) {
	f := wire.MessageFate{ID: id}
	m, err := e.store.Get(ctx, id)
	if err == nil {
		f.State, f.Agent = "queued", m.Agent
		return f, nil
	}
	if !errors.Is(err, queue.ErrNotFound) {
		return f, err
	}
	var kind string
	var at int64
	err = e.store.DB().QueryRowContext(ctx,
		`SELECT seq, at, agent, kind, detail FROM events WHERE msg_id = ? AND kind IN (?, ?, ?) ORDER BY seq DESC LIMIT 1`,
		id, queue.EventDelivered, queue.EventDropped, queue.EventRemoved).Scan(&f.Seq, &at, &f.Agent, &kind, &f.Detail)
	if errors.Is(err, sql.ErrNoRows) {
		f.State = "unknown"
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("message %d: %w", id, err)
	}
	f.State = storeEvent(f.Seq, time.Time{}, f.Agent, id, kind, f.Detail).State
	if kind == queue.EventRemoved || kind == queue.EventCleared {
		f.State = "removed"
	}
	return f, nil
}

// storeEvent turns one entry of the store's log into a stream event.
func storeEvent(seq int64, at time.Time, agent string, msgID int64, kind, detail string) wire.Event {
	ev := wire.Event{Seq: seq, At: at, Agent: agent, MsgID: msgID, Kind: kind, Detail: detail}
	switch kind {
	case queue.EventAttempt:
		ev.Type, ev.State = wire.EventDelivery, wire.DeliveryTyping
	case queue.EventDelivered:
		ev.Type, ev.State = wire.EventDelivery, wire.DeliverySubmitted
		if detail == "verified" || strings.HasPrefix(detail, "verified") || strings.HasPrefix(detail, "received") {
			ev.State = wire.DeliveryVerified
		}
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
	case "mail_state":
		ev.Type = wire.EventMail
		if _, to, ok := strings.Cut(detail, "-> "); ok {
			ev.State, _, _ = strings.Cut(to, " ")
		}
	default:
		ev.Type = wire.EventStore
	}
	return ev
}
