package inbox

// notices.go is what the engine tells an agent's parent (or the person):
// turn outcomes with the child's own report, failures, cancellations,
// stalls (one notice per stall, remembered across restarts), forwarded
// permission dialogs, and the log of approvals.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"office/queue"
)

// NotifyParent sends notice n about child n.Agent to parent (an agent or
// Person) as a notification; "" sends nothing. dedupe, when set, makes it
// idempotent. It returns the item's id ("" when nothing was sent).
func (s *Service) NotifyParent(ctx context.Context, parent string, n Notice, dedupe string) (string, error) {
	if parent == "" {
		return "", nil
	}
	id, _, err := s.Send(ctx, Message{To: parent, From: n.Agent, Kind: KindNotification, Body: RenderNotice(n), DedupeKey: dedupe})
	if err != nil {
		return "", err // "inbox: send to PARENT: ..." (no second "inbox:")
	}
	return id, nil
}

// ForwardPermission sends agent's dialog (its text and options) to `to`
// (its parent, or Person) as a <permission-request>, once per dedupe key.
func (s *Service) ForwardPermission(ctx context.Context, to, agent, dialog string, options []string, dedupe string) (string, error) {
	if to == "" {
		to = Person
	}
	id, _, err := s.Send(ctx, Message{To: to, From: agent, Kind: KindText, Body: PermissionRequest(agent, dialog, options), DedupeKey: dedupe})
	if err != nil {
		return "", err // "inbox: send to TO: ..." (no second "inbox:")
	}
	return id, nil
}

// LogApproval records on the event log that `by` answered agent's dialog
// with option.
func (s *Service) LogApproval(ctx context.Context, agent, option, by string) error {
	if by == "" {
		by = Person
	}
	if err := s.store.AppendEvent(ctx, queue.Event{Agent: agent, Kind: EventApproved, Detail: fmt.Sprintf("option %q chosen by %s", option, by)}); err != nil {
		return fmt.Errorf("inbox: log approval for %q: %w", agent, err)
	}
	return nil
}

// ---- reports (`office report`) ----

// Report is an agent's own outcome.
type Report struct {
	Status  string
	Summary string
	At      time.Time
}

// SetReport records agent's own outcome for its current turn (it replaces
// an earlier report not yet used). status must pass ValidReport.
func (s *Service) SetReport(ctx context.Context, agent, status, summary string) error {
	if !ValidReport(status) {
		return fmt.Errorf("inbox: report from %q: %q is not success, partial, failed or blocked: %w", agent, status, ErrNotAllowed)
	}
	summary, _ = cleanBodyLoose(summary)
	return s.store.Update(ctx, func(tx *queue.Tx) error {
		if err := checkReceiver(tx, agent); err != nil || agent == Person {
			if err == nil {
				err = fmt.Errorf("%w: the person has no turns to report", ErrNotAllowed)
			}
			return fmt.Errorf("inbox: report: %w", err)
		}
		if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO inbox_reports (agent, status, summary, at) VALUES (?, ?, ?, ?)
			ON CONFLICT (agent) DO UPDATE SET status = excluded.status, summary = excluded.summary, at = excluded.at`,
			agent, status, summary, toNanos(tx.Now())); err != nil {
			return fmt.Errorf("inbox: report from %q: %w", agent, err)
		}
		return tx.AppendEvent(queue.Event{Agent: agent, Kind: EventReport, Detail: status + ": " + preview(summary)})
	})
}

// TakeReport returns and forgets agent's report made at or after since; ok
// is false when there is none (an older one is forgotten too).
func (s *Service) TakeReport(ctx context.Context, agent string, since time.Time) (r Report, ok bool, err error) {
	err = s.store.Update(ctx, func(tx *queue.Tx) error {
		var at int64
		e := tx.SQL().QueryRowContext(tx.Context(), `DELETE FROM inbox_reports WHERE agent = ? RETURNING status, summary, at`, agent).Scan(&r.Status, &r.Summary, &at)
		if errors.Is(e, sql.ErrNoRows) {
			return nil
		}
		if e != nil {
			return e
		}
		r.At = fromNanos(at)
		ok = !r.At.Before(since)
		return nil
	})
	if err != nil {
		return Report{}, false, fmt.Errorf("inbox: take report of %q: %w", agent, err)
	}
	if !ok {
		return Report{}, false, nil
	}
	return r, true, nil
}

// cleanBodyLoose is cleanBody that allows blank.
func cleanBodyLoose(b string) (string, error) {
	b, err := cleanBody(b)
	if errors.Is(err, ErrBlankBody) {
		return "", nil
	}
	return b, err
}

// ---- stalls ----

// StallObservation is what the engine saw of one agent on a tick.
type StallObservation struct {
	Agent string
	// Parent receives the notice ("" sends none, but the stall is still
	// remembered).
	Parent string
	// Desc is the agent's role, else its name.
	Desc string
	// Busy: the agent's status is busy.
	Busy bool
	// LastActivity is the agent's last activity (a hook event or a change
	// of its screen text outside the title and spinner).
	LastActivity time.Time
	// After is this agent's stall threshold; 0 means Options.Stall.
	After time.Duration
}

// ObserveStall applies the stall rule at now: busy with no activity for
// o.After (else Options.Stall) is a stall, and each stall gets exactly one
// notice. The stall
// is remembered in the store, so an engine restarted during it (which
// seeds LastActivity from StallSince) does not notice it again; activity
// after the stall began ends it, and a later stall is a new one. It reports
// whether it sent a notice.
func (s *Service) ObserveStall(ctx context.Context, o StallObservation, now time.Time) (bool, error) {
	noticed := false
	err := s.store.Update(ctx, func(tx *queue.Tx) error {
		noticed = false
		var since int64
		e := tx.SQL().QueryRowContext(tx.Context(), `SELECT since FROM inbox_stalls WHERE agent = ?`, o.Agent).Scan(&since)
		have := e == nil
		if e != nil && !errors.Is(e, sql.ErrNoRows) {
			return e
		}
		after := o.After
		if after <= 0 {
			after = s.opts.Stall
		}
		stalled := o.Busy && now.Sub(o.LastActivity) >= after
		if !stalled {
			if have && (!o.Busy || o.LastActivity.After(fromNanos(since))) {
				_, err := tx.SQL().ExecContext(tx.Context(), `DELETE FROM inbox_stalls WHERE agent = ?`, o.Agent)
				return err
			}
			return nil
		}
		if have && !o.LastActivity.After(fromNanos(since)) {
			return nil // the stall already noticed
		}
		if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO inbox_stalls (agent, since, notified) VALUES (?, ?, ?)
			ON CONFLICT (agent) DO UPDATE SET since = excluded.since, notified = excluded.notified`,
			o.Agent, toNanos(o.LastActivity), toNanos(now)); err != nil {
			return err
		}
		quiet := now.Sub(o.LastActivity).Truncate(time.Second)
		if err := tx.AppendEvent(queue.Event{Agent: o.Agent, Kind: EventStalled, Detail: fmt.Sprintf("busy with no activity for %v", quiet)}); err != nil {
			return err
		}
		noticed = true
		if o.Parent == "" {
			return nil
		}
		n := Notice{Kind: NoticeStalled, Desc: o.Desc, Agent: o.Agent, Quiet: quiet}
		_, _, err := s.SendTx(tx, Message{To: o.Parent, From: o.Agent, Kind: KindNotification, Body: RenderNotice(n),
			DedupeKey: fmt.Sprintf("stall:%s:%d", o.Agent, toNanos(o.LastActivity))})
		if errors.Is(err, ErrUnknownReceiver) {
			return nil
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("inbox: stall check of %q: %w", o.Agent, err)
	}
	return noticed, nil
}

// StallSince returns when agent's remembered stall began (ok false: none).
func (s *Service) StallSince(ctx context.Context, agent string) (time.Time, bool, error) {
	var since int64
	err := s.store.DB().QueryRowContext(ctx, `SELECT since FROM inbox_stalls WHERE agent = ?`, agent).Scan(&since)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("inbox: stall of %q: %w", agent, err)
	}
	return fromNanos(since), true, nil
}

// LastLines returns the last n non-blank lines of screen text, each
// trimmed, joined by newlines and bounded to max bytes: the "result" shown
// in a notice.
func LastLines(screen string, n, max int) string {
	var keep []string
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append(keep, l)
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	out := strings.Join(keep, "\n")
	if len(out) > max {
		cut := len(out) - max
		for cut < len(out) && (out[cut]&0xC0) == 0x80 {
			cut++
		}
		out = "…" + out[cut:]
	}
	return out
}
