package engine

// storeops.go holds the bodies of the calls whose work is the store's
// alone: the server's op handlers (clientops.go) call them, and so do the
// store-only commands (cmd/office: send, queue, pause, resume; the mail
// calls are in storemail.go) when they write the store themselves (no
// server, or one they then poke). One function per call, so the two ways
// cannot drift apart.

import (
	"context"
	"errors"

	"office/cluster"
	"office/inbox"
	"office/queue"
	"office/wire"
)

// removedByPerson is the reason the log records of a message the person
// removed ("queue.rm").
const removedByPerson = "removed by the person"

// Enqueue is "enqueue" on the store: text queued for agent with opts. A
// duplicate is a *queue.DuplicateError (the op answers it as
// wire.EnqueueResult.Duplicate; `office send` says it).
func Enqueue(ctx context.Context, s *queue.Store, agent, text string, opts queue.EnqueueOptions) (int64, error) {
	return s.Enqueue(ctx, agent, text, opts)
}

// SetPause is "pause" (paused) and "resume" on the store: agent's flag, or
// with agent "" the floor's ("resume" with no agent clears the floor flag
// and every agent's).
func SetPause(ctx context.Context, s *queue.Store, agent string, paused bool) error {
	switch {
	case agent == "" && paused:
		return s.SetFloorPaused(ctx, true)
	case agent == "":
		return s.ResumeAll(ctx)
	default:
		return s.SetPaused(ctx, agent, paused)
	}
}

// QueueListing is "queue.list" on the store: agent's messages ("" every
// agent's) with the label of each (QueueLabels). holds are the drain's
// holds of the head messages (a running server's live ones, or those it
// last stored); running says a server runs on the state directory.
func QueueListing(ctx context.Context, s *queue.Store, agent string, holds map[string]string, running bool) ([]queue.Message, []string, error) {
	msgs, err := s.List(ctx, agent)
	if err != nil {
		return nil, nil, err
	}
	floor, err := s.FloorPaused(ctx)
	if err != nil {
		return nil, nil, err
	}
	paused, err := s.PausedAgents(ctx)
	if err != nil {
		return nil, nil, err
	}
	st := QueueState{Running: running, Holds: holds, FloorPaused: floor, Paused: map[string]bool{}}
	for _, p := range paused {
		st.Paused[p] = true
	}
	return msgs, QueueLabels(msgs, st), nil
}

// queuedMessages is QueueListing as the wire carries it.
func queuedMessages(msgs []queue.Message, labels []string) []wire.QueuedMessage {
	out := make([]wire.QueuedMessage, 0, len(msgs))
	for i, m := range msgs {
		out = append(out, wire.QueuedMessage{ID: m.ID, Agent: m.Agent, Text: m.Text, Created: m.Created, Attempts: m.Attempts,
			LastError: m.LastError, Manual: m.Manual, Held: labels[i]})
	}
	return out
}

// RemoveQueued is "queue.rm" on the store: message id removed, in one
// transaction that also reads it first, so m is the message as it was when
// it went (what the drain had begun of it: `office queue rm` warns of it).
// With svc (the office's inbox layer, nil for none) a held inbox
// delivery's items are done with it (inbox.RemoveTx) in that transaction.
// A message that is not queued is the store's queue.ErrNotFound; one the
// drain is typing under its lease, queue.ErrInFlight.
func RemoveQueued(ctx context.Context, s *queue.Store, svc *inbox.Service, id int64) (queue.Message, error) {
	var m queue.Message
	err := s.Update(ctx, func(tx *queue.Tx) error {
		var err error
		if m, err = tx.Get(id); err != nil {
			return err
		}
		if svc == nil {
			return tx.Remove(id, removedByPerson)
		}
		_, err = svc.RemoveTx(tx, id, removedByPerson)
		return err
	})
	if err != nil {
		return queue.Message{}, err
	}
	return m, nil
}

// ClearQueue is "queue.clear" on the store: every message queued for agent
// removed in one transaction, which also reads what each was when it went
// (gone, for `office queue clear`'s warnings); n is how many went. An agent
// the registry does not know is the store's queue.ErrUnknownAgent, before
// anything is removed.
func ClearQueue(ctx context.Context, s *queue.Store, agent string) (gone []queue.Message, n int, err error) {
	if _, err := s.Agent(ctx, agent); err != nil {
		return nil, 0, err
	}
	listed, err := s.List(ctx, agent)
	if err != nil {
		return nil, 0, err
	}
	err = s.Update(ctx, func(tx *queue.Tx) error {
		gone = gone[:0]
		for _, l := range listed {
			if m, err := tx.Get(l.ID); err == nil {
				gone = append(gone, m)
			} else if !errors.Is(err, queue.ErrNotFound) {
				return err
			}
		}
		var err error
		n, err = tx.Clear(agent)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return gone, n, nil
}

// StashRemote is the store's part of a send or mail to an agent of another
// host of the floor: it stored in this host's outbox (cluster.StashTx) in
// one transaction with key (idempotency, fingerprint fp; "" none) and with
// also (when set: run with the item's id; mail keeps this host's envelope
// of it). The caller pokes the office so that the outbox is sent.
func StashRemote(ctx context.Context, s *queue.Store, it cluster.Item, key, fp string, also func(tx *queue.Tx, id string) error) (Keyed, error) {
	return keyedUpdate(ctx, s, key, fp, func(tx *queue.Tx) (string, error) {
		id, err := cluster.StashTx(tx, it)
		if err != nil || also == nil {
			return id, err
		}
		return id, also(tx, id)
	})
}
