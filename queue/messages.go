package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kind classifies a queued message.
type Kind string

// Message kinds.
const (
	// KindPlain is an ordinary message (send, composer, brief, scheduled
	// command). Any number may be pending.
	KindPlain Kind = ""
	// KindInbox is an inbox delivery: its text is rendered from the agent's
	// pending inbox items just before typing. At most one is pending per
	// agent.
	KindInbox Kind = "inbox"
)

// EnqueueOptions qualify a new message.
type EnqueueOptions struct {
	// Manual: deliver even while the agent or the floor is paused (the
	// person asked for it).
	Manual bool
	// Precondition is opaque to the store: the drain checks it before typing
	// (e.g. "inbox pending"); a failed check drops the message.
	Precondition string
	// Kind: KindPlain or KindInbox (at most one pending per agent).
	Kind Kind
	// Source says who enqueued ("send", "composer", "brief", ...): free text
	// recorded with the message and in the "enqueued" event.
	Source string
	// Key, when set, makes the enqueue idempotent (see keys.go): a second
	// enqueue with the same key, agent and text writes nothing and returns an
	// unwrapped *KeyUsedError carrying the first message's id; the same key
	// with another agent or text is ErrKeyConflict.
	Key string
}

// Message is one queued message, waiting to be typed into its agent's
// terminal.
type Message struct {
	ID    int64
	Agent string
	// Text is trimmed and never empty.
	Text    string
	Created time.Time
	// Manual: sent now by the person (released or enqueued as manual); it
	// ignores the pause flags.
	Manual       bool
	Precondition string
	Kind         Kind
	// Source is EnqueueOptions.Source.
	Source string
	// Attempts counts failed attempts so far.
	Attempts  int
	LastError string
	// LastAttempt is when the last attempt started (zero: never attempted).
	LastAttempt time.Time
	// Interrupted: an attempt was under way when the office stopped (see
	// RecoverInterrupted); the text may or may not have reached the agent, so
	// it is not typed again until the person releases it (Release clears it).
	Interrupted bool
	// Writing is when the current attempt began typing (Writing was called
	// before its first byte); zero: nothing of this attempt was written.
	Writing time.Time
	// Entered is when the current attempt was about to write its first
	// Enter (Entering); zero: it was never submitted by office.
	Entered time.Time
	// Evidence is what is known of the message's delivery: for a message set
	// aside, why it could not be settled (e.g. "typed; no record of it in
	// the CLI's records"). "" when nothing is known yet.
	Evidence string
	// SetAside: an interrupted message no evidence could settle, held for
	// the person (release or rm) WITHOUT blocking the rest of the agent's
	// queue: Head and PendingAgents skip it.
	SetAside bool
	// PersonRev counts the person's changes to the message (each Release,
	// even one that changes no other field): a write decided on an earlier
	// read (recovery's settle) compares it, so it never overrides what the
	// person did meanwhile.
	PersonRev int64
}

const msgCols = `id, agent, text, created, manual, precondition, kind, source, attempts, last_error, last_attempt, interrupted, writing, evidence, set_aside, entered, person_rev`

func scanMessage(r scanner) (Message, error) {
	var m Message
	var created, last, writing, entered int64
	var manual, interrupted, aside int
	var kind string
	if err := r.Scan(&m.ID, &m.Agent, &m.Text, &created, &manual, &m.Precondition, &kind, &m.Source,
		&m.Attempts, &m.LastError, &last, &interrupted, &writing, &m.Evidence, &aside, &entered, &m.PersonRev); err != nil {
		return Message{}, err
	}
	m.Created, m.Manual, m.Kind, m.LastAttempt = fromNanos(created), manual != 0, Kind(kind), fromNanos(last)
	m.Interrupted, m.Writing, m.SetAside, m.Entered = interrupted != 0, fromNanos(writing), aside != 0, fromNanos(entered)
	return m, nil
}

// firstToken is the lowercased first whitespace-separated token of text,
// which decides whether text is a compaction command.
func firstToken(text string) string {
	f := strings.Fields(text)
	if len(f) == 0 {
		return ""
	}
	tok := strings.ToLower(f[0])
	if len(tok) > 64 {
		tok = tok[:64]
	}
	return tok
}

// IsCompaction reports whether text is a compaction command under this
// store's CompactVerbs (its first whitespace-separated token, lowercased, is
// one of them).
func (s *Store) IsCompaction(text string) bool { return s.compactVerbs[firstToken(text)] }

// Enqueue adds text (trimmed with strings.TrimSpace) to the end of agent's
// queue and logs "enqueued", in one transaction, and returns the new id only
// once the row is durable (fsynced): a crash after Enqueue returns loses
// nothing.
//
// Nothing is written when: the text is blank (ErrBlank), over MaxBody bytes
// (ErrTooLarge) or not valid UTF-8 (ErrInvalidUTF8); opt.Key was used
// before (*KeyUsedError, ErrKeyConflict); the agent is absent
// or removed (ErrUnknownAgent, naming the agent), or not run here because
// another host of the floor has its name (*ElsewhereError, also
// ErrUnknownAgent); the text is a compaction
// command and the agent already has one pending (one set aside does not
// count), or opt.Kind is KindInbox and
// the agent already has an inbox delivery pending (an unwrapped
// *DuplicateError carrying the pending message's id; errors.Is(err,
// ErrDuplicate)).
//
// Ids are unique across processes and never reused, even after deletion.
func (s *Store) Enqueue(ctx context.Context, agent, text string, opt EnqueueOptions) (int64, error) {
	var id int64
	err := s.update(ctx, fmt.Sprintf("enqueue for %q", agent), func(t *Tx) error {
		var err error
		id, err = t.Enqueue(agent, text, opt)
		return err
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// Enqueue is Store.Enqueue inside t.
func (t *Tx) Enqueue(agent, text string, opt EnqueueOptions) (int64, error) {
	op := fmt.Sprintf("enqueue for %q", agent)
	text = strings.TrimSpace(text)
	if text == "" {
		return 0, opErr(op, fmt.Errorf("message text is %w", ErrBlank))
	}
	if err := CheckBody(text); err != nil {
		return 0, opErr(op, fmt.Errorf("message text: %w", err))
	}
	var fp string
	if opt.Key != "" {
		fp = Fingerprint("message", agent, text)
		prev, err := t.KeyedID(opt.Key, fp)
		if err != nil {
			return 0, opErr(op, err)
		}
		if prev != "" {
			return 0, &KeyUsedError{Key: opt.Key, ExistingID: prev}
		}
	}
	// One read for the registry check and the next position.
	var removed sql.NullInt64
	var elsewhere sql.NullString
	var pos int64
	if err := t.queryRow(`SELECT (SELECT removed FROM agents WHERE name = ?), (SELECT elsewhere FROM agents WHERE name = ?),
		(SELECT COALESCE(MAX(position), 0) + 1 FROM messages WHERE agent = ?)`, agent, agent, agent).Scan(&removed, &elsewhere, &pos); err != nil {
		return 0, opErr(op, err)
	}
	if !removed.Valid || removed.Int64 != 0 {
		return 0, opErr("enqueue", unknownAgent(agent, removed.Valid))
	}
	if elsewhere.String != "" {
		return 0, opErr("enqueue", &ElsewhereError{Agent: agent, Host: elsewhere.String})
	}
	verb := firstToken(text)
	if t.s.compactVerbs[verb] {
		id, err := t.firstMatching(agent, func(m dupRow) bool { return t.s.compactVerbs[m.verb] })
		if err != nil {
			return 0, opErr(op, err)
		}
		if id != 0 {
			return 0, &DuplicateError{Agent: agent, ExistingID: id, Kind: DupCompaction}
		}
	}
	if opt.Kind == KindInbox {
		id, err := t.firstMatching(agent, func(m dupRow) bool { return m.kind == string(KindInbox) })
		if err != nil {
			return 0, opErr(op, err)
		}
		if id != 0 {
			return 0, &DuplicateError{Agent: agent, ExistingID: id, Kind: DupInbox}
		}
	}
	res, err := t.exec(`INSERT INTO messages (agent, position, text, verb, created, manual, precondition, kind, source)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		agent, pos, text, verb, toNanos(t.now), boolInt(opt.Manual), opt.Precondition, string(opt.Kind), opt.Source)
	if err != nil {
		return 0, opErr(op, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, opErr(op, err)
	}
	if opt.Key != "" {
		if err := t.RecordKey(opt.Key, fp, strconv.FormatInt(id, 10)); err != nil {
			return 0, opErr(op, err)
		}
	}
	if err := t.appendEvent(Event{Agent: agent, MsgID: id, Kind: EventEnqueued, Detail: enqueueDetail(text, opt)}); err != nil {
		return 0, opErr(op, err)
	}
	return id, nil
}

func enqueueDetail(text string, opt EnqueueOptions) string {
	var tags []string
	if opt.Source != "" {
		tags = append(tags, opt.Source)
	}
	if opt.Kind != KindPlain {
		tags = append(tags, "kind="+string(opt.Kind))
	}
	if opt.Manual {
		tags = append(tags, "manual")
	}
	if len(tags) == 0 {
		return preview(text)
	}
	return "[" + strings.Join(tags, " ") + "] " + preview(text)
}

type dupRow struct {
	id   int64
	verb string
	kind string
}

// firstMatching returns the id of agent's first pending message (delivery
// order) for which match is true, or 0. A message set aside is not pending:
// it waits for the person, not for the drain, and is delivered only if they
// release it (Release then applies the same rule).
func (t *Tx) firstMatching(agent string, match func(dupRow) bool) (int64, error) {
	rows, err := t.tx.QueryContext(t.ctx,
		`SELECT id, verb, kind FROM messages WHERE agent = ? AND set_aside = 0 AND (verb != '' OR kind != '') ORDER BY position, id`, agent)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var r dupRow
		if err := rows.Scan(&r.id, &r.verb, &r.kind); err != nil {
			return 0, err
		}
		if match(r) {
			return r.id, nil
		}
	}
	return 0, rows.Err()
}

// List returns agent's queued messages in delivery order (agent "": every
// agent's, grouped by agent name, each in delivery order). Removed agents'
// queues are included.
func (s *Store) List(ctx context.Context, agent string) ([]Message, error) {
	q := `SELECT ` + msgCols + ` FROM messages WHERE agent = ? ORDER BY position, id`
	args := []any{agent}
	if agent == "" {
		q = `SELECT ` + msgCols + ` FROM messages ORDER BY agent, position, id`
		args = nil
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, opErr(fmt.Sprintf("list %q", agent), err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, opErr(fmt.Sprintf("list %q", agent), err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr(fmt.Sprintf("list %q", agent), err)
	}
	return out, nil
}

// Head returns the message agent's queue would deliver next (messages set
// aside are skipped); ok is false when there is none.
func (s *Store) Head(ctx context.Context, agent string) (m Message, ok bool, err error) {
	return head(ctx, s.db, agent)
}

// Head is Store.Head inside t (it sees t's own changes).
func (t *Tx) Head(agent string) (Message, bool, error) { return head(t.ctx, t.tx, agent) }

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func head(ctx context.Context, q querier, agent string) (Message, bool, error) {
	m, err := scanMessage(q.QueryRowContext(ctx,
		`SELECT `+msgCols+` FROM messages WHERE agent = ? AND set_aside = 0 ORDER BY position, id LIMIT 1`, agent))
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, false, nil
	}
	if err != nil {
		return Message{}, false, opErr(fmt.Sprintf("head of %q", agent), err)
	}
	return m, true, nil
}

// Get returns the queued message id; ErrNotFound if it is not queued (any
// more).
func (s *Store) Get(ctx context.Context, id int64) (Message, error) { return get(ctx, s.db, id) }

// Get is Store.Get inside t (it sees t's own changes).
func (t *Tx) Get(id int64) (Message, error) { return get(t.ctx, t.tx, id) }

func get(ctx context.Context, q querier, id int64) (Message, error) {
	m, err := scanMessage(q.QueryRowContext(ctx, `SELECT `+msgCols+` FROM messages WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, opErr(fmt.Sprintf("get message %d", id), ErrNotFound)
	}
	if err != nil {
		return Message{}, opErr(fmt.Sprintf("get message %d", id), err)
	}
	return m, nil
}

// PendingAgents returns the agents with at least one queued message that is
// not set aside, sorted by name (removed agents with leftover messages
// included).
func (s *Store) PendingAgents(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT agent FROM messages WHERE set_aside = 0 ORDER BY agent`)
	if err != nil {
		return nil, opErr("pending agents", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return nil, opErr("pending agents", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("pending agents", err)
	}
	return out, nil
}

// Counts returns the number of queued messages per agent (agents with none
// are absent).
func (s *Store) Counts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT agent, count(*) FROM messages GROUP BY agent`)
	if err != nil {
		return nil, opErr("counts", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var a string
		var n int
		if err := rows.Scan(&a, &n); err != nil {
			return nil, opErr("counts", err)
		}
		out[a] = n
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("counts", err)
	}
	return out, nil
}

// Release is "send now": it marks message id manual (so it ignores the pause
// flags), clears Interrupted and SetAside, and moves it to the front of its
// agent's queue, ahead of every other message, whose relative order is
// unchanged; it logs "released". One
// transaction; ErrNotFound if the message is not queued; ErrInFlight if the
// drain is typing it (its attempt has not settled); ErrDuplicate if it
// is a compaction set aside and another compaction is pending for its agent
// (queued since: one set aside does not count as pending). Returns once
// durable.
func (s *Store) Release(ctx context.Context, id int64) error {
	return s.update(ctx, fmt.Sprintf("release message %d", id), func(t *Tx) error { return t.Release(id) })
}

// Release is Store.Release inside t.
func (t *Tx) Release(id int64) error {
	op := fmt.Sprintf("release message %d", id)
	var agent, verb string
	var pos int64
	var aside, inFlight int
	err := t.queryRow(`SELECT agent, position, verb, set_aside, in_flight FROM messages WHERE id = ?`, id).Scan(&agent, &pos, &verb, &aside, &inFlight)
	if errors.Is(err, sql.ErrNoRows) {
		return opErr(op, ErrNotFound)
	}
	if err != nil {
		return opErr(op, err)
	}
	if inFlight != 0 {
		// The drain settles its attempt next (delivered, set aside, a
		// failed attempt), which would silently undo the release.
		return opErr(op, ErrInFlight)
	}
	if aside != 0 && t.s.compactVerbs[verb] {
		// A compaction set aside did not count as pending, so another may
		// have been queued since: one is enough.
		other, err := t.firstMatching(agent, func(m dupRow) bool { return t.s.compactVerbs[m.verb] })
		if err != nil {
			return opErr(op, err)
		}
		if other != 0 {
			return opErr(op, fmt.Errorf("%w: agent %q has compaction command %d pending; remove one of the two",
				ErrDuplicate, agent, other))
		}
	}
	var minOther sql.NullInt64
	if err := t.queryRow(`SELECT MIN(position) FROM messages WHERE agent = ? AND id != ?`, agent, id).Scan(&minOther); err != nil {
		return opErr(op, err)
	}
	if minOther.Valid && minOther.Int64 <= pos {
		pos = minOther.Int64 - 1
	}
	if _, err := t.exec(`UPDATE messages SET manual = 1, interrupted = 0, set_aside = 0, evidence = '', position = ?, person_rev = person_rev + 1 WHERE id = ?`, pos, id); err != nil {
		return opErr(op, err)
	}
	if err := t.appendEvent(Event{Agent: agent, MsgID: id, Kind: EventReleased, Detail: "send now"}); err != nil {
		return opErr(op, err)
	}
	return nil
}

// deleteMsg deletes message id and logs kind with detail, returning its agent
// (ErrNotFound if it is not queued).
func (t *Tx) deleteMsg(id int64, kind, detail string) (string, error) {
	return t.deleteMsgAs(id, Event{Kind: kind, Detail: detail})
}

// deleteMsgAs is deleteMsg with the event ev (its kind, detail and state;
// agent and message are the row's).
func (t *Tx) deleteMsgAs(id int64, ev Event) (string, error) {
	var agent string
	err := t.queryRow(`DELETE FROM messages WHERE id = ? RETURNING agent`, id).Scan(&agent)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", err
	}
	ev.Agent, ev.MsgID = agent, id
	if err := t.appendEvent(ev); err != nil {
		return "", err
	}
	return agent, nil
}

// Remove deletes queued message id (the person deleted it) and logs "removed"
// with reason, in one transaction. ErrNotFound if it is not queued. Returns
// once durable.
func (s *Store) Remove(ctx context.Context, id int64, reason string) error {
	return s.update(ctx, fmt.Sprintf("remove message %d", id), func(t *Tx) error { return t.Remove(id, reason) })
}

// Remove is Store.Remove inside t.
func (t *Tx) Remove(id int64, reason string) error {
	if _, err := t.deleteMsg(id, EventRemoved, reason); err != nil {
		return opErr(fmt.Sprintf("remove message %d", id), err)
	}
	return nil
}

// Clear deletes every message queued for agent (removed agents included) and
// logs one "cleared" event per message (with its text preview), in one
// transaction, returning how many went. An agent absent from the registry is
// ErrUnknownAgent; a blank name is ErrBlank (it never means "all"). Returns
// once durable.
func (s *Store) Clear(ctx context.Context, agent string) (int, error) {
	var n int
	err := s.update(ctx, fmt.Sprintf("clear %q", agent), func(t *Tx) error {
		var err error
		n, err = t.Clear(agent)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Clear is Store.Clear inside t.
func (t *Tx) Clear(agent string) (int, error) {
	op := fmt.Sprintf("clear %q", agent)
	if agent == "" {
		return 0, opErr("clear", fmt.Errorf("agent name is %w", ErrBlank))
	}
	exists, _, err := t.agentState(agent)
	if err != nil {
		return 0, opErr(op, err)
	}
	if !exists {
		return 0, opErr("clear", unknownAgent(agent, false))
	}
	rows, err := t.tx.QueryContext(t.ctx,
		`DELETE FROM messages WHERE agent = ? RETURNING id, position, text`, agent)
	if err != nil {
		return 0, opErr(op, err)
	}
	type gone struct {
		id, pos int64
		text    string
	}
	var all []gone
	for rows.Next() {
		var g gone
		if err := rows.Scan(&g.id, &g.pos, &g.text); err != nil {
			rows.Close()
			return 0, opErr(op, err)
		}
		all = append(all, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, opErr(op, err)
	}
	// Log in delivery order.
	sort.Slice(all, func(i, j int) bool {
		if all[i].pos != all[j].pos {
			return all[i].pos < all[j].pos
		}
		return all[i].id < all[j].id
	})
	for _, g := range all {
		if err := t.appendEvent(Event{Agent: agent, MsgID: g.id, Kind: EventCleared, Detail: preview(g.text)}); err != nil {
			return 0, opErr(op, err)
		}
	}
	return len(all), nil
}

// Attempt stamps message id's last attempt with the current time and logs
// "attempt", in one transaction. The drain calls it BEFORE writing to the
// PTY, so the cooldown holds even if the process dies mid-write. It does not
// count an attempt (AttemptFailed does). It returns the message as stamped:
// its text is what is to be typed (a layer that renders text at attempt
// time, such as the inbox, sets it in the same transaction with SetText).
// ErrNotFound if the message is not queued. Returns once durable.
func (s *Store) Attempt(ctx context.Context, id int64) (Message, error) {
	var m Message
	err := s.update(ctx, fmt.Sprintf("attempt message %d", id), func(t *Tx) error {
		var err error
		m, err = t.Attempt(id)
		return err
	})
	return m, err
}

// Attempt is Store.Attempt inside t (an inbox layer leases its items in the
// same transaction).
func (t *Tx) Attempt(id int64) (Message, error) {
	op := fmt.Sprintf("attempt message %d", id)
	var agent string
	var attempts int
	err := t.queryRow(`UPDATE messages SET last_attempt = ?, in_flight = 1, writing = 0, entered = 0 WHERE id = ? RETURNING agent, attempts`, toNanos(t.now), id).Scan(&agent, &attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, opErr(op, ErrNotFound)
	}
	if err != nil {
		return Message{}, opErr(op, err)
	}
	if err := t.appendEvent(Event{Agent: agent, MsgID: id, Kind: EventAttempt, Detail: fmt.Sprintf("attempt %d", attempts+1)}); err != nil {
		return Message{}, opErr(op, err)
	}
	m, err := t.Get(id)
	if err != nil {
		return Message{}, opErr(op, err)
	}
	return m, nil
}

// SetText replaces the text of queued message id (the inbox layer renders an
// inbox delivery's text when it is attempted). The text is trimmed; blank is
// ErrBlank. ErrNotFound if the message is not queued.
func (t *Tx) SetText(id int64, text string) error {
	op := fmt.Sprintf("set text of message %d", id)
	text = strings.TrimSpace(text)
	if text == "" {
		return opErr(op, ErrBlank)
	}
	res, err := t.exec(`UPDATE messages SET text = ? WHERE id = ?`, text, id)
	if err != nil {
		return opErr(op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return opErr(op, ErrNotFound)
	}
	return nil
}

// Delivered records that message id was typed and submitted: it deletes the
// row and logs "delivered" with note and state (StateConfirmed when the
// screen or the CLI's records showed the submit, else StateUnconfirmed),
// in one transaction. ErrNotFound if the message is not queued (then
// nothing is logged). Returns once durable.
func (s *Store) Delivered(ctx context.Context, id int64, note, state string) error {
	return s.update(ctx, fmt.Sprintf("delivered message %d", id), func(t *Tx) error { return t.Delivered(id, note, state) })
}

// Delivered is Store.Delivered inside t (an inbox layer marks its items
// delivered in the same transaction).
func (t *Tx) Delivered(id int64, note, state string) error {
	op := fmt.Sprintf("delivered message %d", id)
	if state != StateConfirmed && state != StateUnconfirmed {
		return opErr(op, fmt.Errorf("delivery state %q is not %s or %s", state, StateConfirmed, StateUnconfirmed))
	}
	if _, err := t.deleteMsgAs(id, Event{Kind: EventDelivered, Detail: note, State: state}); err != nil {
		return opErr(op, err)
	}
	return nil
}

// AttemptFailed counts a failed attempt on message id and records errText as
// its last error. If that makes attempts >= maxAttempts (the caller's budget,
// the max_attempts setting; below 1 is an error) the message is deleted and "dropped" is logged with the
// reason, and dropped is true; otherwise it stays at the head and
// "attempt_failed" is logged. One transaction; ErrNotFound if the message is
// not queued. Returns once durable.
func (s *Store) AttemptFailed(ctx context.Context, id int64, errText string, maxAttempts int) (dropped bool, attempts int, err error) {
	err = s.update(ctx, fmt.Sprintf("attempt failed on message %d", id), func(t *Tx) error {
		var err error
		dropped, attempts, err = t.AttemptFailed(id, errText, maxAttempts)
		return err
	})
	if err != nil {
		return false, 0, err
	}
	return dropped, attempts, nil
}

// AttemptFailed is Store.AttemptFailed inside t.
func (t *Tx) AttemptFailed(id int64, errText string, maxAttempts int) (dropped bool, attempts int, err error) {
	op := fmt.Sprintf("attempt failed on message %d", id)
	if maxAttempts < 1 {
		return false, 0, opErr(op, fmt.Errorf("attempt budget %d: want at least 1", maxAttempts))
	}
	var agent string
	err = t.queryRow(`UPDATE messages SET attempts = attempts + 1, last_error = ?, in_flight = 0 WHERE id = ? RETURNING agent, attempts`,
		errText, id).Scan(&agent, &attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return false, 0, opErr(op, ErrNotFound)
	}
	if err != nil {
		return false, 0, opErr(op, err)
	}
	if attempts >= maxAttempts {
		if _, err := t.deleteMsg(id, EventDropped, fmt.Sprintf("after %d failed attempts: %s", attempts, errText)); err != nil {
			return false, 0, opErr(op, err)
		}
		return true, attempts, nil
	}
	if err := t.appendEvent(Event{Agent: agent, MsgID: id, Kind: EventAttemptFailed,
		Detail: fmt.Sprintf("attempt %d of %d: %s", attempts, maxAttempts, errText)}); err != nil {
		return false, 0, opErr(op, err)
	}
	return false, attempts, nil
}

// Drop deletes message id without delivering it and logs "dropped" with
// reason (precondition failed, typed but not submitted, ...), in one
// transaction. ErrNotFound if the message is not queued. Returns once
// durable.
func (s *Store) Drop(ctx context.Context, id int64, reason string) error {
	return s.update(ctx, fmt.Sprintf("drop message %d", id), func(t *Tx) error { return t.Drop(id, reason) })
}

// Drop is Store.Drop inside t.
func (t *Tx) Drop(id int64, reason string) error {
	if _, err := t.deleteMsg(id, EventDropped, reason); err != nil {
		return opErr(fmt.Sprintf("drop message %d", id), err)
	}
	return nil
}

// Settlement is what start-up recovery did with one delivery the last stop
// of the office interrupted.
type Settlement int

const (
	// SettleAside: no evidence settles it; it is set aside (Interrupted and
	// SetAside) for the person to release or remove, and the rest of the
	// agent's queue goes on.
	SettleAside Settlement = iota
	// SettleDelivered: the CLI's own record shows it arrived; it leaves the
	// queue as delivered.
	SettleDelivered
	// SettleRetry: it is delivered again normally: provably nothing of it
	// was typed (the stop came before Writing), or it is an inbox delivery
	// the stop interrupted while it was typed (its items carry ids the agent
	// can skip); one held at run time is never retyped on a guess.
	SettleRetry
)

// Verdict is a judge's conclusion about one interrupted delivery and the
// evidence behind it, in words ("hook", "no record of it in the CLI's
// records", ...).
type Verdict struct {
	Settle   Settlement
	Evidence string
	// Received, if set, runs inside the transaction that settles the
	// message SettleDelivered (and only then): the caller's own records of
	// the delivery (an inbox batch's items) settle with it, so a crash
	// between the two cannot leave the message delivered and its items to
	// be typed again.
	Received func(*Tx) error
}

// Recovered is one interrupted delivery and what recovery did with it.
type Recovered struct {
	Message
	Verdict Verdict
}

// Evidence words the store itself decides by.
const (
	// EvidenceNotTyped: the stop came after the attempt was stamped and
	// before Writing, so no byte of it reached the agent.
	EvidenceNotTyped = "not typed: the office stopped before writing began"
	// EvidenceNotSubmitted: the text was being typed, but the stop came
	// before its Enter: it died on the prompt with the agent's process
	// (which a stop of the office hangs up), so it never reached the CLI.
	EvidenceNotSubmitted = "not submitted: the office stopped before the Enter"
	// EvidenceInboxRetry: an inbox delivery is delivered again; its items
	// carry ids the agent can skip.
	EvidenceInboxRetry = "inbox delivery: delivered again (its items carry ids)"
	// EvidenceUnknown: typed, and nothing says whether it arrived.
	EvidenceUnknown = "typing had begun; no evidence either way"
)

// RecoverInterrupted settles the attempts that were under way when the office
// last stopped (crashed or was killed between stamping an attempt and
// recording its outcome) and returns them with what was done. The store
// decides what it can prove: an attempt that never began writing is
// delivered again (SettleRetry, EvidenceNotTyped). An inbox delivery the
// stop interrupted while it was typed is delivered again
// (EvidenceInboxRetry) unless judge says it was received (SettleDelivered:
// the CLI recorded the whole batch as one prompt): it is not set aside, its
// items carry ids the agent can skip, and the judge's Verdict.Received marks
// the items of one received delivered in the settling transaction. An inbox
// delivery held at run time (Hold: typed, not confirmed, or nothing drawn
// after it) was held by the person's decision to come: it is judged like
// any other message, never retyped on a guess. Every other one was being typed: judge looks for evidence (the
// CLI's own records) and decides (a nil judge sets it aside); one the judge
// sets aside whose Enter was never begun (Entering) was not submitted either
// and is delivered again (EvidenceNotSubmitted). What is left may or may not
// have reached the agent. Each logs "interrupted" with the evidence, or
// "delivered" for SettleDelivered. The judge runs outside any transaction;
// each settlement commits on its own, only if the message is still as it
// was read (the person may remove or release it meanwhile, from another
// process: then it is left as the person left it and not returned, so no
// one is told it was set aside or delivered). Only the engine calls it, at
// start-up, under its lock, before the drain runs.
//
// A message held at run time (Hold: typed, and the agent drew nothing after
// it) is settled the same way (it is returned with Interrupted set): it held
// its agent's queue because that agent's process might still read it, and
// the stop ended that process, so what no evidence settles is set aside and
// no longer holds the queue.
func (s *Store) RecoverInterrupted(ctx context.Context, judge func(Message) Verdict) ([]Recovered, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+msgCols+` FROM messages WHERE `+unsettled+` ORDER BY id`)
	if err != nil {
		return nil, opErr("recover interrupted deliveries", err)
	}
	var found []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			rows.Close()
			return nil, opErr("recover interrupted deliveries", err)
		}
		found = append(found, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, opErr("recover interrupted deliveries", err)
	}
	out := make([]Recovered, 0, len(found))
	for _, m := range found {
		v := Verdict{Settle: SettleAside, Evidence: EvidenceUnknown}
		switch {
		case m.Writing.IsZero():
			v = Verdict{Settle: SettleRetry, Evidence: EvidenceNotTyped}
		case m.Kind == KindInbox && !m.Interrupted:
			v = Verdict{Settle: SettleRetry, Evidence: EvidenceInboxRetry}
			if judge != nil {
				if j := judge(m); j.Settle == SettleDelivered {
					v = j
				}
			}
		case judge != nil:
			v = judge(m)
		}
		if v.Settle == SettleAside && m.Entered.IsZero() {
			v = Verdict{Settle: SettleRetry, Evidence: EvidenceNotSubmitted}
		}
		what := "the office stopped while typing it"
		if m.Interrupted {
			what = "held (the agent drew nothing after it), then the office stopped"
		}
		changed, err := s.settle(ctx, m, v, what)
		if err != nil {
			return out, err
		}
		if changed {
			out = append(out, Recovered{Message: m, Verdict: v})
		}
	}
	return out, nil
}

// unsettled selects the messages RecoverInterrupted settles: in flight when
// the office stopped, or held at run time (Hold).
const unsettled = `(in_flight = 1 OR (interrupted = 1 AND set_aside = 0))`

// SetAsideHeld sets aside m, held at run time (Hold), once the agent's
// process it was typed into has ended (the agent was restarted): nothing of
// it can still wait unread in an input, so it no longer holds its agent's
// queue; it may or may not have arrived, so it waits for the person (release
// or remove) as a message set aside at recovery does. It logs "interrupted"
// with evidence.
//
// m is the message as the caller read it (Head) and decided on: it is set
// aside in one conditional write only if it is still queued, still held and
// not set aside, not in flight, from the same typing (its Writing stamp).
// Otherwise nothing is written and the error is ErrNotFound: the person
// removed or released it meanwhile (or it was typed again since), so the
// caller must not report it set aside.
func (s *Store) SetAsideHeld(ctx context.Context, m Message, evidence string) error {
	op := fmt.Sprintf("set aside held message %d", m.ID)
	if m.Writing.IsZero() {
		return opErr(op, fmt.Errorf("%w: it was never typed", ErrNotFound))
	}
	return s.update(ctx, op, func(t *Tx) error {
		var agent string
		err := t.queryRow(`UPDATE messages SET set_aside = 1, evidence = ?
			WHERE id = ? AND interrupted = 1 AND set_aside = 0 AND in_flight = 0 AND writing = ?
			RETURNING agent`, evidence, m.ID, toNanos(m.Writing)).Scan(&agent)
		if errors.Is(err, sql.ErrNoRows) {
			return opErr(op, fmt.Errorf("%w: not held from the typing it was read in (removed, released or typed again since)", ErrNotFound))
		}
		if err != nil {
			return opErr(op, err)
		}
		return t.appendEvent(Event{Agent: agent, MsgID: m.ID, Kind: EventInterrupted,
			Detail: "held (the agent drew nothing after it), then its process ended; set aside until released or removed: " + evidence})
	})
}

// SetAside sets aside message id while the drain settles its attempt: it
// was typed and no evidence settles whether it arrived (the agent's process
// exited before the submit was seen, and its CLI's records cannot tell), so
// it is neither typed again on its own nor holds its agent's queue; it waits
// for the person (release or remove), as one set aside at recovery does.
// evidence says what is known (Evidence, `office queue`); it logs
// "interrupted". Only a message still in flight and not set aside changes;
// else nothing is written and the error is ErrNotFound (the person removed
// it meanwhile). Returns once durable.
func (s *Store) SetAside(ctx context.Context, id int64, evidence string) error {
	op := fmt.Sprintf("set aside message %d", id)
	return s.update(ctx, op, func(t *Tx) error {
		var agent string
		err := t.queryRow(`UPDATE messages SET in_flight = 0, interrupted = 1, set_aside = 1, evidence = ?
			WHERE id = ? AND in_flight = 1 AND set_aside = 0 RETURNING agent`, evidence, id).Scan(&agent)
		if errors.Is(err, sql.ErrNoRows) {
			return opErr(op, fmt.Errorf("%w: not in flight", ErrNotFound))
		}
		if err != nil {
			return opErr(op, err)
		}
		return t.appendEvent(Event{Agent: agent, MsgID: id, Kind: EventInterrupted,
			Detail: "set aside until released or removed: " + evidence})
	})
}

// settle applies one verdict, if the message is still unsettled and as m
// was read (the same typing, not released or set aside since: a release
// that changed no other field still counts, by PersonRev), and reports
// whether it did; what says how it came to be unsettled, for the event log.
func (s *Store) settle(ctx context.Context, m Message, v Verdict, what string) (changed bool, err error) {
	op := fmt.Sprintf("recover interrupted message %d", m.ID)
	err = s.update(ctx, op, func(t *Tx) error {
		changed = false
		var n int
		err := t.queryRow(`SELECT COUNT(*) FROM messages WHERE id = ? AND `+unsettled+`
			AND last_attempt = ? AND writing = ? AND interrupted = ? AND set_aside = ? AND manual = ? AND person_rev = ?`,
			m.ID, toNanos(m.LastAttempt), toNanos(m.Writing), boolInt(m.Interrupted), boolInt(m.SetAside), boolInt(m.Manual), m.PersonRev).Scan(&n)
		if err != nil {
			return opErr(op, err)
		}
		if n == 0 {
			return nil
		}
		changed = true
		switch v.Settle {
		case SettleDelivered:
			// Unconfirmed, as the log read such rows before it kept a
			// state: settled from what the store kept at a start.
			if _, err := t.deleteMsgAs(m.ID, Event{Kind: EventDelivered, Detail: "after " + what + ": received, evidence=" + v.Evidence,
				State: StateUnconfirmed}); err != nil {
				return opErr(op, err)
			}
			if v.Received != nil {
				if err := v.Received(t); err != nil {
					return opErr(op, err)
				}
			}
			return nil
		case SettleRetry:
			if _, err := t.exec(`UPDATE messages SET in_flight = 0, interrupted = 0, writing = 0, entered = 0, evidence = ? WHERE id = ?`, v.Evidence, m.ID); err != nil {
				return opErr(op, err)
			}
			return t.appendEvent(Event{Agent: m.Agent, MsgID: m.ID, Kind: EventInterrupted,
				Detail: what + "; delivered again: " + v.Evidence})
		}
		if _, err := t.exec(`UPDATE messages SET in_flight = 0, interrupted = 1, set_aside = 1, evidence = ? WHERE id = ?`, v.Evidence, m.ID); err != nil {
			return opErr(op, err)
		}
		return t.appendEvent(Event{Agent: m.Agent, MsgID: m.ID, Kind: EventInterrupted,
			Detail: what + "; set aside until released or removed: " + v.Evidence})
	})
	return changed && err == nil, err
}

// Entering records, durably, that the first Enter of message id's attempt is
// about to be written. A stop before it proves the text was never submitted
// by office: it sat on the agent's prompt, and the agent's process goes with
// the office's terminals. ErrNotFound if the message is not queued.
func (s *Store) Entering(ctx context.Context, id int64) error {
	op := fmt.Sprintf("entering message %d", id)
	return s.update(ctx, op, func(t *Tx) error {
		res, err := t.exec(`UPDATE messages SET entered = ? WHERE id = ?`, toNanos(t.now), id)
		if err != nil {
			return opErr(op, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return opErr(op, ErrNotFound)
		}
		return nil
	})
}

// Writing records, durably, that typing message id is about to begin: the
// drain calls it after Attempt and right before the first byte. A stop
// before it proves nothing of the attempt was typed. ErrNotFound if the
// message is not queued.
func (s *Store) Writing(ctx context.Context, id int64) error {
	op := fmt.Sprintf("writing message %d", id)
	return s.update(ctx, op, func(t *Tx) error {
		res, err := t.exec(`UPDATE messages SET writing = ? WHERE id = ?`, toNanos(t.now), id)
		if err != nil {
			return opErr(op, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return opErr(op, ErrNotFound)
		}
		return nil
	})
}

// Handing records, durably, that message id, stamped with Attempt, is
// handed over through its CLI's turn-end hook (docs/channels.md) instead of
// typed: the channel's "writing begins" and "the Enter is next" at once
// (the answer that hands it over is its one write, and it submits itself),
// and an "handed" event naming channel. The caller writes the answer only
// after it returned: a stop before it proves nothing was handed over; a stop
// after it leaves the message to RecoverInterrupted, as a typed one whose
// Enter began. ErrNotFound if the message is not queued.
func (s *Store) Handing(ctx context.Context, id int64, channel string) error {
	op := fmt.Sprintf("handing message %d", id)
	return s.update(ctx, op, func(t *Tx) error {
		var agent string
		err := t.queryRow(`UPDATE messages SET writing = ?, entered = ? WHERE id = ? AND in_flight = 1 RETURNING agent`,
			toNanos(t.now), toNanos(t.now), id).Scan(&agent)
		if errors.Is(err, sql.ErrNoRows) {
			return opErr(op, ErrNotFound)
		}
		if err != nil {
			return opErr(op, err)
		}
		return t.appendEvent(Event{Agent: agent, MsgID: id, Kind: EventHanded, Detail: channel})
	})
}

// Unattempt records that an attempt stamped with Attempt was abandoned with
// nothing of it taken by the agent (before anything was typed: the agent got
// busy, a draft appeared; or typed into a process that exited before any
// Enter): the message is no longer in flight, so a later stop of the office
// does not mark it interrupted. It logs "attempt_abandoned" with why ("" is
// "nothing typed"). ErrNotFound if the message is not queued. Returns once
// durable.
func (s *Store) Unattempt(ctx context.Context, id int64, why string) error {
	return s.update(ctx, fmt.Sprintf("abandon attempt on message %d", id), func(t *Tx) error { return t.Unattempt(id, why) })
}

// Unattempt is Store.Unattempt inside t.
func (t *Tx) Unattempt(id int64, why string) error {
	if why == "" {
		why = "nothing typed"
	}
	op := fmt.Sprintf("abandon attempt on message %d", id)
	var agent string
	err := t.queryRow(`UPDATE messages SET in_flight = 0, writing = 0, entered = 0 WHERE id = ? RETURNING agent`, id).Scan(&agent)
	if errors.Is(err, sql.ErrNoRows) {
		return opErr(op, ErrNotFound)
	}
	if err != nil {
		return opErr(op, err)
	}
	if err := t.appendEvent(Event{Agent: agent, MsgID: id, Kind: EventAttemptAbandoned, Detail: why}); err != nil {
		return opErr(op, err)
	}
	return nil
}

// Hold marks message id Interrupted with reason, as RecoverInterrupted does
// after a stop: its text may have reached the agent without showing, so it is
// held until the person releases or removes it. It is not set aside: it stays
// its agent's head (Head returns it), so nothing behind it is delivered
// meanwhile. reason becomes its Evidence (what `office queue` shows; Release
// clears it) and the "interrupted" event's detail. ErrNotFound if the
// message is not queued. Returns once durable.
func (s *Store) Hold(ctx context.Context, id int64, reason string) error {
	return s.update(ctx, fmt.Sprintf("hold message %d", id), func(t *Tx) error {
		op := fmt.Sprintf("hold message %d", id)
		var agent string
		err := t.queryRow(`UPDATE messages SET interrupted = 1, in_flight = 0, evidence = ? WHERE id = ? RETURNING agent`, reason, id).Scan(&agent)
		if errors.Is(err, sql.ErrNoRows) {
			return opErr(op, ErrNotFound)
		}
		if err != nil {
			return opErr(op, err)
		}
		return t.appendEvent(Event{Agent: agent, MsgID: id, Kind: EventInterrupted, Detail: reason})
	})
}
