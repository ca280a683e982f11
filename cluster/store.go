package cluster

// store.go is the cluster's part of each host's SQLite store: the outbox of
// items for agents on other hosts, the ULIDs of items already received, and
// the last-known roster of the floor. Every function here works with no
// NATS and no running office, so store-only commands (send, mail) use them.

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
	"office/wire"
)

// Component is the name of the cluster's schema in the store
// (queue.Store.Migrate).
const Component = "cluster"

// migrations are the cluster's schema steps, oldest first (append only).
func migrations() []string {
	return []string{`
CREATE TABLE cluster_outbox (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	id         TEXT    NOT NULL UNIQUE,
	host       TEXT    NOT NULL,
	agent      TEXT    NOT NULL,
	payload    TEXT    NOT NULL,
	created    INTEGER NOT NULL,
	attempts   INTEGER NOT NULL DEFAULT 0,
	last_error TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX cluster_outbox_by_host ON cluster_outbox(host, seq);
CREATE TABLE cluster_received (
	id       TEXT    PRIMARY KEY,
	local_id TEXT    NOT NULL DEFAULT '',
	error    TEXT    NOT NULL DEFAULT '',
	at       INTEGER NOT NULL
);
CREATE TABLE cluster_roster (
	name    TEXT    PRIMARY KEY,
	host    TEXT    NOT NULL,
	profile TEXT    NOT NULL DEFAULT '',
	role    TEXT    NOT NULL DEFAULT '',
	parent  TEXT    NOT NULL DEFAULT '',
	status  TEXT    NOT NULL DEFAULT '',
	seen    INTEGER NOT NULL
);
CREATE INDEX cluster_roster_by_host ON cluster_roster(host);
`, `
ALTER TABLE cluster_received ADD COLUMN from_host TEXT NOT NULL DEFAULT '';
CREATE TABLE cluster_self (
	one  INTEGER PRIMARY KEY CHECK (one = 1),
	host TEXT    NOT NULL
);
`, `
CREATE TABLE cluster_mail (
	id   TEXT PRIMARY KEY,
	host TEXT NOT NULL
);
CREATE TABLE cluster_dedupe (
	key TEXT PRIMARY KEY,
	id  TEXT NOT NULL
);
CREATE TABLE cluster_cancels (
	mail_id   TEXT    PRIMARY KEY,
	by        TEXT    NOT NULL,
	from_host TEXT    NOT NULL,
	at        INTEGER NOT NULL
);
CREATE TABLE cluster_refused (
	id       TEXT    PRIMARY KEY,
	kind     TEXT    NOT NULL,
	sender   TEXT    NOT NULL,
	receiver TEXT    NOT NULL,
	host     TEXT    NOT NULL,
	reason   TEXT    NOT NULL,
	preview  TEXT    NOT NULL DEFAULT '',
	at       INTEGER NOT NULL
);
`, `
CREATE TABLE cluster_approvals (
	id        TEXT    PRIMARY KEY,
	agent     TEXT    NOT NULL,
	option    TEXT    NOT NULL,
	by        TEXT    NOT NULL,
	from_host TEXT    NOT NULL,
	outcome   TEXT    NOT NULL DEFAULT '',
	at        INTEGER NOT NULL
);
CREATE TABLE cluster_approvals_sent (
	id      TEXT    PRIMARY KEY,
	agent   TEXT    NOT NULL,
	host    TEXT    NOT NULL,
	option  TEXT    NOT NULL,
	by      TEXT    NOT NULL,
	outcome TEXT    NOT NULL DEFAULT '',
	typed   TEXT    NOT NULL DEFAULT '',
	detail  TEXT    NOT NULL DEFAULT '',
	waiting INTEGER NOT NULL DEFAULT 1,
	at      INTEGER NOT NULL
);
`}
}

// Migrate brings the cluster's tables of store up to date.
func Migrate(ctx context.Context, store *queue.Store) error {
	if err := store.Migrate(ctx, Component, migrations()); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// Member is wire.Member (it crosses the client boundary, so wire declares it).
type Member = wire.Member

// Kinds of item that cross hosts.
const (
	// KindSend is an `office send` message: it joins the receiver's queue.
	KindSend = "send"
	// KindMail is a mail envelope: it becomes mail in the receiver's inbox
	// under the same ULID (the sender's host keeps its own envelope of it).
	KindMail = "mail"
	// KindState is a state change of a crossed mail on its receiver's host:
	// it moves the sender's host's envelope of that mail.
	KindState = "state"
	// KindInbox is an inbox item that is no mail (a notice to a parent, a
	// forwarded dialog): it joins the receiver's inbox.
	KindInbox = "inbox"
	// KindCancel is the cancel of a crossed mail by its sender or the
	// person, for the receiver's host.
	KindCancel = "cancel"
	// KindRefused is the receiving host's answer to an item it will never
	// store (or a cancel that came too late): it ends the item on the
	// sender's host.
	KindRefused = "refused"
	// KindApprove is `office approve` of a dialog of an agent of another
	// host (Text is the option): that host types it through its drain
	// only while the dialog is still open.
	KindApprove = "approve"
	// KindApproved is the outcome of an approval, back to the approver's
	// host (RefID is the approval, State its Outcome).
	KindApproved = "approved"
)

// Item is one thing for an agent on another host, as it waits in the
// sender's outbox and travels in a JetStream message (JSON).
type Item struct {
	// ID is the item's ULID: its outbox key, its JetStream message id
	// (Nats-Msg-Id) and its unique key on the receiving host.
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// From is the sender (an agent of FromHost, or the person).
	From     string `json:"from"`
	FromHost string `json:"from_host"`
	To       string `json:"to"`
	ToHost   string `json:"to_host"`
	Text     string `json:"text"`
	// Mail only.
	Title     string        `json:"title,omitempty"`
	Request   bool          `json:"request,omitempty"`
	Deadline  time.Duration `json:"deadline_ns,omitempty"`
	InReplyTo string        `json:"in_reply_to,omitempty"`
	// State, cancel and refused: the mail (its ULID on both hosts); state:
	// its new state and why; refused: why.
	MailID string `json:"mail_id,omitempty"`
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Inbox only: the item's inbox kind and its dedupe key (kept on the
	// receiving host too, so the sender's host's own notice of the same
	// fact is not a second one).
	InboxKind string `json:"inbox_kind,omitempty"`
	Dedupe    string `json:"dedupe,omitempty"`
	// Refused only: the refused item's id and kind.
	RefID   string `json:"ref_id,omitempty"`
	RefKind string `json:"ref_kind,omitempty"`
	// Refused only, of an inbox item: its body (a forwarded dialog the
	// parent's host refused goes to the person here; InboxKind says it).
	Body string `json:"body,omitempty"`
	// Approved only: the option typed.
	Option string `json:"option,omitempty"`
}

// ErrNotOnFloor: the name is in no host's roster this host has seen (or this
// store has no cluster at all).
var ErrNotOnFloor = errors.New("not an agent of any host of the floor")

// hasTables reports whether the store has the cluster's tables (an office
// with a [cluster] table ran on it).
func hasTables(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'cluster_roster'`).Scan(&n)
	return n > 0, err
}

// Lookup returns the floor's last-known member called name that lives on
// another host than this store's office. It is ErrNotOnFloor when no host
// ever had that name, or when the store has no cluster.
func Lookup(ctx context.Context, store *queue.Store, name string) (Member, error) {
	ok, err := hasTables(ctx, store.DB())
	if err != nil {
		return Member{}, fmt.Errorf("cluster: look up %q: %w", name, err)
	}
	if !ok {
		return Member{}, fmt.Errorf("%q: %w", name, ErrNotOnFloor)
	}
	var m Member
	var seen int64
	err = store.DB().QueryRowContext(ctx, `SELECT name, host, profile, role, parent, status, seen FROM cluster_roster WHERE name = ?`, name).
		Scan(&m.Name, &m.Host, &m.Profile, &m.Role, &m.Parent, &m.Status, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return Member{}, fmt.Errorf("%q: %w", name, ErrNotOnFloor)
	}
	if err != nil {
		return Member{}, fmt.Errorf("cluster: look up %q: %w", name, err)
	}
	m.Seen = time.Unix(0, seen)
	return m, nil
}

// Roster returns the last-known members of the other hosts, by host and
// name (empty when the store has no cluster).
func Roster(ctx context.Context, store *queue.Store) ([]Member, error) {
	ok, err := hasTables(ctx, store.DB())
	if err != nil || !ok {
		return nil, err
	}
	rows, err := store.DB().QueryContext(ctx, `SELECT name, host, profile, role, parent, status, seen FROM cluster_roster ORDER BY host, name`)
	if err != nil {
		return nil, fmt.Errorf("cluster: roster: %w", err)
	}
	defer rows.Close()
	var out []Member
	for rows.Next() {
		var m Member
		var seen int64
		if err := rows.Scan(&m.Name, &m.Host, &m.Profile, &m.Role, &m.Parent, &m.Status, &seen); err != nil {
			return nil, fmt.Errorf("cluster: roster: %w", err)
		}
		m.Seen = time.Unix(0, seen)
		out = append(out, m)
	}
	return out, rows.Err()
}

// newID returns a fresh ULID for an item made at t (the library's default
// entropy is safe for concurrent use and monotonic within a millisecond).
func newID(t time.Time) string {
	return ulid.MustNew(ulid.Timestamp(t), ulid.DefaultEntropy()).String()
}

// StashTx stores it in the outbox inside tx, with a fresh ULID unless it.ID
// is set, and returns the id. The item leaves the outbox only once the
// receiving host's stream acknowledged it (Node publishes it).
func StashTx(tx *queue.Tx, it Item) (string, error) {
	if it.ID == "" {
		it.ID = newID(tx.Now())
	}
	if it.To == "" || it.ToHost == "" {
		return "", fmt.Errorf("cluster: stash: no receiver or host")
	}
	text := strings.TrimSpace(it.Text)
	if text == "" {
		return "", fmt.Errorf("cluster: stash for %q: text is %w", it.To, queue.ErrBlank)
	}
	if err := queue.CheckBody(text); err != nil {
		return "", fmt.Errorf("cluster: stash for %q: %w", it.To, err)
	}
	it.Text = text
	payload, err := encodeItem(it)
	if err != nil {
		return "", err
	}
	if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO cluster_outbox (id, host, agent, payload, created) VALUES (?, ?, ?, ?, ?)`,
		it.ID, it.ToHost, it.To, payload, tx.Now().UnixNano()); err != nil {
		return "", fmt.Errorf("cluster: stash for %q: %w", it.To, err)
	}
	if it.Kind == KindMail {
		// The sender's host remembers where its mail went (a cancel of it
		// goes there too).
		if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT OR IGNORE INTO cluster_mail (id, host) VALUES (?, ?)`, it.ID, it.ToHost); err != nil {
			return "", fmt.Errorf("cluster: stash for %q: %w", it.To, err)
		}
	}
	if err := tx.AppendEvent(queue.Event{Agent: it.To, Kind: EventStashed,
		Detail: fmt.Sprintf("%s %s from %s for %s on host %s", it.Kind, it.ID, it.From, it.To, it.ToHost)}); err != nil {
		return "", fmt.Errorf("cluster: stash for %q: %w", it.To, err)
	}
	return it.ID, nil
}

// Event kinds this package writes to the queue's event log.
const (
	// EventStashed: an item for another host waits in the outbox.
	EventStashed = "cluster_stashed"
	// EventSent: the receiving host's stream acknowledged an item.
	EventSent = "cluster_sent"
	// EventReceived: an item from another host was stored here.
	EventReceived = "cluster_received"
	// EventRefused: another host refused an item of this host (or this
	// host refused one of another's).
	EventRefused = "cluster_refused"
	// EventApproval: an approval crossed for an agent of another host, or
	// its outcome.
	EventApproval = "cluster_approval"
)

// ReplyTx answers, inside tx, request orig that crossed to this host
// (thisHost) from host origin (see Origin): this host keeps the reply's
// envelope (its reply gate sees it) and the outbox an item with the same
// ULID for origin, where it becomes mail for the request's sender. Only the
// request's receiver may reply (inbox.ErrNotAllowed).
func ReplyTx(tx *queue.Tx, svc *inbox.Service, thisHost, origin, from string, orig inbox.Mail, text string) (string, error) {
	if from != orig.Receiver {
		return "", fmt.Errorf("cluster: reply to %s: %w: it was sent to %s, not %s", orig.ID, inbox.ErrNotAllowed, orig.Receiver, from)
	}
	it := Item{Kind: KindMail, From: from, FromHost: thisHost, To: orig.Sender, ToHost: origin,
		Text: text, Title: "Re: " + orig.Title, InReplyTo: orig.ID}
	id, err := StashTx(tx, it)
	if err != nil {
		return "", err
	}
	if _, err := svc.SendMailTx(tx, inbox.MailRequestArgs{ID: id, Remote: true, To: it.To, From: from, Title: it.Title, Text: it.Text, InReplyTo: orig.ID}); err != nil {
		return "", err
	}
	return id, nil
}

// saveSelf records in the store the host name of the office that runs on it
// (store-only commands, which may run with no office file, read it back).
func saveSelf(ctx context.Context, store *queue.Store, host string) error {
	return store.Update(ctx, func(tx *queue.Tx) error {
		_, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO cluster_self (one, host) VALUES (1, ?) ON CONFLICT (one) DO UPDATE SET host = excluded.host`, host)
		return err
	})
}

// Self returns the host name of the clustered office that last ran on this
// store (ok false: none did).
func Self(ctx context.Context, store *queue.Store) (host string, ok bool, err error) {
	has, err := hasTables(ctx, store.DB())
	if err != nil || !has {
		return "", false, err
	}
	err = store.DB().QueryRowContext(ctx, `SELECT host FROM cluster_self WHERE one = 1`).Scan(&host)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("cluster: this host's name: %w", err)
	}
	return host, true, nil
}

// Origin returns the host a mail with ULID id came from when it crossed to
// this host (ok false: it did not, or the store has no cluster).
func Origin(ctx context.Context, store *queue.Store, id string) (host string, ok bool, err error) {
	has, err := hasTables(ctx, store.DB())
	if err != nil || !has {
		return "", false, err
	}
	return originOf(ctx, store.DB(), id)
}

func originOf(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (string, bool, error) {
	var host string
	err := db.QueryRowContext(ctx, `SELECT from_host FROM cluster_received WHERE id = ? AND from_host != '' AND error = ''`, id).Scan(&host)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("cluster: origin of %s: %w", id, err)
	}
	return host, true, nil
}

// Pending returns how many items wait in the outbox, per host.
func Pending(ctx context.Context, store *queue.Store) (map[string]int, error) {
	ok, err := hasTables(ctx, store.DB())
	if err != nil || !ok {
		return nil, err
	}
	rows, err := store.DB().QueryContext(ctx, `SELECT host, COUNT(*) FROM cluster_outbox GROUP BY host`)
	if err != nil {
		return nil, fmt.Errorf("cluster: outbox: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var h string
		var n int
		if err := rows.Scan(&h, &n); err != nil {
			return nil, fmt.Errorf("cluster: outbox: %w", err)
		}
		out[h] = n
	}
	return out, rows.Err()
}
