package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Requeue puts m, a plain message already recorded delivered, back at the
// head of its agent's queue, with its own id, text and attempts: the CLI
// refused the turn it started without running it (a usage limit's probe,
// docs/limits.md), so nothing of it was taken and no attempt is counted. It
// logs "refused" with why. An inbox delivery is not requeued (its items
// were settled with the delivery): that is an error, as is an id still
// queued. Returns once durable.
func (s *Store) Requeue(ctx context.Context, m Message, why string) error {
	return s.update(ctx, fmt.Sprintf("requeue message %d", m.ID), func(t *Tx) error { return t.Requeue(m, why) })
}

// Requeue is Store.Requeue inside t.
func (t *Tx) Requeue(m Message, why string) error {
	op := fmt.Sprintf("requeue message %d", m.ID)
	if m.Kind != KindPlain {
		return opErr(op, fmt.Errorf("a message of kind %q is not requeued", m.Kind))
	}
	if m.ID <= 0 || m.Agent == "" || m.Text == "" {
		return opErr(op, fmt.Errorf("message %d for %q: %w", m.ID, m.Agent, ErrBlank))
	}
	var queued int
	var removed sql.NullInt64
	if err := t.queryRow(`SELECT (SELECT COUNT(*) FROM messages WHERE id = ?), (SELECT removed FROM agents WHERE name = ?)`,
		m.ID, m.Agent).Scan(&queued, &removed); err != nil {
		return opErr(op, err)
	}
	if queued != 0 {
		return opErr(op, errors.New("it is still queued"))
	}
	if !removed.Valid || removed.Int64 != 0 {
		return opErr(op, unknownAgent(m.Agent, removed.Valid))
	}
	if _, err := t.exec(`INSERT INTO messages (id, agent, position, text, verb, created, manual, precondition, kind, source, attempts, last_error, last_attempt)
		VALUES (?, ?, (SELECT COALESCE(MIN(position), 1) - 1 FROM messages WHERE agent = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Agent, m.Agent, m.Text, firstToken(m.Text), toNanos(m.Created), boolInt(m.Manual), m.Precondition, string(m.Kind),
		m.Source, m.Attempts, m.LastError, toNanos(m.LastAttempt)); err != nil {
		return opErr(op, err)
	}
	if err := t.appendEvent(Event{Agent: m.Agent, MsgID: m.ID, Kind: EventRefused, Detail: why}); err != nil {
		return opErr(op, err)
	}
	return nil
}
