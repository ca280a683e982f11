package inbox

// send.go stores new inbox items: the receiver check, body rules, dedupe,
// and the event row, all in one transaction.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"office/drain"
	"office/queue"
)

// Kinds of item.
const (
	// KindText is a plain message (`office` senders, forwarded permission
	// requests).
	KindText = "text"
	// KindNotification is a notice office rendered (a child's turn ended,
	// failed, stalled, was cancelled; mail failed; a dead letter).
	KindNotification = "notification"
	// KindMail is a mail envelope's payload (see Mail).
	KindMail = "mail"
)

// States of an item.
const (
	// StatePending: waiting for a delivery.
	StatePending = "pending"
	// StateLeased: rendered into a delivery that was attempted and not yet
	// acknowledged.
	StateLeased = "leased"
	// StateDelivered: typed and submitted (or, for the person, read).
	StateDelivered = "delivered"
	// StateDead: never delivered (its receiver went away, it aged past
	// Options.Retention, or its mail was cancelled).
	StateDead = "dead"
)

// Event kinds this package writes to the queue's event log.
const (
	EventInboxSent      = "inbox_sent"
	EventInboxLeased    = "inbox_leased"
	EventInboxDelivered = "inbox_delivered"
	EventInboxReleased  = "inbox_released"
	EventInboxDead      = "inbox_dead"
	EventInboxPurged    = "inbox_purged"
	EventMailState      = "mail_state"
	EventStalled        = "stalled"
	EventReport         = "report"
	EventApproved       = "approved"
	EventJournal        = "journal"
)

// Message is one item to send.
type Message struct {
	// To is the receiver: an agent's name or Person.
	To string
	// From is the sender: an agent's name, Person, or "" for office itself.
	From string
	// Kind is KindText or KindNotification ("" means KindText); mail goes
	// through SendMail.
	Kind string
	// Body is the text. It is trimmed; blank is ErrBlankBody; invalid UTF-8
	// is replaced by U+FFFD; over MaxBodyBytes is ErrTooLarge.
	Body string
	// DedupeKey, when set, makes the send idempotent: a second send with the
	// same key returns the first item's id and writes nothing.
	DedupeKey string
	// ID is the item's ULID; "" makes a fresh one (an item from another
	// host keeps the id it had there).
	ID string
	// HereOnly: the receiver must be of this host; the item is never handed
	// to the Remote (it came from another host already).
	HereOnly bool
}

// Send stores m durably and returns its id. It returns only after the
// commit: the item is "stored", not "delivered" (the engine delivers it). A
// repeated DedupeKey returns the existing id with existed true. Nothing is
// written on error (ErrUnknownReceiver, ErrBlankBody, ErrTooLarge).
func (s *Service) Send(ctx context.Context, m Message) (id string, existed bool, err error) {
	err = s.store.Update(ctx, func(tx *queue.Tx) error {
		id, existed, err = s.SendTx(tx, m)
		return err
	})
	if err != nil {
		return "", false, err
	}
	return id, existed, nil
}

// SendTx is Send inside tx (it commits with whatever else tx does). A
// receiver that is no agent here but one of another host of the floor gets
// the item through the Remote (SetRemote), unless m.HereOnly.
func (s *Service) SendTx(tx *queue.Tx, m Message) (id string, existed bool, err error) {
	if m.Kind == "" {
		m.Kind = KindText
	}
	if m.Kind != KindText && m.Kind != KindNotification {
		return "", false, fmt.Errorf("inbox: send to %q: kind %q is not text or notification", m.To, m.Kind)
	}
	body, err := cleanBody(m.Body)
	if err != nil {
		return "", false, fmt.Errorf("inbox: send to %q: %w", m.To, err)
	}
	if id, ok, err := dedupeHit(tx, m.DedupeKey); err != nil || ok {
		if err != nil {
			return "", false, fmt.Errorf("inbox: send to %q: %w", m.To, err)
		}
		return id, true, nil
	}
	if err := checkReceiver(tx, m.To); err != nil {
		if s.remote != nil && !m.HereOnly && errors.Is(err, ErrUnknownReceiver) {
			m.Body = body
			id, existed, ok, rerr := s.remote.Send(tx, m)
			if rerr != nil {
				return "", false, fmt.Errorf("inbox: send to %q: %w", m.To, rerr)
			}
			if ok {
				return id, existed, nil
			}
		}
		return "", false, fmt.Errorf("inbox: send: %w", err)
	}
	id, _, err = s.insertItem(tx, m.ID, m.To, m.From, m.Kind, body, m.DedupeKey)
	if err != nil {
		return "", false, fmt.Errorf("inbox: send to %q: %w", m.To, err)
	}
	return id, false, nil
}

// cleanBody applies the body rules: valid UTF-8, trimmed, not blank, bounded.
func cleanBody(b string) (string, error) {
	if !utf8.ValidString(b) {
		b = strings.ToValidUTF8(b, "\uFFFD")
	}
	b = strings.TrimSpace(b)
	if b == "" {
		return "", both{ErrBlankBody, queue.ErrBlank}
	}
	if len(b) > MaxBodyBytes {
		return "", fmt.Errorf("%w: %d bytes, at most %d (%w)", ErrTooLarge, len(b), MaxBodyBytes, queue.ErrTooLarge)
	}
	if !drain.Typeable(b) {
		return "", fmt.Errorf("%w after removing control characters (%w)", ErrBlankBody, queue.ErrBlank)
	}
	return b, nil
}

// dedupeHit returns the id of the item already stored under key.
func dedupeHit(tx *queue.Tx, key string) (string, bool, error) {
	if key == "" {
		return "", false, nil
	}
	var id string
	err := tx.SQL().QueryRowContext(tx.Context(), `SELECT id FROM inbox_items WHERE dedupe = ?`, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return id, true, nil
}

// checkReceiver reports ErrUnknownReceiver unless name is the person or a
// registered agent that is not removed.
func checkReceiver(tx *queue.Tx, name string) error {
	if name == Person {
		return nil
	}
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("receiver is %w", both{ErrBlankBody, queue.ErrBlank})
	}
	var removed int
	err := tx.SQL().QueryRowContext(tx.Context(), `SELECT removed FROM agents WHERE name = ?`, name).Scan(&removed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w %q (%w)", ErrUnknownReceiver, name, queue.ErrUnknownAgent)
	case err != nil:
		return err
	case removed != 0:
		return fmt.Errorf("%w %q: removed from the team (%w)", ErrUnknownReceiver, name, queue.ErrUnknownAgent)
	}
	return nil
}

// checkRunHere refuses new mail (not a reply) to a name this host does not
// run because another host of the floor has it (queue.AgentRecord.Elsewhere),
// whether it was sent here or came from another host: this host's command
// routes mail for it to the host the floor's roster says has the name, so
// mail that reaches the store here has no receiver here, and kept it would
// wait for an agent that does not run (as the queue refuses a send:
// *queue.ElsewhereError). A reply is for this host's agent itself, and
// waits for it.
func checkRunHere(tx *queue.Tx, a MailRequestArgs) error {
	if a.InReplyTo != "" || a.To == Person {
		return nil
	}
	host, err := tx.Elsewhere(a.To)
	if err != nil || host == "" {
		return err
	}
	return both{fmt.Errorf("%w %q: not run on this host, host %s has that name", ErrUnknownReceiver, a.To, host),
		&queue.ElsewhereError{Agent: a.To, Host: host}}
}

// insertItem writes one pending item and its event; it returns the id and
// the item's seq.
func (s *Service) insertItem(tx *queue.Tx, id, to, from, kind, body, dedupe string) (string, int64, error) {
	now := tx.Now()
	if id == "" {
		id = s.newID(now)
	}
	res, err := tx.SQL().ExecContext(tx.Context(),
		`INSERT INTO inbox_items (id, receiver, sender, kind, body, dedupe, state, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, to, from, kind, body, dedupe, StatePending, toNanos(now), toNanos(now))
	if err != nil {
		return "", 0, err
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return "", 0, err
	}
	from = senderName(from)
	if err := tx.AppendEvent(queue.Event{Agent: to, Kind: EventInboxSent,
		Detail: fmt.Sprintf("%s %s from %s: %s", kind, id, from, preview(body))}); err != nil {
		return "", 0, err
	}
	return id, seq, nil
}

// SentDetail reads back the detail of an EventInboxSent entry, "KIND ID
// from SENDER: PREVIEW", as sendTx writes it: the one reader of that
// format, next to its writer (the server sends the parts as an event's
// fields, so no client reads the prose). ok is false for another shape.
func SentDetail(detail string) (kind, id, sender, preview string, ok bool) {
	kind, rest, _ := strings.Cut(detail, " ")
	id, rest, _ = strings.Cut(rest, " from ")
	sender, preview, ok = strings.Cut(rest, ": ")
	if !ok {
		return kind, "", "", detail, false
	}
	return kind, id, sender, preview, true // the preview may hold ": " itself
}

// senderName is how a sender is shown: "" is System.
func senderName(from string) string {
	if from == "" {
		return System
	}
	return from
}

// preview is the first line of text, cut to 80 runes, for event details.
func preview(text string) string {
	line, rest, multi := strings.Cut(text, "\n")
	cut := multi && strings.TrimSpace(rest) != ""
	if utf8.RuneCountInString(line) > 80 {
		line = string([]rune(line)[:80])
		cut = true
	}
	if cut {
		line += "…"
	}
	return line
}
