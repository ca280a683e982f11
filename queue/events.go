package queue

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Event is one row of the append-only event log.
type Event struct {
	// Seq is the log position, assigned by the store, strictly increasing in
	// commit order across all processes. Ignored by AppendEvent.
	Seq int64
	// At is when the change happened (the writing transaction's clock).
	At time.Time
	// Agent is the agent concerned; "" for floor-wide events.
	Agent string
	// MsgID is the queue message concerned; 0 if none.
	MsgID int64
	// Kind is one of the Event* constants, or another layer's own kind.
	Kind string
	// Detail is free human-readable text (reason, note, text preview).
	Detail string
	// State is the event's typed state, for a reader to decide by (the
	// detail is for people): of "delivered", StateConfirmed or
	// StateUnconfirmed; of another layer's kind, that layer's word (the
	// inbox's mail state). "" in rows written before the store kept it
	// (schema 8) and of kinds that have none.
	State string
}

// The states of a "delivered" event (Event.State).
const (
	// StateConfirmed: the screen or the CLI's records showed the submit.
	StateConfirmed = "confirmed"
	// StateUnconfirmed: both writes succeeded, nothing confirmed the
	// submit (or the store settled it at start from what it kept).
	StateUnconfirmed = "unconfirmed"
)

// Event kinds written by this package. Other layers may append their own.
const (
	EventEnqueued      = "enqueued"
	EventReleased      = "released"
	EventRemoved       = "removed"
	EventCleared       = "cleared"
	EventAttempt       = "attempt"
	EventDelivered     = "delivered"
	EventAttemptFailed = "attempt_failed"
	EventDropped       = "dropped"
	EventPaused        = "paused"
	EventResumed       = "resumed"
	EventAgentAdded    = "agent_added"
	EventAgentRemoved  = "agent_removed"
	// EventInterrupted: an attempt was under way when the office stopped.
	EventInterrupted = "interrupted"
	// EventAttemptAbandoned: an attempt was given up before anything was typed.
	EventAttemptAbandoned = "attempt_abandoned"
	// EventAgentElsewhere: the agent is not run on this host because
	// another host of the floor has its name (SetElsewhere); EventAgentHere:
	// it runs here again.
	EventAgentElsewhere = "agent_elsewhere"
	EventAgentHere      = "agent_here"
	// EventRefused: a message counted delivered went back to the head of
	// its queue because the CLI refused its turn (Requeue).
	EventRefused = "refused"
	// EventHanded: a message was handed over through its CLI's turn-end
	// hook instead of typed (Handing); Detail names the channel.
	EventHanded = "handed"
)

// appendEvent writes e in t; At zero means the transaction's time.
func (t *Tx) appendEvent(e Event) error {
	at := e.At
	if at.IsZero() {
		at = t.now
	}
	_, err := t.exec(`INSERT INTO events (at, agent, msg_id, kind, detail, state) VALUES (?, ?, ?, ?, ?, ?)`,
		toNanos(at), e.Agent, e.MsgID, e.Kind, e.Detail, e.State)
	if err != nil {
		return fmt.Errorf("append %q event: %w", e.Kind, err)
	}
	return nil
}

// AppendEvent appends another layer's event to the log (Seq is assigned; At
// zero means now). A blank Kind is ErrBlank. Returns once durable.
func (s *Store) AppendEvent(ctx context.Context, e Event) error {
	return s.update(ctx, "append event", func(t *Tx) error { return t.AppendEvent(e) })
}

// AppendEvent is Store.AppendEvent inside t: the event commits with
// whatever else t changes.
func (t *Tx) AppendEvent(e Event) error {
	if strings.TrimSpace(e.Kind) == "" {
		return opErr("append event", fmt.Errorf("event kind is %w", ErrBlank))
	}
	if err := t.appendEvent(e); err != nil {
		return opErr("append event", err)
	}
	return nil
}

// Events returns up to limit events with Seq > afterSeq, in log order
// (limit <= 0: all of them). Pass the last Seq seen to follow the log.
func (s *Store) Events(ctx context.Context, afterSeq int64, limit int) ([]Event, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT seq, at, agent, msg_id, kind, detail, state FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, afterSeq, limit)
	if err != nil {
		return nil, opErr("events", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var at int64
		if err := rows.Scan(&e.Seq, &at, &e.Agent, &e.MsgID, &e.Kind, &e.Detail, &e.State); err != nil {
			return nil, opErr("events", err)
		}
		e.At = fromNanos(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("events", err)
	}
	return out, nil
}

// previewLen bounds the text preview stored in event details, in runes.
const previewLen = 80

// preview is the first line of text, cut to previewLen runes, for event
// details.
func preview(text string) string {
	line, rest, multi := strings.Cut(text, "\n")
	cut := multi && strings.TrimSpace(rest) != ""
	if utf8.RuneCountInString(line) > previewLen {
		r := []rune(line)
		line = string(r[:previewLen])
		cut = true
	}
	if cut {
		line += "…"
	}
	return line
}
