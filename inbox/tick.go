package inbox

// tick.go is the timer work: mail past its deadline (every mail_sweep) and
// retention. Each takes now, so tests drive them with any clock.

import (
	"context"
	"fmt"
	"time"

	"office/configs"
	"office/queue"
)

// Tick fails working mail past its deadline (elapsed since working >
// deadline; a mail sent without one has Options.MailDeadline): a request whose reply already exists (the reply gate passes)
// ends done instead, so a reply that races the ticker is never lost;
// everything else ends failed(timeout) and its sender is told. It returns
// the mail it settled.
func (s *Service) Tick(ctx context.Context, now time.Time) ([]Outcome, error) {
	var out []Outcome
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		out = nil
		ms, err := mailWhere(tx, `state = ? AND working_at > 0 AND working_at + (CASE WHEN deadline > 0 THEN deadline ELSE ? END) < ?`,
			MailWorking, int64(s.deadline), toNanos(now))
		if err != nil {
			return err
		}
		for _, m := range ms {
			o, err := s.settle(tx, m, true)
			if err != nil {
				return err
			}
			if o != nil {
				out = append(out, *o)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("inbox: deadline tick: %w", err)
	}
	return out, nil
}

// PurgeResult counts what Purge did.
type PurgeResult struct {
	// Deleted counts items deleted (delivered or dead, older than
	// Options.Retention); MailDeleted the final mail deleted with their timelines.
	Deleted, MailDeleted int
	// Dead counts undelivered items turned into dead letters (their senders
	// were told).
	Dead int
}

// Purge applies retention at now: delivered and dead items and final mail
// older than Options.Retention are deleted; undelivered items older than it
// are never deleted silently: they become dead letters (their mail
// failed(undelivered)) and their sender gets one notice.
func (s *Service) Purge(ctx context.Context, now time.Time) (PurgeResult, error) {
	var r PurgeResult
	retention := s.opts.Retention
	after := "undelivered after " + configs.FormatDuration(retention) // as the office file writes retention
	cutoff := toNanos(now.Add(-retention))
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		r = PurgeResult{}
		old, err := items(tx.Context(), tx.SQL(), `state IN (?, ?) AND created < ?`, StatePending, StateLeased, cutoff)
		if err != nil {
			return err
		}
		for _, it := range old {
			if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE inbox_items SET state = ?, lease_msg = 0, updated = ? WHERE seq = ?`,
				StateDead, toNanos(tx.Now()), it.Seq); err != nil {
				return err
			}
			if err := tx.AppendEvent(queue.Event{Agent: it.Receiver, Kind: EventInboxDead, Detail: fmt.Sprintf("%s %s: %s", it.Kind, it.ID, after)}); err != nil {
				return err
			}
			r.Dead++
			if it.Mail != nil {
				if _, err := s.fail(tx, *it.Mail, ReasonUndelivered); err != nil {
					return err
				}
				continue
			}
			if err := s.tellSender(tx, it.Sender, DeadLetterNotice(it, after), "dead:"+it.ID); err != nil {
				return err
			}
		}
		res, err := tx.SQL().ExecContext(tx.Context(), `DELETE FROM inbox_items WHERE
			((state = ? AND delivered < ?) OR (state = ? AND updated < ?))
			AND id NOT IN (SELECT id FROM mail WHERE state NOT IN (?, ?, ?))`,
			StateDelivered, cutoff, StateDead, cutoff, MailDone, MailFailed, MailCancelled)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		r.Deleted = int(n)
		if _, err := tx.SQL().ExecContext(tx.Context(), `DELETE FROM mail_timeline WHERE mail_id IN
			(SELECT id FROM mail WHERE state IN (?, ?, ?) AND finished_at < ? AND id NOT IN (SELECT id FROM inbox_items))`,
			MailDone, MailFailed, MailCancelled, cutoff); err != nil {
			return err
		}
		res, err = tx.SQL().ExecContext(tx.Context(), `DELETE FROM mail WHERE state IN (?, ?, ?) AND finished_at < ? AND id NOT IN (SELECT id FROM inbox_items)`,
			MailDone, MailFailed, MailCancelled, cutoff)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		r.MailDeleted = int(n)
		if r.Deleted+r.MailDeleted > 0 {
			return tx.AppendEvent(queue.Event{Kind: EventInboxPurged, Detail: fmt.Sprintf("%d item(s), %d mail older than %s", r.Deleted, r.MailDeleted, configs.FormatDuration(retention))})
		}
		return nil
	})
	if err != nil {
		return PurgeResult{}, fmt.Errorf("inbox: purge: %w", err)
	}
	return r, nil
}
