package inbox

// service.go opens the inbox layer on a queue store: its schema, its limits,
// its sentinel errors and the id source.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"office/configs"
	"office/queue"
)

// Limits of the inbox's door (docs/design.md §5). The tunables (batch
// size, deadline, stall, retention, retries) are Options, with the settings
// table's defaults (configs.Defaults).
const (
	// PreviewThreshold: a body longer than this is delivered as a preview of
	// PreviewBytes plus the command that shows it whole.
	PreviewThreshold = 32 * 1024
	// PreviewBytes is the size of the preview of a long body.
	PreviewBytes = 2 * 1024
	// MaxBodyBytes is the largest body Send accepts (stored whole).
	MaxBodyBytes = queue.MaxBody
)

// Person and System are the parties that are not agents: the person at the
// keyboard, and office itself (an empty sender renders as System).
const (
	Person = "person"
	System = "system"
)

// The queue sources (queue.EnqueueOptions.Source) of the messages the inbox
// enqueues itself: an inbox delivery (its batch of items), and a journal's
// continuation (JournalContinuation). Office makes both; no client's
// enqueue may claim them (the channel hands over office's own words).
const (
	SourceInbox   = "inbox"
	SourceJournal = "journal"
)

// Sentinel errors; every error is wrapped with the operation and subject.
var (
	// ErrUnknownReceiver: the receiver is neither a registered agent (not
	// removed) nor the person. Nothing was written. Errors carrying it also
	// match queue.ErrUnknownAgent.
	ErrUnknownReceiver = errors.New("unknown receiver")
	// ErrBlankBody: the body (or a mail's title) is empty after trimming.
	// Nothing was written. Errors carrying it also match queue.ErrBlank.
	ErrBlankBody = errors.New("blank body")
	// ErrTooLarge: the body exceeds MaxBodyBytes. Nothing was written.
	ErrTooLarge = errors.New("body too large")
	// ErrNotFound: no item or mail has that id. Errors carrying it also
	// match queue.ErrNotFound.
	ErrNotFound = errors.New("not found")
	// ErrNotAllowed: the caller may not do this to that mail (reply from
	// someone who is not its receiver, cancel from someone who is not its
	// sender or the person, reply to mail that is not a request).
	ErrNotAllowed = errors.New("not allowed")
	// ErrFinal: the mail is in a terminal state (done, failed, cancelled),
	// or past the state the operation needs.
	ErrFinal = errors.New("mail state is final")
	// ErrNothingPending: an inbox delivery was attempted with no item left
	// to deliver (the drain drops it on its next pass).
	ErrNothingPending = errors.New("no inbox items pending")
)

// both is err that also matches also (errors.Is, errors.As), with err's
// text alone: inbox's sentinels match the store's for callers that know
// only those, without saying it twice ("not found (message not found)").
type both struct{ err, also error }

func (b both) Error() string   { return b.err.Error() }
func (b both) Unwrap() []error { return []error{b.err, b.also} }

// Options configure a Service. The zero value is valid: a zero (or
// negative) field means the settings table's default (configs.Defaults),
// named on the field. The engine fills them from the office file.
type Options struct {
	// MailDeadline is the deadline of mail sent without one; 0 means 30 min
	// (mail_timeout).
	MailDeadline time.Duration
	// BatchItems is the most items one delivery renders; 0 means 100
	// (batch_items).
	BatchItems int
	// BatchBytes is the size one delivery's rendered items may reach (the
	// first item is always taken, whatever its size); 0 means 32 KiB
	// (batch_bytes).
	BatchBytes int
	// MailTitleBytes is the most bytes of a mail's title (after trimming);
	// a longer one is ErrTooLarge. 0 means 1 KiB (mail_title_bytes).
	MailTitleBytes int
	// Stall is how long a busy agent may go without activity before it
	// counts as stalled, when its StallObservation does not say; 0 means
	// 6 min (stall).
	Stall time.Duration
	// Retention: delivered items and finished mail older than this are
	// deleted; undelivered items older than this become dead letters. 0
	// means 7 days (retention).
	Retention time.Duration
	// JournalContinuations is how many continuations a missing journal
	// gets; 0 means 3 (journal_continuations).
	JournalContinuations int
	// StateRetries is how many times a failed mail state write is retried
	// before it is left to the ticker; 0 means 3 (state_retries).
	StateRetries int
	// Logger receives the layer's log; nil discards it.
	Logger *slog.Logger
}

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	def := configs.Defaults()
	dur := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	num := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	dur(&o.MailDeadline, def.MailTimeout)
	dur(&o.Stall, def.Stall)
	dur(&o.Retention, def.Retention)
	num(&o.BatchItems, def.BatchItems)
	num(&o.BatchBytes, def.BatchBytes)
	num(&o.MailTitleBytes, def.MailTitleBytes)
	num(&o.JournalContinuations, def.JournalContinuations)
	num(&o.StateRetries, def.StateRetries)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Service is the inbox layer on one queue store. It is safe for concurrent
// use; other processes may hold their own Service on the same file.
type Service struct {
	store    *queue.Store
	opts     Options // with defaults
	deadline time.Duration
	log      *slog.Logger
	// remote reaches the other hosts of a floor (SetRemote); nil on one host.
	remote Remote

	idMu    sync.Mutex
	entropy io.Reader // guarded by idMu
}

// Open brings the inbox tables of store's file up to date and returns the
// Service. It returns once the schema is usable.
func Open(ctx context.Context, store *queue.Store, opts Options) (*Service, error) {
	if store == nil {
		return nil, errors.New("inbox: open: no store")
	}
	if err := store.Migrate(ctx, "inbox", migrations()); err != nil {
		return nil, fmt.Errorf("inbox: open: %w", err)
	}
	opts = opts.withDefaults()
	s := &Service{
		store:    store,
		opts:     opts,
		deadline: opts.MailDeadline,
		log:      opts.Logger,
		entropy:  ulid.Monotonic(rand.Reader, 0),
	}
	return s, nil
}

// Store returns the queue store the Service works on.
func (s *Service) Store() *queue.Store { return s.store }

// newID returns a fresh ULID for an item created at t.
func (s *Service) newID(t time.Time) string {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	return ulid.MustNew(ulid.Timestamp(t), s.entropy).String()
}

// migrations are the inbox's schema steps, oldest first (append only).
func migrations() []string {
	return []string{`
CREATE TABLE inbox_items (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	id        TEXT    NOT NULL UNIQUE,
	receiver  TEXT    NOT NULL,
	sender    TEXT    NOT NULL DEFAULT '',
	kind      TEXT    NOT NULL,
	body      TEXT    NOT NULL,
	dedupe    TEXT    NOT NULL DEFAULT '',
	state     TEXT    NOT NULL,
	lease_msg INTEGER NOT NULL DEFAULT 0,
	attempts  INTEGER NOT NULL DEFAULT 0,
	created   INTEGER NOT NULL,
	updated   INTEGER NOT NULL,
	delivered INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX inbox_by_receiver ON inbox_items(receiver, state, seq);
CREATE UNIQUE INDEX inbox_dedupe ON inbox_items(dedupe) WHERE dedupe != '';
CREATE TABLE mail (
	id          TEXT    PRIMARY KEY,
	sender      TEXT    NOT NULL,
	receiver    TEXT    NOT NULL,
	type        TEXT    NOT NULL,
	title       TEXT    NOT NULL,
	in_reply_to TEXT    NOT NULL DEFAULT '',
	state       TEXT    NOT NULL,
	reason      TEXT    NOT NULL DEFAULT '',
	deadline    INTEGER NOT NULL,
	created     INTEGER NOT NULL,
	created_seq INTEGER NOT NULL DEFAULT 0,
	working_at  INTEGER NOT NULL DEFAULT 0,
	working_seq INTEGER NOT NULL DEFAULT 0,
	finished_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX mail_by_state ON mail(state, receiver);
CREATE INDEX mail_by_reply ON mail(in_reply_to);
CREATE TABLE mail_timeline (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	mail_id TEXT    NOT NULL,
	at      INTEGER NOT NULL,
	state   TEXT    NOT NULL,
	detail  TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX mail_timeline_by_mail ON mail_timeline(mail_id, seq);
CREATE TABLE inbox_stalls (
	agent    TEXT    PRIMARY KEY,
	since    INTEGER NOT NULL,
	notified INTEGER NOT NULL
);
CREATE TABLE inbox_reports (
	agent   TEXT    PRIMARY KEY,
	status  TEXT    NOT NULL,
	summary TEXT    NOT NULL DEFAULT '',
	at      INTEGER NOT NULL
);
CREATE TABLE inbox_journal (
	agent TEXT    NOT NULL,
	task  TEXT    NOT NULL,
	tries INTEGER NOT NULL,
	PRIMARY KEY (agent, task)
);
`}
}

// ---- small helpers ----

func toNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
