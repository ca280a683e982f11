package inbox

// drainstore.go is the queue store as the drain should see it once the inbox
// is on: an inbox delivery's items are leased and its text rendered in the
// transaction that stamps its attempt, marked delivered in the one that
// acknowledges it, and released in the one that drops it.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"office/drain"
	"office/queue"
)

// DrainStore is the store the drain uses.
var _ drain.Store = DrainStore{}

// DeliveryEventKind says what happened to an inbox delivery.
type DeliveryEventKind int

// The kinds of DeliveryEvent.
const (
	// DeliveryAttempted: its items were leased and rendered (typing comes
	// next).
	DeliveryAttempted DeliveryEventKind = iota
	// DeliveryAcked: it was typed and submitted; Items were delivered.
	DeliveryAcked
	// DeliveryReleased: it was dropped; its items are pending again.
	DeliveryReleased
	// DeliveryUnattempted: the attempt was abandoned before anything was
	// typed; it stays queued with its items and is attempted again.
	DeliveryUnattempted
	// DeliveryHeld: it was typed but the agent showed nothing; it is held
	// (interrupted) until the person releases or removes it.
	DeliveryHeld
)

// DeliveryEvent reports a committed change to one inbox delivery.
type DeliveryEvent struct {
	Kind  DeliveryEventKind
	Agent string
	MsgID int64
	// Items are the items delivered (DeliveryAcked only).
	Items []Item
	// Released counts the items put back (DeliveryReleased only).
	Released int
}

// DrainStore wraps a queue store for the drain (it has the methods of
// drain.Store). Messages of other kinds pass through unchanged. It is safe
// for concurrent use.
type DrainStore struct {
	*queue.Store
	// Svc is the inbox layer on the same store.
	Svc *Service
	// Observe, if set, is called after each committed change to an inbox
	// delivery, in commit order per agent; it must not block.
	Observe func(DeliveryEvent)
}

func (d DrainStore) observe(ev DeliveryEvent) {
	if d.Observe != nil {
		d.Observe(ev)
	}
}

// Attempt stamps the attempt; for an inbox delivery it also leases the
// agent's pending items and sets the text to type, in the same transaction.
// With nothing left to deliver it fails with ErrNothingPending and nothing
// is written (the drain's precondition then drops the message).
func (d DrainStore) Attempt(ctx context.Context, id int64) (queue.Message, error) {
	var m queue.Message
	err := d.Store.Update(ctx, func(tx *queue.Tx) error {
		var err error
		if m, err = tx.Attempt(id); err != nil || m.Kind != queue.KindInbox {
			return err
		}
		text, _, err := d.Svc.LeaseTx(tx, id, m.Agent)
		if err != nil {
			return err
		}
		if err := tx.SetText(id, text); err != nil {
			return err
		}
		m.Text = strings.TrimSpace(text)
		return nil
	})
	if err != nil {
		return queue.Message{}, err
	}
	if m.Kind == queue.KindInbox {
		d.observe(DeliveryEvent{Kind: DeliveryAttempted, Agent: m.Agent, MsgID: id})
	}
	return m, nil
}

// Delivered acknowledges the message; for an inbox delivery the items it
// leased are marked delivered and their mail moves claimed -> working in the
// same transaction.
func (d DrainStore) Delivered(ctx context.Context, id int64, note, state string) error {
	var m queue.Message
	var its []Item
	err := d.Store.Update(ctx, func(tx *queue.Tx) error {
		var err error
		if m, err = tx.Get(id); errors.Is(err, queue.ErrNotFound) {
			// The person removed the delivery while it was being typed and
			// checked: it reached the agent all the same, so its items are
			// delivered (never put back to be typed again).
			if its, err = d.Svc.AckTx(tx, id); err != nil {
				return err
			}
			if len(its) == 0 {
				return fmt.Errorf("inbox: delivered message %d: %w", id, queue.ErrNotFound)
			}
			m = queue.Message{ID: id, Agent: its[0].Receiver, Kind: queue.KindInbox}
			return nil
		}
		if err != nil {
			return err
		}
		if err := tx.Delivered(id, note, state); err != nil {
			return err
		}
		if m.Kind == queue.KindInbox {
			its, err = d.Svc.AckTx(tx, id)
		}
		return err
	})
	if err != nil {
		return err
	}
	if m.Kind == queue.KindInbox {
		d.observe(DeliveryEvent{Kind: DeliveryAcked, Agent: m.Agent, MsgID: id, Items: its})
	}
	return nil
}

// AttemptFailed counts the failure; when the message is dropped, the items
// it leased go back to pending in the same transaction.
func (d DrainStore) AttemptFailed(ctx context.Context, id int64, errText string, maxAttempts int) (dropped bool, attempts int, err error) {
	var agent string
	var n int
	err = d.Store.Update(ctx, func(tx *queue.Tx) error {
		m, err := tx.Get(id)
		if err != nil {
			return err
		}
		agent = m.Agent
		if dropped, attempts, err = tx.AttemptFailed(id, errText, maxAttempts); err != nil || !dropped {
			return err
		}
		n, err = d.Svc.ReleaseTx(tx, id, "delivery dropped after failed attempts")
		return err
	})
	if err != nil {
		return false, 0, err
	}
	if dropped {
		d.observe(DeliveryEvent{Kind: DeliveryReleased, Agent: agent, MsgID: id, Released: n})
	}
	return dropped, attempts, nil
}

// Unattempt records the abandoned attempt (queue.Store.Unattempt) and tells
// Observe: nothing was typed, so no turn of the agent is this delivery's.
func (d DrainStore) Unattempt(ctx context.Context, id int64, why string) error {
	var m queue.Message
	err := d.Store.Update(ctx, func(tx *queue.Tx) error {
		var err error
		if m, err = tx.Get(id); err != nil {
			return err
		}
		return tx.Unattempt(id, why)
	})
	if err != nil {
		return err
	}
	if m.Kind == queue.KindInbox {
		d.observe(DeliveryEvent{Kind: DeliveryUnattempted, Agent: m.Agent, MsgID: id})
	}
	return nil
}

// Hold marks the message interrupted (queue.Store.Hold) and tells Observe:
// the delivery was not acknowledged, so the turn its Enter started settles
// as one that did not begin with it.
func (d DrainStore) Hold(ctx context.Context, id int64, note string) error {
	m, err := d.Store.Get(ctx, id)
	if err != nil {
		return err
	}
	if err := d.Store.Hold(ctx, id, note); err != nil {
		return err
	}
	if m.Kind == queue.KindInbox {
		d.observe(DeliveryEvent{Kind: DeliveryHeld, Agent: m.Agent, MsgID: id})
	}
	return nil
}

// SetHold records the agent's hold reason.
func (d DrainStore) SetHold(ctx context.Context, agent string, reason drain.Hold) error {
	return d.Store.SetHold(ctx, agent, string(reason))
}

// Drop removes the message untyped; the items an inbox delivery leased go
// back to pending in the same transaction.
func (d DrainStore) Drop(ctx context.Context, id int64, reason drain.DropReason) error {
	return d.drop(ctx, id, reason, false)
}

// TypedNotSubmitted removes a message whose text sits on the agent's prompt,
// not submitted. For an inbox delivery its items count as delivered (and
// their mail as working), never typed a second time.
func (d DrainStore) TypedNotSubmitted(ctx context.Context, id int64) error {
	return d.drop(ctx, id, drain.DropTypedNotSubmitted, true)
}

// drop is Drop and TypedNotSubmitted (onPrompt).
func (d DrainStore) drop(ctx context.Context, id int64, reason drain.DropReason, onPrompt bool) error {
	var m queue.Message
	var n int
	var its []Item
	err := d.Store.Update(ctx, func(tx *queue.Tx) error {
		var err error
		if m, err = tx.Get(id); err != nil {
			return err
		}
		if err := tx.Drop(id, string(reason)); err != nil {
			return err
		}
		if onPrompt && m.Kind == queue.KindInbox {
			its, err = d.Svc.AckTx(tx, id)
			return err
		}
		if n, err = d.Svc.ReleaseTx(tx, id, string(reason)); err != nil || n > 0 || m.Kind != queue.KindInbox {
			return err // what it released is scheduled again (DeliveryReleased)
		}
		// It carried nothing (its precondition failed: its items were
		// gone when the drain looked), but an item may have arrived since,
		// which the scheduler left to this delivery: it gets its own.
		_, err = scheduleTx(tx, m.Agent)
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case m.Kind != queue.KindInbox:
	case onPrompt:
		d.observe(DeliveryEvent{Kind: DeliveryAcked, Agent: m.Agent, MsgID: id, Items: its})
	default:
		d.observe(DeliveryEvent{Kind: DeliveryReleased, Agent: m.Agent, MsgID: id, Released: n})
	}
	return nil
}

// Precondition is the drain's precondition check with the inbox on: an
// inbox delivery holds while Deliverable says so; any other message holds
// when its Precondition is "".
func (s *Service) Precondition(ctx context.Context, m queue.Message) (bool, error) {
	if m.Kind == queue.KindInbox {
		return s.Deliverable(ctx, m.Agent, m.ID)
	}
	return m.Precondition == "", nil
}
