package cluster

// remote.go is this package's side of inbox.Remote: inbox items for agents
// of other hosts (a child's notices to its parent there) and cancels of
// crossed mail go into the outbox; the state changes of mail that crossed
// here go back to its sender's host. It works on the store alone, so a
// command run with no office server (`office mail cancel`) uses it too
// (Bind).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"office/inbox"
	"office/queue"
)

// remote is the inbox.Remote of host.
type remote struct {
	host string
	wake func() // the outbox has news; nil in a command
}

// Bind plugs the floor into svc when a clustered office runs on store (the
// store knows its host): what svc sends to an agent of another host, a
// cancel of crossed mail and the state of mail that crossed here go through
// the outbox, as in the office server. It reports whether the store is
// clustered. The running server sends the outbox when poked.
func Bind(ctx context.Context, store *queue.Store, svc *inbox.Service) (bool, error) {
	host, ok, err := Self(ctx, store)
	if err != nil || !ok {
		return false, err
	}
	if err := Migrate(ctx, store); err != nil {
		return false, err
	}
	svc.SetRemote(&remote{host: host})
	return true, nil
}

func (r *remote) woke() {
	if r.wake != nil {
		r.wake()
	}
}

// MailMoved stashes the change of a mail that crossed from another host
// for that host, whose own envelope of it then tells the truth (the
// request's state lives with its sender's host).
func (r *remote) MailMoved(tx *queue.Tx, m inbox.Mail, to inbox.MailState, reason string) error {
	host, ok, err := originOf(tx.Context(), tx.SQL(), m.ID)
	if err != nil || !ok {
		return err
	}
	text := "mail " + m.ID + " " + string(to)
	if reason != "" {
		text += " (" + reason + ")"
	}
	_, err = StashTx(tx, Item{Kind: KindState, From: m.Receiver, FromHost: r.host, To: m.Sender, ToHost: host,
		Text: text, MailID: m.ID, State: string(to), Reason: reason})
	if err == nil {
		r.woke()
	}
	return err
}

// Send stashes m for the agent of another host it is for (by the
// last-known roster), once per dedupe key.
func (r *remote) Send(tx *queue.Tx, m inbox.Message) (string, bool, bool, error) {
	mem, ok, err := lookupTx(tx, m.To)
	if err != nil || !ok || mem.Host == r.host {
		return "", false, false, err
	}
	if m.DedupeKey != "" {
		var id string
		err := tx.SQL().QueryRowContext(tx.Context(), `SELECT id FROM cluster_dedupe WHERE key = ?`, m.DedupeKey).Scan(&id)
		if err == nil {
			return id, true, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return "", false, false, err
		}
	}
	id, err := StashTx(tx, Item{ID: m.ID, Kind: KindInbox, InboxKind: m.Kind, Dedupe: m.DedupeKey, From: m.From, FromHost: r.host,
		To: m.To, ToHost: mem.Host, Text: m.Body})
	if err != nil {
		return "", false, false, err
	}
	if m.DedupeKey != "" {
		if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO cluster_dedupe (key, id) VALUES (?, ?)`, m.DedupeKey, id); err != nil {
			return "", false, false, err
		}
	}
	r.woke()
	return id, false, true, nil
}

// Cancel stashes the cancel of mail m, which crossed from here, for the
// host it went to.
func (r *remote) Cancel(tx *queue.Tx, m inbox.Mail, by string) (string, error) {
	var host string
	err := tx.SQL().QueryRowContext(tx.Context(), `SELECT host FROM cluster_mail WHERE id = ?`, m.ID).Scan(&host)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if _, err := StashTx(tx, Item{Kind: KindCancel, From: by, FromHost: r.host, To: m.Receiver, ToHost: host,
		Text: "cancel mail " + m.ID, MailID: m.ID}); err != nil {
		return "", err
	}
	r.woke()
	return host, nil
}

// lookupTx is Lookup inside tx (ok false: no host has name).
func lookupTx(tx *queue.Tx, name string) (Member, bool, error) {
	var m Member
	err := tx.SQL().QueryRowContext(tx.Context(), `SELECT name, host FROM cluster_roster WHERE name = ?`, name).Scan(&m.Name, &m.Host)
	if errors.Is(err, sql.ErrNoRows) {
		return Member{}, false, nil
	}
	if err != nil {
		return Member{}, false, fmt.Errorf("cluster: look up %q: %w", name, err)
	}
	return m, true, nil
}

// ---- the receiving host's answers ----

// refuseTx stashes, for the host `it` came from, the refusal of it with
// why. Refusals and state reports are never refused back (nothing would
// end a loop); they are only logged.
func refuseTx(tx *queue.Tx, log *slog.Logger, thisHost string, it Item, why string) error {
	switch it.Kind {
	case KindSend, KindMail, KindInbox, KindCancel, KindApprove:
	default:
		log.Error("an item from another host cannot be applied here; dropped", "id", it.ID, "kind", it.Kind, "from_host", it.FromHost, "why", why)
		return nil
	}
	to := it.From
	if to == "" {
		to = inbox.Person
	}
	ref := Item{Kind: KindRefused, From: it.To, FromHost: thisHost, To: to, ToHost: it.FromHost,
		Text:  fmt.Sprintf("%s %s refused by host %s: %s", it.Kind, it.ID, thisHost, why),
		RefID: it.ID, RefKind: it.Kind, MailID: it.MailID, Reason: why}
	if it.Kind == KindInbox && it.InboxKind == inbox.KindText {
		ref.InboxKind, ref.Body = it.InboxKind, it.Text
	}
	_, err := StashTx(tx, ref)
	return err
}

// applyCancelTx cancels here the crossed mail `it` names, if it is not yet
// typed in; it refuses the cancel (too late) otherwise. A cancel that comes
// before its mail is kept, and the mail is cancelled as it arrives.
func (n *Node) applyCancelTx(tx *queue.Tx, it Item) (string, error) {
	if it.MailID == "" {
		return "", fmt.Errorf("cluster: item %s: a cancel of no mail (%w)", it.ID, errBadItem)
	}
	m, err := n.opts.Inbox.GetMailTx(tx, it.MailID)
	if errors.Is(err, inbox.ErrNotFound) {
		var refused string
		err := tx.SQL().QueryRowContext(tx.Context(), `SELECT error FROM cluster_received WHERE id = ?`, it.MailID).Scan(&refused)
		if err == nil {
			return it.MailID, nil // the mail was refused here: its refusal ended it on the sender's host
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return "", err
		}
		if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT OR IGNORE INTO cluster_cancels (mail_id, by, from_host, at) VALUES (?, ?, ?, ?)`,
			it.MailID, it.From, it.FromHost, tx.Now().UnixNano()); err != nil {
			return "", err
		}
		return it.MailID, nil
	}
	if err != nil {
		return "", err
	}
	_, err = n.opts.Inbox.CancelTx(tx, it.From, it.MailID)
	switch {
	case err == nil:
		return it.MailID, nil
	case errors.Is(err, inbox.ErrFinal) && m.State == inbox.MailCancelled:
		return it.MailID, nil // cancelled here already; that state crossed back
	case errors.Is(err, inbox.ErrFinal):
		return it.MailID, refuseTx(tx, n.log, n.cfg.Host, it, fmt.Sprintf("too late: mail %s is %s on host %s", it.MailID, m.State, n.cfg.Host))
	}
	return "", err
}

// cancelWaitingTx cancels mail id, just stored, when its cancel came first.
func (n *Node) cancelWaitingTx(tx *queue.Tx, id string) error {
	var by string
	err := tx.SQL().QueryRowContext(tx.Context(), `DELETE FROM cluster_cancels WHERE mail_id = ? RETURNING by`, id).Scan(&by)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = n.opts.Inbox.CancelTx(tx, by, id)
	return err
}

// applyRefusedTx ends here the item another host refused: a mail fails
// (its sender is told, as for any failure), a cancel's canceller is told it
// came too late, a send's sender (the person) is told; every refusal is
// kept for `office queue` and the event log.
func (n *Node) applyRefusedTx(tx *queue.Tx, it Item) (string, error) {
	if it.RefID == "" {
		return "", fmt.Errorf("cluster: item %s: a refusal of no item (%w)", it.ID, errBadItem)
	}
	if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT OR IGNORE INTO cluster_refused (id, kind, sender, receiver, host, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		it.RefID, it.RefKind, it.To, it.From, it.FromHost, it.Reason, tx.Now().UnixNano()); err != nil {
		return "", err
	}
	if err := tx.AppendEvent(queue.Event{Agent: it.To, Kind: EventRefused,
		Detail: fmt.Sprintf("%s %s from %s refused by host %s: %s", it.RefKind, it.RefID, it.To, it.FromHost, it.Reason)}); err != nil {
		return "", err
	}
	svc := n.opts.Inbox
	tell := func(body string) error {
		_, _, err := svc.SendTx(tx, inbox.Message{To: it.To, Kind: inbox.KindNotification, Body: body, HereOnly: true, DedupeKey: "refused:" + it.RefID})
		if errors.Is(err, inbox.ErrUnknownReceiver) {
			n.log.Warn("refusal not told: its sender is gone", "sender", it.To, "id", it.RefID)
			return nil
		}
		return err
	}
	switch it.RefKind {
	case KindMail:
		if err := svc.NoteTx(tx, it.RefID, fmt.Sprintf("refused by host %s: %s", it.FromHost, it.Reason)); err != nil && !errors.Is(err, inbox.ErrNotFound) {
			return "", err
		}
		if _, err := svc.MoveTx(tx, it.RefID, inbox.MailFailed, inbox.ReasonRefused); err != nil {
			return "", err
		}
	case KindCancel:
		if err := svc.NoteTx(tx, it.MailID, fmt.Sprintf("cancel refused by host %s: %s", it.FromHost, it.Reason)); err != nil && !errors.Is(err, inbox.ErrNotFound) {
			return "", err
		}
		if err := tell(fmt.Sprintf("Your cancel of mail %s was not done: %s.\nSee: office mail show %s", it.MailID, it.Reason, it.MailID)); err != nil {
			return "", err
		}
	case KindSend:
		if err := tell(fmt.Sprintf("Your message %s to %s on host %s was refused there: %s.", it.RefID, it.From, it.FromHost, it.Reason)); err != nil {
			return "", err
		}
	case KindInbox:
		// A forwarded dialog (or message) whose receiver is gone there
		// goes to the person, who answers a dialog with no parent. A
		// notice about a child stays logged and listed: on one host too a
		// notice whose parent is gone is dropped with a log line, and the
		// child, its sender, did not write it.
		if it.InboxKind != inbox.KindText || it.Body == "" {
			n.log.Warn("a notice to a parent on another host was refused there", "id", it.RefID, "from", it.To, "to", it.From, "host", it.FromHost, "why", it.Reason)
			break
		}
		body := fmt.Sprintf("For %s on host %s, who cannot take it (%s):\n%s", it.From, it.FromHost, it.Reason, it.Body)
		_, _, err := svc.SendTx(tx, inbox.Message{To: inbox.Person, From: it.To, Kind: inbox.KindText, Body: body, HereOnly: true, DedupeKey: "refused:" + it.RefID})
		if err != nil {
			return "", err
		}
	case KindApprove:
		if err := n.approvalEndedTx(tx, it.RefID, ApprovalOutcome{Outcome: OutcomeRefused, Detail: it.Reason}); err != nil {
			return "", err
		}
	default:
		n.log.Error("an item for another host was refused there", "id", it.RefID, "kind", it.RefKind, "to", it.From, "host", it.FromHost, "why", it.Reason)
	}
	return it.RefID, nil
}

// Refusal is an item of this host that another host refused.
type Refusal struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	Sender   string    `json:"sender"`
	Receiver string    `json:"receiver"`
	Host     string    `json:"host"`
	Reason   string    `json:"reason"`
	At       time.Time `json:"at"`
}

// Refused returns the items of this host other hosts refused, oldest first
// (none when the store has no cluster).
func Refused(ctx context.Context, store *queue.Store) ([]Refusal, error) {
	ok, err := hasTables(ctx, store.DB())
	if err != nil || !ok {
		return nil, err
	}
	rows, err := store.DB().QueryContext(ctx, `SELECT id, kind, sender, receiver, host, reason, at FROM cluster_refused ORDER BY at, id`)
	if err != nil {
		return nil, fmt.Errorf("cluster: refused items: %w", err)
	}
	defer rows.Close()
	var out []Refusal
	for rows.Next() {
		var r Refusal
		var at int64
		if err := rows.Scan(&r.ID, &r.Kind, &r.Sender, &r.Receiver, &r.Host, &r.Reason, &at); err != nil {
			return nil, fmt.Errorf("cluster: refused items: %w", err)
		}
		r.At = time.Unix(0, at)
		out = append(out, r)
	}
	return out, rows.Err()
}
