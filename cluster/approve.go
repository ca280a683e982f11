package cluster

// approve.go carries `office approve AGENT OPTION` to the host of AGENT
// when it runs on another host of the floor (its dialog was forwarded to a
// parent here). The approval crosses as an item like any other (exactly
// once, under its ULID); the receiving host hands it to its engine, whose
// drain types it only while the same dialog is still open, and sends the
// outcome back the same way. The approver waits a while for it; an outcome
// that comes after the approver stopped waiting is told as a notice.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"office/inbox"
	"office/queue"
)

// Outcomes of an approval for an agent of another host.
const (
	// OutcomeTyped: the option was typed into the dialog.
	OutcomeTyped = "typed"
	// OutcomeGone: the dialog was no longer open there; nothing was typed.
	OutcomeGone = "gone"
	// OutcomeRefused: the agent's host refused the approval (no such
	// agent there, no such option, another approval pending); nothing was
	// typed.
	OutcomeRefused = "refused"
	// OutcomeStored: the approver stopped waiting before the outcome came
	// (the host is down or slow); it is told as a notice when it comes.
	OutcomeStored = "stored"
)

// Bounds of a crossing approval.
const (
	// MaxApproveOption is the longest option (a number or a label's start)
	// an approval may carry.
	MaxApproveOption = 64
	// ApproveTimeout bounds how long the agent's host waits for its drain
	// to type one approval.
	ApproveTimeout = 10 * time.Second
	// approvePoll is how often a waiting approver looks for the outcome
	// (it arrives through the inbound stream, which commits it to the
	// store).
	approvePoll = 50 * time.Millisecond
)

// ApprovalOutcome is what the agent's host did with an approval: one of
// the Outcome constants, the option typed, or why nothing was.
type ApprovalOutcome struct {
	Outcome string `json:"outcome"`
	Option  string `json:"option,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// Approval is an approval sent to another host and what came of it.
type Approval struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	Host  string `json:"host"`
	ApprovalOutcome
}

// ApproveFunc answers agent's dialog with option for by (an agent as
// AGENT@HOST, or the person), as `office approve` does on that host. made
// is when the approver made it (its host's clock: the item's ULID time): an
// approval that arrives later, after the agent restarted or a newer dialog
// opened, answers a dialog the approver never saw and must type nothing.
type ApproveFunc func(ctx context.Context, agent, option, by string, made time.Time) ApprovalOutcome

// Approve sends the approval of agent's dialog, agent being of another
// host by the last-known roster, to that host, and waits until its outcome
// comes back or ctx ends (Outcome is then OutcomeStored: the outcome is
// told to by as a notice when it comes). by is an agent of this host or
// "" for the person. The error matches ErrNotOnFloor when no other host
// has agent.
func (n *Node) Approve(ctx context.Context, agent, option, by string) (Approval, error) {
	option = strings.TrimSpace(option)
	if option == "" || len(option) > MaxApproveOption || strings.ContainsAny(option, "\r\n") {
		return Approval{}, fmt.Errorf("cluster: approve %q: the option must be 1 to %d characters on one line", agent, MaxApproveOption)
	}
	if by == "" {
		by = inbox.Person
	}
	m, err := Lookup(ctx, n.opts.Store, agent)
	if err != nil {
		return Approval{}, err
	}
	if m.Host == n.cfg.Host {
		return Approval{}, fmt.Errorf("cluster: approve %q: %w", agent, ErrNotOnFloor)
	}
	var id string
	err = n.opts.Store.Update(ctx, func(tx *queue.Tx) error {
		var err error
		id, err = StashTx(tx, Item{Kind: KindApprove, From: by, FromHost: n.cfg.Host, To: agent, ToHost: m.Host, Text: option})
		if err != nil {
			return err
		}
		_, err = tx.SQL().ExecContext(tx.Context(), `INSERT INTO cluster_approvals_sent (id, agent, host, option, by, at) VALUES (?, ?, ?, ?, ?, ?)`,
			id, agent, m.Host, option, by, tx.Now().UnixNano())
		return err
	})
	if err != nil {
		return Approval{}, fmt.Errorf("cluster: approve %q: %w", agent, err)
	}
	n.Wake()
	ap := Approval{ID: id, Agent: agent, Host: m.Host}
	t := time.NewTicker(approvePoll)
	defer t.Stop()
	for {
		out, ok, err := n.approvalOutcome(ctx, id)
		if err != nil && ctx.Err() == nil {
			return Approval{}, err
		}
		if ok {
			ap.ApprovalOutcome = out
			return ap, nil
		}
		select {
		case <-t.C:
			continue
		case <-ctx.Done():
		}
		// Stop waiting, unless the outcome came just now (then it is
		// this answer's and no notice is sent).
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), OpTimeout)
		defer cancel()
		var stopped bool
		err = n.opts.Store.Update(sctx, func(tx *queue.Tx) error {
			res, err := tx.SQL().ExecContext(tx.Context(), `UPDATE cluster_approvals_sent SET waiting = 0 WHERE id = ? AND outcome = ''`, id)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			stopped = k == 1
			return nil
		})
		if err != nil {
			return Approval{}, fmt.Errorf("cluster: approve %q: %w", agent, err)
		}
		if stopped {
			ap.Outcome = OutcomeStored
			return ap, nil
		}
		if out, ok, err := n.approvalOutcome(sctx, id); err != nil || !ok {
			return Approval{}, fmt.Errorf("cluster: approve %q: the outcome of %s is lost: %v", agent, id, err)
		} else {
			ap.ApprovalOutcome = out
		}
		return ap, nil
	}
}

// approvalOutcome reads the outcome of approval id sent from here (ok
// false while none came).
func (n *Node) approvalOutcome(ctx context.Context, id string) (ApprovalOutcome, bool, error) {
	var out ApprovalOutcome
	err := n.opts.Store.DB().QueryRowContext(ctx, `SELECT outcome, typed, detail FROM cluster_approvals_sent WHERE id = ?`, id).
		Scan(&out.Outcome, &out.Option, &out.Detail)
	if err != nil {
		return ApprovalOutcome{}, false, fmt.Errorf("cluster: approval %s: %w", id, err)
	}
	return out, out.Outcome != "", nil
}

// ---- the agent's host ----

// applyApproveTx records an approval from another host; it is handed to
// the engine after the commit (runApproval), so a redelivery finds its
// ULID and nothing is typed twice.
func (n *Node) applyApproveTx(tx *queue.Tx, it Item) (string, error) {
	if strings.TrimSpace(it.Text) == "" || len(it.Text) > MaxApproveOption {
		return "", fmt.Errorf("cluster: item %s: an approval with option %q (%w)", it.ID, it.Text, errBadItem)
	}
	if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO cluster_approvals (id, agent, option, by, from_host, at) VALUES (?, ?, ?, ?, ?, ?)`,
		it.ID, it.To, it.Text, it.From, it.FromHost, tx.Now().UnixNano()); err != nil {
		return "", err
	}
	return it.ID, nil
}

// runApproval hands approval it, just stored, to the engine and sends its
// outcome back. Without an engine (Options.Approve nil) it is refused.
func (n *Node) runApproval(ctx context.Context, it Item) {
	out := ApprovalOutcome{Outcome: OutcomeRefused, Detail: "host " + n.cfg.Host + " answers no dialogs"}
	if n.opts.Approve != nil {
		actx, cancel := context.WithTimeout(ctx, ApproveTimeout)
		out = n.opts.Approve(actx, it.To, it.Text, it.From+"@"+it.FromHost, itemTime(it.ID))
		cancel()
	}
	if ctx.Err() != nil && out.Outcome != OutcomeTyped {
		// This host is stopping and nothing was typed: the next start
		// ends it as gone (recoverApprovals), its agents restarted.
		return
	}
	// A typed one is recorded even when this host is stopping meanwhile:
	// it must not be reported "not typed" at the next start.
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), OpTimeout)
	defer cancel()
	if err := n.endApproval(ectx, it.ID, out); err != nil {
		n.log.Error("sending an approval's outcome back", "id", it.ID, "agent", it.To, "err", err)
	}
}

// endApproval records approval id's outcome here and stashes it for the
// approver's host, once.
func (n *Node) endApproval(ctx context.Context, id string, out ApprovalOutcome) error {
	err := n.opts.Store.Update(ctx, func(tx *queue.Tx) error {
		var agent, by, from string
		err := tx.SQL().QueryRowContext(tx.Context(), `SELECT agent, by, from_host FROM cluster_approvals WHERE id = ? AND outcome = ''`, id).
			Scan(&agent, &by, &from)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // ended before
		}
		if err != nil {
			return err
		}
		if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE cluster_approvals SET outcome = ? WHERE id = ?`, out.Outcome, id); err != nil {
			return err
		}
		if err := tx.AppendEvent(queue.Event{Agent: agent, Kind: EventApproval,
			Detail: fmt.Sprintf("approval %s by %s on host %s: %s", id, by, from, describe(out))}); err != nil {
			return err
		}
		_, err = StashTx(tx, Item{Kind: KindApproved, From: agent, FromHost: n.cfg.Host, To: by, ToHost: from,
			Text: "approval " + id + ": " + describe(out), RefID: id, State: out.Outcome, Option: out.Option, Reason: out.Detail})
		return err
	})
	if err == nil {
		n.Wake()
	}
	return err
}

// recoverApprovals ends the approvals a previous run of this host took in
// but did not finish: its agents were restarted with it, so their dialogs
// are gone, and nothing is typed now (it could be a new dialog).
func (n *Node) recoverApprovals(ctx context.Context) {
	rows, err := n.opts.Store.DB().QueryContext(ctx, `SELECT id FROM cluster_approvals WHERE outcome = '' ORDER BY at`)
	if err != nil {
		n.log.Error("reading unfinished approvals", "err", err)
		return
	}
	var ids []string
	for rows.Next() {
		var id string
		if rows.Scan(&id) == nil {
			ids = append(ids, id)
		}
	}
	rows.Close()
	for _, id := range ids {
		out := ApprovalOutcome{Outcome: OutcomeGone, Detail: "the server of host " + n.cfg.Host + " restarted before it was typed"}
		if err := n.endApproval(ctx, id, out); err != nil {
			n.log.Error("ending an unfinished approval", "id", id, "err", err)
		}
	}
}

// ---- the approver's host ----

// approvalEndedTx takes the outcome of approval id sent from here: a
// waiting approver reads it; one that stopped waiting is told.
func (n *Node) approvalEndedTx(tx *queue.Tx, id string, out ApprovalOutcome) error {
	var agent, host, by string
	var waiting bool
	err := tx.SQL().QueryRowContext(tx.Context(), `SELECT agent, host, by, waiting FROM cluster_approvals_sent WHERE id = ? AND outcome = ''`, id).
		Scan(&agent, &host, &by, &waiting)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // its outcome came before
	}
	if err != nil {
		return err
	}
	if _, err := tx.SQL().ExecContext(tx.Context(), `UPDATE cluster_approvals_sent SET outcome = ?, typed = ?, detail = ? WHERE id = ?`,
		out.Outcome, out.Option, out.Detail, id); err != nil {
		return err
	}
	if err := tx.AppendEvent(queue.Event{Agent: by, Kind: EventApproval,
		Detail: fmt.Sprintf("approval %s of %s's dialog on host %s: %s", id, agent, host, describe(out))}); err != nil {
		return err
	}
	if waiting {
		return nil
	}
	body := fmt.Sprintf("Your approval %s of %s's dialog on host %s: %s.", id, agent, host, describe(out))
	_, _, err = n.opts.Inbox.SendTx(tx, inbox.Message{To: by, Kind: inbox.KindNotification, Body: body, HereOnly: true, DedupeKey: "approved:" + id})
	if errors.Is(err, inbox.ErrUnknownReceiver) {
		n.log.Warn("an approval's outcome not told: its approver is gone", "approver", by, "id", id)
		return nil
	}
	return err
}

// applyApprovedTx takes an approval's outcome from the agent's host.
func (n *Node) applyApprovedTx(tx *queue.Tx, it Item) (string, error) {
	switch it.State {
	case OutcomeTyped, OutcomeGone, OutcomeRefused:
	default:
		return "", fmt.Errorf("cluster: item %s: approval outcome %q (%w)", it.ID, it.State, errBadItem)
	}
	if it.RefID == "" {
		return "", fmt.Errorf("cluster: item %s: the outcome of no approval (%w)", it.ID, errBadItem)
	}
	return it.RefID, n.approvalEndedTx(tx, it.RefID, ApprovalOutcome{Outcome: it.State, Option: it.Option, Detail: it.Reason})
}

// describe says an outcome in words.
func describe(out ApprovalOutcome) string {
	switch out.Outcome {
	case OutcomeTyped:
		return "option " + out.Option + " typed"
	case OutcomeGone:
		return "not typed: " + out.Detail
	case OutcomeStored:
		return "sent, its outcome not known yet"
	}
	return "refused: " + out.Detail
}

// itemTime is when item id was made on its sender's host (its ULID's time),
// or the zero time for an id that is no ULID.
func itemTime(id string) time.Time {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return time.Time{}
	}
	return ulid.Time(u.Time())
}
