package inbox

// deliver.go turns pending items into deliveries: one queued "inbox" message
// per agent (Schedule), leased and rendered in the attempt's transaction
// (LeaseTx), marked delivered in the acknowledgement's (AckTx), released when
// the message is dropped or the office crashed (ReleaseTx,
// ReleaseAllLeases).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"office/queue"
)

// Precondition is the queue precondition of an inbox delivery message.
const Precondition = "inbox not empty"

// placeholder is an inbox delivery's text until it is rendered at attempt
// time. It is multi-line, like every rendered batch, so the drain's typing
// plan (paste or hold) is the same before and after rendering.
func placeholder(n int) string {
	return fmt.Sprintf("[office] inbox delivery: %d item(s) pending\n(rendered when it is typed)", n)
}

const itemCols = `seq, id, receiver, sender, kind, body, dedupe, state, lease_msg, attempts, created, updated, delivered`

func scanItem(r interface{ Scan(...any) error }) (Item, error) {
	var it Item
	var created, updated, delivered int64
	err := r.Scan(&it.Seq, &it.ID, &it.Receiver, &it.Sender, &it.Kind, &it.Body, &it.DedupeKey, &it.State,
		&it.LeaseMsg, &it.Attempts, &created, &updated, &delivered)
	if err != nil {
		return Item{}, err
	}
	it.Created, it.Updated, it.Delivered = fromNanos(created), fromNanos(updated), fromNanos(delivered)
	return it, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// items lists items matching where, in seq order, with their mail attached.
func items(ctx context.Context, q querier, where string, args ...any) ([]Item, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+itemCols+` FROM inbox_items WHERE `+where+` ORDER BY seq`, args...)
	if err != nil {
		return nil, err
	}
	var out []Item
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, it)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Kind != KindMail {
			continue
		}
		m, err := getMail(ctx, q, out[i].ID)
		if err != nil {
			return nil, err
		}
		out[i].Mail = &m
	}
	return out, nil
}

// Schedule makes sure every agent with pending items has one inbox delivery
// queued (at most one per agent: the queue refuses a second), and releases
// leases whose queue message is gone (removed or cleared by the person). It
// returns the agents it queued a delivery for. Items to the person, and to
// agents that are removed or unknown, are not scheduled.
//
// Its cost does not grow with the backlog: it first asks, with reads only,
// whether there is anything to do (index lookups per agent and per leased
// item, never a scan of every pending item), and takes the write lock only
// when there is.
func (s *Service) Schedule(ctx context.Context) ([]string, error) {
	if work, err := scheduleWork(ctx, s.store.DB()); err != nil {
		return nil, fmt.Errorf("inbox: schedule deliveries: %w", err)
	} else if !work {
		return nil, nil
	}
	var queued []string
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		queued = nil
		if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, lease_msg = 0, updated = ?
			WHERE seq IN (`+orphanLeases+`)`, StatePending, toNanos(tx.Now()), StateLeased); err != nil {
			return err
		}
		if err := s.unclaimOrphans(tx); err != nil {
			return err
		}
		rows, err := tx.SQL().QueryContext(tx.Context(), needDelivery, StatePending, string(queue.KindInbox))
		if err != nil {
			return err
		}
		var ws []string
		for rows.Next() {
			var w string
			if err := rows.Scan(&w); err != nil {
				rows.Close()
				return err
			}
			ws = append(ws, w)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, w := range ws {
			ok, err := scheduleTx(tx, w)
			if err != nil {
				return err
			}
			if ok {
				queued = append(queued, w)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("inbox: schedule deliveries: %w", err)
	}
	return queued, nil
}

// scheduleTx queues, inside tx, the inbox delivery of agent's pending items
// and reports whether it did: not when it has none pending, already has a
// delivery queued, or is no receiver here (removed, run elsewhere).
func scheduleTx(tx *queue.Tx, agent string) (bool, error) {
	var n int
	if err := tx.SQL().QueryRowContext(tx.Context(), `SELECT count(*) FROM inbox_items WHERE receiver = ? AND state = ?`,
		agent, StatePending).Scan(&n); err != nil {
		return false, err
	}
	if n == 0 {
		return false, nil
	}
	_, err := tx.Enqueue(agent, placeholder(n), queue.EnqueueOptions{Kind: queue.KindInbox, Precondition: Precondition, Source: SourceInbox})
	if errors.Is(err, queue.ErrDuplicate) || errors.Is(err, queue.ErrUnknownAgent) {
		return false, nil
	}
	return err == nil, err
}

// The queries of Schedule. Each is bounded by the number of agents and of
// leased items (at most one delivery's batch per agent), whatever the number
// of pending items: they look items up by (receiver, state) and messages by
// (agent, kind) and id.
const (
	// orphanLeases: the seq of every leased item whose delivery message is
	// gone (args: StateLeased). Only registered agents' items are ever
	// leased. CROSS JOIN keeps SQLite's planner from scanning every item
	// instead of looking each agent's leased ones up.
	orphanLeases = `SELECT i.seq FROM agents a CROSS JOIN inbox_items i ON i.receiver = a.name AND i.state = ?
		WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = i.lease_msg)`
	// needDelivery: the agents (not removed, not run elsewhere:
	// queue.AgentRecord.Elsewhere) with a pending item and no pending inbox
	// delivery (args: StatePending, queue.KindInbox).
	needDelivery = `SELECT a.name FROM agents a WHERE a.removed = 0 AND a.elsewhere = ''
		AND EXISTS (SELECT 1 FROM inbox_items i WHERE i.receiver = a.name AND i.state = ?)
		AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.agent = a.name AND m.kind = ?)
		ORDER BY a.name`
	// claimedOrphans: claimed mail whose item is pending again (args:
	// MailClaimed, StatePending).
	claimedOrphans = `mail.state = ? AND EXISTS (SELECT 1 FROM inbox_items i WHERE i.id = mail.id AND i.state = ?)`
)

// scheduleWork reports whether Schedule has anything to do, with reads only.
func scheduleWork(ctx context.Context, db *sql.DB) (bool, error) {
	var work int
	err := db.QueryRowContext(ctx, `SELECT EXISTS (`+orphanLeases+`)
		OR EXISTS (`+needDelivery+`)
		OR EXISTS (SELECT 1 FROM mail WHERE `+claimedOrphans+`)`,
		StateLeased, StatePending, string(queue.KindInbox), MailClaimed, StatePending).Scan(&work)
	return work != 0, err
}

// unclaimOrphans moves claimed mail whose item is pending again back to
// queued.
func (s *Service) unclaimOrphans(tx *queue.Tx) error {
	ms, err := mailWhere(tx, claimedOrphans, MailClaimed, StatePending)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if _, err := s.setMailState(tx, m, MailQueued, "lease released"); err != nil {
			return err
		}
	}
	return nil
}

// Deliverable is the precondition of inbox delivery message msgID for agent:
// the agent has pending items, or items leased by this very message.
func (s *Service) Deliverable(ctx context.Context, agent string, msgID int64) (bool, error) {
	var n int
	err := s.store.DB().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM inbox_items WHERE receiver = ? AND state = ?)
		OR EXISTS (SELECT 1 FROM inbox_items WHERE receiver = ? AND state = ? AND lease_msg = ?)`,
		agent, StatePending, agent, StateLeased, msgID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("inbox: precondition for %q: %w", agent, err)
	}
	return n != 0, nil
}

// LeaseTx, inside the transaction that stamps the attempt of inbox delivery
// msgID for agent, leases the batch to deliver (the items this message
// already leased and then pending ones, in send order, at most
// Options.BatchItems / BatchBytes), moves their mail queued -> claimed, and
// returns the rendered text and the number of items. Items this message had
// leased that no longer fit are released. With nothing to deliver it returns
// ErrNothingPending (the caller rolls back).
func (s *Service) LeaseTx(tx *queue.Tx, msgID int64, agent string) (string, int, error) {
	op := fmt.Sprintf("inbox: lease for message %d (%q)", msgID, agent)
	cands, err := items(tx.Context(), tx.SQL(), `receiver = ? AND (state = ? OR (state = ? AND lease_msg = ?))`,
		agent, StatePending, StateLeased, msgID)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", op, err)
	}
	if len(cands) == 0 {
		return "", 0, fmt.Errorf("%s: %w", op, ErrNothingPending)
	}
	text, n := Batch(cands, s.opts.BatchItems, s.opts.BatchBytes)
	now := toNanos(tx.Now())
	for i, it := range cands {
		if i >= n {
			if it.State == StateLeased {
				if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, lease_msg = 0, updated = ? WHERE seq = ?`,
					StatePending, now, it.Seq); err != nil {
					return "", 0, fmt.Errorf("%s: %w", op, err)
				}
			}
			continue
		}
		if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, lease_msg = ?, attempts = attempts + 1, updated = ? WHERE seq = ?`,
			StateLeased, msgID, now, it.Seq); err != nil {
			return "", 0, fmt.Errorf("%s: %w", op, err)
		}
		if it.Mail != nil && it.Mail.State == MailQueued {
			if _, err := s.setMailState(tx, *it.Mail, MailClaimed, fmt.Sprintf("leased into delivery %d", msgID)); err != nil {
				return "", 0, fmt.Errorf("%s: %w", op, err)
			}
		}
	}
	if err := s.unclaimOrphans(tx); err != nil {
		return "", 0, fmt.Errorf("%s: %w", op, err)
	}
	if err := tx.AppendEvent(queue.Event{Agent: agent, MsgID: msgID, Kind: EventInboxLeased, Detail: fmt.Sprintf("%d item(s)", n)}); err != nil {
		return "", 0, fmt.Errorf("%s: %w", op, err)
	}
	return text, n, nil
}

// AckTx, inside the transaction that acknowledges inbox delivery msgID,
// marks the items it leased delivered and moves their mail claimed ->
// working. It returns the items delivered (none if the message leased
// nothing).
func (s *Service) AckTx(tx *queue.Tx, msgID int64) ([]Item, error) {
	op := fmt.Sprintf("inbox: acknowledge message %d", msgID)
	its, err := items(tx.Context(), tx.SQL(), `state = ? AND lease_msg = ?`, StateLeased, msgID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if len(its) == 0 {
		return nil, nil
	}
	now := toNanos(tx.Now())
	if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, delivered = ?, updated = ? WHERE state = ? AND lease_msg = ?`,
		StateDelivered, now, now, StateLeased, msgID); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	for _, it := range its {
		if it.Mail != nil && it.Mail.State == MailClaimed {
			if _, err := s.setMailState(tx, *it.Mail, MailWorking, fmt.Sprintf("typed in by delivery %d", msgID)); err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
		}
	}
	if err := tx.AppendEvent(queue.Event{Agent: its[0].Receiver, MsgID: msgID, Kind: EventInboxDelivered, Detail: fmt.Sprintf("%d item(s)", len(its))}); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return its, nil
}

// RemoveTx is the person's `office queue rm` of message id inside tx
// (queue.Tx.Remove), returning the inbox items it marked delivered. For an
// inbox delivery that was typed and held (interrupted: typed, not
// confirmed, or set aside after a stop) the removal means "it arrived, or
// drop it": its items are acknowledged (AckTx) in the same transaction, done
// and never delivered again, instead of being left leased to a message
// that is gone (which Schedule would put back to pending and type again).
// An inbox delivery never typed keeps today's rule: its items are scheduled
// again.
func (s *Service) RemoveTx(tx *queue.Tx, id int64, reason string) ([]Item, error) {
	m, gerr := tx.Get(id)
	if err := tx.Remove(id, reason); err != nil {
		return nil, err // the store's own words (not queued: ErrNotFound)
	}
	if gerr != nil {
		return nil, gerr
	}
	if m.Kind != queue.KindInbox || !m.Interrupted {
		return nil, nil
	}
	return s.AckTx(tx, id)
}

// Remove is RemoveTx in a transaction of its own. Returns once durable.
func (s *Service) Remove(ctx context.Context, id int64, reason string) ([]Item, error) {
	var its []Item
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		var err error
		its, err = s.RemoveTx(tx, id, reason)
		return err
	})
	return its, err
}

// ReleaseTx puts the items leased by msgID back to pending (the message was
// dropped or is being retried) and their mail back to queued.
func (s *Service) ReleaseTx(tx *queue.Tx, msgID int64, why string) (int, error) {
	op := fmt.Sprintf("inbox: release message %d", msgID)
	res, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, lease_msg = 0, updated = ? WHERE state = ? AND lease_msg = ?`,
		StatePending, toNanos(tx.Now()), StateLeased, msgID)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	n, _ := res.RowsAffected()
	if n == 0 {
		return 0, nil
	}
	if err := s.unclaimOrphans(tx); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if err := tx.AppendEvent(queue.Event{MsgID: msgID, Kind: EventInboxReleased, Detail: fmt.Sprintf("%d item(s): %s", n, why)}); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return int(n), nil
}

// ReleaseAllLeases puts every leased item back to pending, for an engine
// starting after a crash: a delivery that was typed but not acknowledged is
// delivered again (at least once), never lost. Items leased by a delivery
// still held (interrupted: typed, not confirmed, and set aside by recovery)
// stay leased to it: that delivery waits for the person, and `office queue
// rm` marks them done (RemoveTx), `release` types them again with it. Only
// the engine (which holds the state dir's lock) may call it, after
// queue.Store.RecoverInterrupted.
func (s *Service) ReleaseAllLeases(ctx context.Context) (int, error) {
	var n int64
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		res, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, lease_msg = 0, updated = ? WHERE state = ?
			AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = inbox_items.lease_msg AND m.interrupted = 1)`,
			StatePending, toNanos(tx.Now()), StateLeased)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		if n == 0 {
			return nil
		}
		if err := s.unclaimOrphans(tx); err != nil {
			return err
		}
		return tx.AppendEvent(queue.Event{Kind: EventInboxReleased, Detail: fmt.Sprintf("%d item(s) leased before a restart", n)})
	})
	if err != nil {
		return 0, fmt.Errorf("inbox: release leases: %w", err)
	}
	return int(n), nil
}

// GetItem returns item id (ErrNotFound if there is none).
func (s *Service) GetItem(ctx context.Context, id string) (Item, error) {
	its, err := items(ctx, s.store.DB(), `id = ?`, id)
	if err != nil {
		return Item{}, fmt.Errorf("inbox: item %s: %w", id, err)
	}
	if len(its) == 0 {
		return Item{}, fmt.Errorf("inbox: item %q: %w", id, both{ErrNotFound, queue.ErrNotFound})
	}
	return its[0], nil
}

// Items returns receiver's items in the given states (none given: pending
// and leased), in send order.
func (s *Service) Items(ctx context.Context, receiver string, states ...string) ([]Item, error) {
	if len(states) == 0 {
		states = []string{StatePending, StateLeased}
	}
	where := `receiver = ? AND state IN (?` + repeat(",?", len(states)-1) + `)`
	args := []any{receiver}
	for _, st := range states {
		args = append(args, st)
	}
	its, err := items(ctx, s.store.DB(), where, args...)
	if err != nil {
		return nil, fmt.Errorf("inbox: items of %q: %w", receiver, err)
	}
	return its, nil
}

// DeliveryItems returns the items inbox delivery msgID of agent carries or
// would carry at its next attempt: those leased to it and the agent's
// pending ones (the candidates LeaseTx takes its batch from), in send
// order. Items leased to another delivery are not among them.
func (s *Service) DeliveryItems(ctx context.Context, agent string, msgID int64) ([]Item, error) {
	its, err := items(ctx, s.store.DB(), `receiver = ? AND (state = ? OR (state = ? AND lease_msg = ?))`,
		agent, StatePending, StateLeased, msgID)
	if err != nil {
		return nil, fmt.Errorf("inbox: items of delivery %d (%q): %w", msgID, agent, err)
	}
	return its, nil
}

// Depths returns the number of undelivered (pending or leased) items per
// receiver.
func (s *Service) Depths(ctx context.Context) (map[string]int, error) {
	rows, err := s.store.DB().QueryContext(ctx, `SELECT receiver, count(*) FROM inbox_items WHERE state IN (?, ?) GROUP BY receiver`, StatePending, StateLeased)
	if err != nil {
		return nil, fmt.Errorf("inbox: depths: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var r string
		var n int
		if err := rows.Scan(&r, &n); err != nil {
			return nil, fmt.Errorf("inbox: depths: %w", err)
		}
		out[r] = n
	}
	return out, rows.Err()
}

// MarkRead marks the person's pending items up to and including seq as
// delivered (the person read them). It returns how many.
func (s *Service) MarkRead(ctx context.Context, uptoSeq int64) (int, error) {
	var n int64
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		now := toNanos(tx.Now())
		res, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, delivered = ?, updated = ? WHERE receiver = ? AND state = ? AND seq <= ?`,
			StateDelivered, now, now, Person, StatePending, uptoSeq)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		if n == 0 {
			return nil
		}
		return tx.AppendEvent(queue.Event{Agent: Person, Kind: EventInboxDelivered, Detail: fmt.Sprintf("%d item(s) read by the person", n)})
	})
	if err != nil {
		return 0, fmt.Errorf("inbox: mark read: %w", err)
	}
	return int(n), nil
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
