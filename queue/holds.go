package queue

import (
	"context"
	"fmt"
	"time"
)

// Hold is why the live engine is holding an agent's head message, recorded so
// that another process (`office queue`) can show it. Reason is a word of the
// one hold vocabulary, defined as drain.Hold (busy, waiting, your draft,
// picker open, settling, exited, paused, cooling down, booting, no paste
// mode, unknown agent, interrupted); the store does not check it.
type Hold struct {
	Agent  string
	Reason string
	// At is when this reason started (it is kept while the reason stays the
	// same).
	At time.Time
}

// SetHold records reason as the agent's hold, or clears it when reason is "".
// Setting the reason already recorded writes nothing (no revision bump), so
// an engine may call it on every pass without waking itself. Holds are
// display state: they are not written to the event log and the agent is not
// checked against the registry. Returns once durable.
func (s *Store) SetHold(ctx context.Context, agent, reason string) error {
	return s.update(ctx, fmt.Sprintf("set hold %q", agent), func(t *Tx) error { return t.SetHold(agent, reason) })
}

// SetHold is Store.SetHold inside t.
func (t *Tx) SetHold(agent, reason string) error {
	var err error
	if reason == "" {
		_, err = t.exec(`DELETE FROM holds WHERE agent = ?`, agent)
	} else {
		_, err = t.exec(`INSERT INTO holds (agent, reason, at) VALUES (?, ?, ?)
			ON CONFLICT (agent) DO UPDATE SET reason = excluded.reason, at = excluded.at WHERE reason != excluded.reason`,
			agent, reason, toNanos(t.now))
	}
	if err != nil {
		return opErr(fmt.Sprintf("set hold %q", agent), err)
	}
	return nil
}

// ClearHolds removes every recorded hold (an engine starting up, or shutting
// down, so stale reasons are not shown). Returns once durable.
func (s *Store) ClearHolds(ctx context.Context) error {
	return s.update(ctx, "clear holds", func(t *Tx) error {
		if _, err := t.exec(`DELETE FROM holds`); err != nil {
			return opErr("clear holds", err)
		}
		return nil
	})
}

// Holds returns every recorded hold, keyed by agent.
func (s *Store) Holds(ctx context.Context) (map[string]Hold, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT agent, reason, at FROM holds`)
	if err != nil {
		return nil, opErr("holds", err)
	}
	defer rows.Close()
	out := map[string]Hold{}
	for rows.Next() {
		var h Hold
		var at int64
		if err := rows.Scan(&h.Agent, &h.Reason, &at); err != nil {
			return nil, opErr("holds", err)
		}
		h.At = fromNanos(at)
		out[h.Agent] = h
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("holds", err)
	}
	return out, nil
}
