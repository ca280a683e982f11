package inbox

// mail.go is the mail envelope (seed 004): the system owns its state, the
// model only reads and replies. States: queued -> claimed (leased into a
// delivery) -> working (typed in) -> done | failed, plus cancelled. Terminal
// states are final. Every transition writes a timeline row and an event in
// the transaction that makes it.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"office/queue"
)

// Mail types.
const (
	// MailInform is done when the receiving agent's turn ends.
	MailInform = "inform"
	// MailRequest is done only if its receiver replied (the reply gate).
	MailRequest = "request"
)

// MailState is where a mail envelope is in its life; it moves only along
// mailMoves.
type MailState string

// Mail states.
const (
	// MailQueued: stored, its item waiting for a delivery.
	MailQueued MailState = "queued"
	// MailClaimed: its item is leased into a delivery being typed.
	MailClaimed MailState = "claimed"
	// MailWorking: typed in and submitted; the receiver's turn runs.
	MailWorking MailState = "working"
	// MailDone: final; inform mail whose turn ended, or a request answered.
	MailDone MailState = "done"
	// MailFailed: final, with a Reason* reason; the sender was told.
	MailFailed MailState = "failed"
	// MailCancelled: final; its sender or the person cancelled it.
	MailCancelled MailState = "cancelled"
)

// mailMoves is the transition table: the states each state may move to.
// Final states move nowhere.
var mailMoves = map[MailState][]MailState{
	// leased into a delivery; failed when its receiver cannot start, is
	// removed, or it is a dead letter; cancelled by its sender or the person
	MailQueued: {MailClaimed, MailFailed, MailCancelled},
	// typed in; back to queued when its lease is released; failed or
	// cancelled as from queued
	MailClaimed: {MailWorking, MailQueued, MailFailed, MailCancelled},
	// its turn ended (done, or failed by the reply gate) or its deadline
	// passed (failed)
	MailWorking:   {MailDone, MailFailed},
	MailDone:      nil,
	MailFailed:    nil,
	MailCancelled: nil,
}

// CanMove reports whether a mail in state s may move to state to.
func (s MailState) CanMove(to MailState) bool {
	for _, t := range mailMoves[s] {
		if t == to {
			return true
		}
	}
	return false
}

// Final reports whether s is a terminal state (done, failed, cancelled).
func (s MailState) Final() bool {
	moves, known := mailMoves[s]
	return known && len(moves) == 0
}

// ParseMailState returns the state named by name (any case); ok is false
// for a name that is no mail state.
func ParseMailState(name string) (MailState, bool) {
	s := MailState(strings.ToLower(name))
	_, ok := mailMoves[s]
	return s, ok
}

// Reasons a mail failed.
const (
	// ReasonNoReply: a request's turn ended with no reply (the reply gate).
	ReasonNoReply = "no_reply_found"
	// ReasonTimeout: working longer than its deadline.
	ReasonTimeout = "timeout"
	// ReasonSpawnFailed: its receiver's process could not be started.
	ReasonSpawnFailed = "spawn_failed"
	// ReasonUndelivered: never delivered within Options.Retention (a dead letter).
	ReasonUndelivered = "undelivered"
	// ReasonRemoved: its receiver left the team before it was delivered.
	ReasonRemoved = "receiver_removed"
)

// Mail is one envelope.
type Mail struct {
	ID        string    `json:"id"`
	Sender    string    `json:"sender"`
	Receiver  string    `json:"receiver"`
	Type      string    `json:"type"`
	Title     string    `json:"title"`
	InReplyTo string    `json:"in_reply_to,omitempty"`
	State     MailState `json:"state"`
	// Reason says why it failed or was cancelled.
	Reason string `json:"reason,omitempty"`
	// Deadline is how long it may stay working; 0 means the office's
	// mail_timeout, applied by the engine's ticker (Options.MailDeadline of
	// the Service that ticks), so mail sent from any process follows the
	// office file.
	Deadline  time.Duration `json:"deadline_ns"`
	Created   time.Time     `json:"created"`
	WorkingAt time.Time     `json:"working_at,omitzero"`
	// FinishedAt is when it reached a terminal state.
	FinishedAt time.Time `json:"finished_at,omitzero"`
	createdSeq int64
	workingSeq int64
}

// TimelineEntry is one step of a mail's history.
type TimelineEntry struct {
	At     time.Time `json:"at"`
	State  MailState `json:"state"`
	Detail string    `json:"detail,omitempty"`
}

// MailRequestArgs is one mail to send.
type MailRequestArgs struct {
	To    string
	From  string // an agent, or Person ("" means Person)
	Title string
	Text  string
	// Request asks for a reply (the reply gate applies).
	Request bool
	// InReplyTo names the mail this one answers.
	InReplyTo string
	// Deadline overrides the office's mail deadline; 0 leaves it to the
	// ticking Service (see Mail.Deadline).
	Deadline time.Duration
	// ID is the envelope's ULID; "" makes a fresh one. A clustered office
	// gives it so both hosts of a crossing mail know it by one id.
	ID string
	// Remote stores the envelope only, with no inbox item and no check of
	// the receiver: the receiver lives on another host, which delivers it
	// and sends its state changes back (package cluster).
	Remote bool
	// clip cuts a title past Options.MailTitleBytes instead of refusing it
	// (a reply's "Re: TITLE", which its sender did not write).
	clip bool
}

// clipBytes cuts s to at most n bytes, at a rune boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

const mailCols = `id, sender, receiver, type, title, in_reply_to, state, reason, deadline, created, created_seq, working_at, working_seq, finished_at`

func scanMail(r interface{ Scan(...any) error }) (Mail, error) {
	var m Mail
	var deadline, created, working, finished int64
	err := r.Scan(&m.ID, &m.Sender, &m.Receiver, &m.Type, &m.Title, &m.InReplyTo, &m.State, &m.Reason,
		&deadline, &created, &m.createdSeq, &working, &m.workingSeq, &finished)
	if err != nil {
		return Mail{}, err
	}
	m.Deadline, m.Created, m.WorkingAt, m.FinishedAt = time.Duration(deadline), fromNanos(created), fromNanos(working), fromNanos(finished)
	return m, nil
}

// SendMail stores a mail envelope and its inbox item (same id) and returns
// the id, once durable. The receiver must exist; title and text must not be
// blank. A reply (InReplyTo set) to a mail whose state is final is still
// delivered; the original's timeline notes it as late.
func (s *Service) SendMail(ctx context.Context, a MailRequestArgs) (string, error) {
	var id string
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		var err error
		id, err = s.SendMailTx(tx, a)
		return err
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// SendMailTx is SendMail inside tx.
func (s *Service) SendMailTx(tx *queue.Tx, a MailRequestArgs) (string, error) {
	if a.From == "" {
		a.From = Person
	}
	op := fmt.Sprintf("inbox: mail from %q to %q", a.From, a.To)
	text, err := cleanBody(a.Text)
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	title, err := cleanBody(a.Title)
	if err != nil {
		return "", fmt.Errorf("%s: title: %w", op, err)
	}
	title = oneLine(title)
	if limit := s.opts.MailTitleBytes; len(title) > limit {
		if !a.Remote && !a.clip {
			return "", fmt.Errorf("%s: title: %w: %d bytes, at most %d (mail_title_bytes; put the rest in the text)", op, ErrTooLarge, len(title), limit)
		}
		// A reply's "Re: " title, or the envelope of mail for another
		// host: cut, not refused (the sender's door applied its bound).
		title = clipBytes(title, limit)
	}
	if !a.Remote {
		if err := checkReceiver(tx, a.To); err != nil {
			return "", fmt.Errorf("%s: %w", op, err)
		}
		if err := checkRunHere(tx, a); err != nil {
			return "", fmt.Errorf("%s: %w", op, err)
		}
	}
	typ := MailInform
	if a.Request {
		typ = MailRequest
	}
	deadline := max(a.Deadline, 0)
	now := tx.Now()
	id := a.ID
	if id == "" {
		id = s.newID(now)
	}
	if !a.Remote {
		if _, _, err := s.insertItem(tx, id, a.To, a.From, KindMail, text, ""); err != nil {
			return "", fmt.Errorf("%s: %w", op, err)
		}
	}
	if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO mail (id, sender, receiver, type, title, in_reply_to, state, deadline, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, a.From, a.To, typ, title, a.InReplyTo, MailQueued, int64(deadline), toNanos(now)); err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	seq, err := s.timeline(tx, id, MailQueued, fmt.Sprintf("%s from %s to %s", typ, a.From, a.To))
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE mail SET created_seq = ? WHERE id = ?`, seq, id); err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	if a.InReplyTo != "" {
		orig, err := getMail(tx.Context(), tx.SQL(), a.InReplyTo)
		if err == nil {
			note := "reply " + id + " from " + a.From
			if orig.State.Final() {
				note = "late reply " + id + " from " + a.From + " (state already " + string(orig.State) + ")"
			}
			if _, err := s.timeline(tx, orig.ID, orig.State, note); err != nil {
				return "", fmt.Errorf("%s: %w", op, err)
			}
		} else if !errors.Is(err, ErrNotFound) {
			return "", fmt.Errorf("%s: %w", op, err)
		}
	}
	return id, nil
}

// Reply sends inform mail titled "Re: TITLE" from `from` to the sender of
// request id, with in_reply_to = id, and returns the reply's id. Only the
// request's receiver may reply (ErrNotAllowed); an unknown id is
// ErrNotFound. A reply to mail already done or failed is still sent (it is
// noted on the timeline as late).
func (s *Service) Reply(ctx context.Context, from, id, text string) (string, error) {
	var rid string
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		orig, err := getMail(tx.Context(), tx.SQL(), id)
		if err != nil {
			return fmt.Errorf("inbox: reply to %s: %w", id, err)
		}
		if from == "" {
			from = Person
		}
		if from != orig.Receiver {
			return fmt.Errorf("inbox: reply to %s: %w: it was sent to %s, not %s", id, ErrNotAllowed, orig.Receiver, from)
		}
		rid, err = s.SendMailTx(tx, MailRequestArgs{To: orig.Sender, From: from, Title: "Re: " + orig.Title, Text: text, InReplyTo: id, clip: true})
		return err
	})
	if err != nil {
		return "", err
	}
	return rid, nil
}

// Cancel cancels queued or claimed mail (its item becomes dead, never
// typed). Only its sender or the person may (ErrNotAllowed); working or
// final mail is ErrFinal. Mail that crossed to another host is cancelled
// there (see CancelMail).
func (s *Service) Cancel(ctx context.Context, by, id string) error {
	_, err := s.CancelMail(ctx, by, id)
	return err
}

// CancelMail is Cancel that says where the cancel went.
func (s *Service) CancelMail(ctx context.Context, by, id string) (Cancelled, error) {
	var c Cancelled
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		var err error
		c, err = s.CancelTx(tx, by, id)
		return err
	})
	return c, err
}

// CancelTx is CancelMail inside tx.
func (s *Service) CancelTx(tx *queue.Tx, by, id string) (Cancelled, error) {
	m, err := getMail(tx.Context(), tx.SQL(), id)
	if err != nil {
		return Cancelled{}, fmt.Errorf("inbox: cancel %s: %w", id, err)
	}
	if by == "" {
		by = Person
	}
	if by != m.Sender && by != Person {
		return Cancelled{}, fmt.Errorf("inbox: cancel %s: %w: only %s or the person may", id, ErrNotAllowed, m.Sender)
	}
	if m.State != MailQueued && m.State != MailClaimed {
		return Cancelled{}, fmt.Errorf("inbox: cancel %s: %w (it is %s)", id, ErrFinal, m.State)
	}
	if s.remote != nil {
		host, err := s.remote.Cancel(tx, m, by)
		if err != nil {
			return Cancelled{}, fmt.Errorf("inbox: cancel %s: %w", id, err)
		}
		if host != "" {
			if _, err := s.timeline(tx, m.ID, m.State, "cancel by "+by+" sent to host "+host); err != nil {
				return Cancelled{}, fmt.Errorf("inbox: cancel %s: %w", id, err)
			}
			return Cancelled{Host: host}, nil
		}
	}
	if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, lease_msg = 0, updated = ? WHERE id = ? AND state IN (?, ?)`,
		StateDead, toNanos(tx.Now()), id, StatePending, StateLeased); err != nil {
		return Cancelled{}, fmt.Errorf("inbox: cancel %s: %w", id, err)
	}
	if _, err := s.setMailState(tx, m, MailCancelled, "cancelled by "+by); err != nil {
		return Cancelled{}, err
	}
	return Cancelled{}, nil
}

// getMail reads one envelope.
func getMail(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (Mail, error) {
	m, err := scanMail(q.QueryRowContext(ctx, `SELECT `+mailCols+` FROM mail WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Mail{}, fmt.Errorf("mail %q: %w", id, both{ErrNotFound, queue.ErrNotFound})
	}
	return m, err
}

// timeline appends a timeline row and returns its seq.
func (s *Service) timeline(tx *queue.Tx, id string, state MailState, detail string) (int64, error) {
	res, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO mail_timeline (mail_id, at, state, detail) VALUES (?, ?, ?, ?)`,
		id, toNanos(tx.Now()), state, detail)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// setMailState moves m to state (with reason for failed/cancelled) if m is
// not final, writing the timeline row and an event. It reports whether it
// changed anything: a final mail is left as it is. A move the transition
// table does not have is an error and writes nothing.
func (s *Service) setMailState(tx *queue.Tx, m Mail, state MailState, reason string) (bool, error) {
	return s.moveMail(tx, m, state, reason, false)
}

// moveMail is setMailState; force allows any move out of a state that is
// not final (a state another host reports, which may skip steps).
func (s *Service) moveMail(tx *queue.Tx, m Mail, state MailState, reason string, force bool) (bool, error) {
	if m.State.Final() || (force && m.State == state) {
		return false, nil
	}
	if !force && !m.State.CanMove(state) {
		return false, fmt.Errorf("inbox: mail %s: no move %s -> %s", m.ID, m.State, state)
	}
	now := tx.Now()
	var res sql.Result
	var err error
	switch {
	case state.Final():
		res, err = tx.SQL().ExecContext(tx.Context(), `UPDATE mail SET state = ?, reason = ?, finished_at = ? WHERE id = ? AND state = ?`,
			state, reason, toNanos(now), m.ID, m.State)
	default:
		res, err = tx.SQL().ExecContext(tx.Context(), `UPDATE mail SET state = ? WHERE id = ? AND state = ?`, state, m.ID, m.State)
	}
	if err != nil {
		return false, fmt.Errorf("inbox: mail %s %s -> %s: %w", m.ID, m.State, state, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	seq, err := s.timeline(tx, m.ID, state, reason)
	if err != nil {
		return false, fmt.Errorf("inbox: mail %s timeline: %w", m.ID, err)
	}
	if state == MailWorking {
		if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE mail SET working_at = ?, working_seq = ? WHERE id = ?`, toNanos(now), seq, m.ID); err != nil {
			return false, fmt.Errorf("inbox: mail %s: %w", m.ID, err)
		}
	}
	detail := fmt.Sprintf("mail %s %s -> %s", m.ID, m.State, state)
	if reason != "" {
		detail += " (" + reason + ")"
	}
	if err := tx.AppendEvent(queue.Event{Agent: m.Receiver, Kind: EventMailState, Detail: detail, State: string(state)}); err != nil {
		return false, err
	}
	if s.remote != nil {
		if err := s.remote.MailMoved(tx, m, state, reason); err != nil {
			return false, fmt.Errorf("inbox: mail %s -> %s: %w", m.ID, state, err)
		}
	}
	return true, nil
}

// MoveTx applies inside tx a state that another host reports for the
// envelope id kept here (SendMailTx with Remote): a final envelope or an
// unknown id is left alone, failed tells the sender as a local failure
// does, and a report may skip states (it is the receiving host's truth).
// It reports whether the envelope changed.
func (s *Service) MoveTx(tx *queue.Tx, id string, state MailState, reason string) (bool, error) {
	if _, ok := mailMoves[state]; !ok {
		return false, fmt.Errorf("inbox: mail %s: %q is no mail state", id, state)
	}
	m, err := getMail(tx.Context(), tx.SQL(), id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if state == MailFailed {
		changed, err := s.moveMail(tx, m, MailFailed, reason, true)
		if err != nil || !changed {
			return changed, err
		}
		return true, s.tellSender(tx, m.Sender, MailFailedNotice(m, reason), "mail-failed:"+m.ID)
	}
	return s.moveMail(tx, m, state, reason, true)
}

// fail moves m to failed(reason) and tells its sender, in tx.
func (s *Service) fail(tx *queue.Tx, m Mail, reason string) (bool, error) {
	changed, err := s.setMailState(tx, m, MailFailed, reason)
	if err != nil || !changed {
		return changed, err
	}
	m.State = MailFailed
	if err := s.tellSender(tx, m.Sender, MailFailedNotice(m, reason), "mail-failed:"+m.ID); err != nil {
		return true, err
	}
	return true, nil
}

// tellSender sends a notification to sender when sender can receive one (an
// agent still in the team, or the person); otherwise it only logs.
func (s *Service) tellSender(tx *queue.Tx, sender, body, dedupe string) error {
	if sender == "" || sender == System {
		return nil
	}
	_, _, err := s.SendTx(tx, Message{To: sender, Kind: KindNotification, Body: body, DedupeKey: dedupe})
	if errors.Is(err, ErrUnknownReceiver) {
		s.log.Warn("notice not sent: the sender is gone", "sender", sender, "notice", preview(body))
		return nil
	}
	return err
}

// replyExists is the reply gate: a reply with in_reply_to = m.ID, from m's
// receiver to m's sender, stored after m was first leased into a delivery
// (its first claimed row: the earliest moment its text can have been typed).
// Not after it went working: an agent that answers at once replies while the
// drain still waits to confirm the Enter (the mail still claimed), and a
// delivery typed before a crash is claimed again after it, its reply already
// stored. A reply stored while the mail was only queued, never typed, does
// not count. Mail with no claimed row (moved by another host's report) falls
// back to when it went working.
func replyExists(tx *queue.Tx, m Mail) (bool, error) {
	var since int64
	if err := tx.SQL().QueryRowContext(tx.Context(), `SELECT coalesce(min(seq), 0) FROM mail_timeline WHERE mail_id = ? AND state = ?`,
		m.ID, MailClaimed).Scan(&since); err != nil {
		return false, err
	}
	if since == 0 {
		since = m.workingSeq
	}
	if since == 0 {
		return false, nil
	}
	var n int
	err := tx.SQL().QueryRowContext(tx.Context(), `SELECT count(*) FROM mail WHERE in_reply_to = ? AND sender = ? AND receiver = ? AND created_seq > ?`,
		m.ID, m.Receiver, m.Sender, since).Scan(&n)
	return n > 0, err
}

// Outcome is how one mail ended.
type Outcome struct {
	Mail   Mail
	State  MailState
	Reason string
}

// TurnEnded settles the working mail of agent whose turn just ended: inform
// mail is done; request mail is done if the reply gate passes, else
// failed(no_reply_found) and its sender is told. Mail already final is left
// alone. The write is retried Options.StateRetries times; after that the mail stays
// working and the ticker settles it by its deadline.
func (s *Service) TurnEnded(ctx context.Context, agent string) ([]Outcome, error) {
	return s.turnEnded(ctx, agent, "")
}

// turnEnded is TurnEnded; a turn that failed (failed: the CLI's error text)
// fails a request with no reply with that text (turnfail.go).
func (s *Service) turnEnded(ctx context.Context, agent, failed string) ([]Outcome, error) {
	var out []Outcome
	var err error
	for try := 0; try <= s.opts.StateRetries; try++ {
		out = nil
		err = s.store.Update(ctx, func(tx *queue.Tx) error {
			ms, err := mailWhere(tx, `receiver = ? AND state = ?`, agent, MailWorking)
			if err != nil {
				return err
			}
			for _, m := range ms {
				o, err := s.settleEnded(tx, m, failed)
				if err != nil {
					return err
				}
				if o != nil {
					out = append(out, *o)
				}
			}
			return nil
		})
		if err == nil || ctx.Err() != nil {
			break
		}
		s.log.Warn("settling mail at turn end failed; retrying", "agent", agent, "try", try+1, "err", err)
	}
	if err != nil {
		return nil, fmt.Errorf("inbox: turn end of %q: %w", agent, err)
	}
	return out, nil
}

// settle decides a working mail at a turn end (timedOut false) or at its
// deadline (timedOut true).
func (s *Service) settle(tx *queue.Tx, m Mail, timedOut bool) (*Outcome, error) {
	state, reason := MailDone, ""
	if m.Type == MailRequest {
		ok, err := replyExists(tx, m)
		if err != nil {
			return nil, err
		}
		if !ok {
			state, reason = MailFailed, ReasonNoReply
			if timedOut {
				reason = ReasonTimeout
			}
		}
	} else if timedOut {
		state, reason = MailFailed, ReasonTimeout
	}
	var changed bool
	var err error
	if state == MailFailed {
		changed, err = s.fail(tx, m, reason)
	} else {
		note := "turn ended"
		if timedOut {
			note = "reply found at the deadline check"
		}
		changed, err = s.setMailState(tx, m, state, note)
	}
	if err != nil || !changed {
		return nil, err
	}
	return &Outcome{Mail: m, State: state, Reason: reason}, nil
}

// mailWhere lists mail matching a WHERE clause, in creation order.
func mailWhere(tx *queue.Tx, where string, args ...any) ([]Mail, error) {
	rows, err := tx.SQL().QueryContext(tx.Context(), `SELECT `+mailCols+` FROM mail WHERE `+where+` ORDER BY created_seq`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Mail
	for rows.Next() {
		m, err := scanMail(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// FailUndeliverable ends every queued or claimed mail to agent as
// failed(reason) without passing working (seed 004: spawn_failed), kills
// its items and tells the senders.
func (s *Service) FailUndeliverable(ctx context.Context, agent, reason string) (int, error) {
	n := 0
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		n = 0
		ms, err := mailWhere(tx, `receiver = ? AND state IN (?, ?)`, agent, MailQueued, MailClaimed)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, lease_msg = 0, updated = ? WHERE id = ? AND state IN (?, ?)`,
				StateDead, toNanos(tx.Now()), m.ID, StatePending, StateLeased); err != nil {
				return err
			}
			changed, err := s.fail(tx, m, reason)
			if err != nil {
				return err
			}
			if changed {
				n++
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("inbox: fail mail to %q: %w", agent, err)
	}
	return n, nil
}

// GetMail returns mail id and its timeline.
func (s *Service) GetMail(ctx context.Context, id string) (Mail, []TimelineEntry, error) {
	db := s.store.DB()
	m, err := getMail(ctx, db, id)
	if err != nil {
		return Mail{}, nil, fmt.Errorf("inbox: show: %w", err)
	}
	rows, err := db.QueryContext(ctx, `SELECT at, state, detail FROM mail_timeline WHERE mail_id = ? ORDER BY seq`, id)
	if err != nil {
		return Mail{}, nil, fmt.Errorf("inbox: show %s: %w", id, err)
	}
	defer rows.Close()
	var tl []TimelineEntry
	for rows.Next() {
		var e TimelineEntry
		var at int64
		if err := rows.Scan(&at, &e.State, &e.Detail); err != nil {
			return Mail{}, nil, fmt.Errorf("inbox: show %s: %w", id, err)
		}
		e.At = fromNanos(at)
		tl = append(tl, e)
	}
	return m, tl, rows.Err()
}

// MailBody returns the text of mail id (its item's body).
func (s *Service) MailBody(ctx context.Context, id string) (string, error) {
	it, err := s.GetItem(ctx, id)
	if err != nil {
		return "", err
	}
	return it.Body, nil
}

// ListMail returns mail in creation order; state "" means every state.
func (s *Service) ListMail(ctx context.Context, state MailState) ([]Mail, error) {
	q := `SELECT ` + mailCols + ` FROM mail`
	var args []any
	if state != "" {
		q += ` WHERE state = ?`
		args = append(args, state)
	}
	rows, err := s.store.DB().QueryContext(ctx, q+` ORDER BY created_seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("inbox: list mail: %w", err)
	}
	defer rows.Close()
	var out []Mail
	for rows.Next() {
		m, err := scanMail(rows)
		if err != nil {
			return nil, fmt.Errorf("inbox: list mail: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// ValidMailState reports whether s names a mail state (any case).
func ValidMailState(s string) bool {
	_, ok := ParseMailState(s)
	return ok
}
