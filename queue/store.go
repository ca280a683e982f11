package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Sentinel errors. Every error the package returns is wrapped with the
// operation and its subject (agent name, message id), so test with errors.Is.
var (
	// ErrBlank: a message text, agent name or event kind is empty after
	// trimming. Nothing was written.
	ErrBlank = errors.New("blank")
	// ErrUnknownAgent: the agent is not in the registry, or it was removed
	// (for operations that refuse removed agents). The wrapping error names
	// the agent. Nothing was written.
	ErrUnknownAgent = errors.New("unknown agent")
	// ErrAgentExists: AddAgent was given a name already in use by an agent
	// that is not removed. Nothing was written.
	ErrAgentExists = errors.New("agent name already in use")
	// ErrNotFound: no queued message has that id (never existed, or already
	// delivered, dropped, removed or cleared). Nothing was written.
	ErrNotFound = errors.New("message not found")
	// ErrDuplicate matches every *DuplicateError under errors.Is.
	ErrDuplicate = errors.New("duplicate pending message")
	// ErrSchemaTooNew: the file was migrated by a newer office than this one;
	// the store refuses to touch it rather than misread it.
	ErrSchemaTooNew = errors.New("database schema is newer than this binary")
)

// DuplicateError is returned by Enqueue, unwrapped, when the agent already has
// a pending message of a kind it may have only one of. The new message was not
// added; ExistingID is the pending one. errors.Is(err, ErrDuplicate) is true.
type DuplicateError struct {
	Agent      string
	ExistingID int64
	// Kind is DupCompaction or DupInbox.
	Kind string
}

// Kinds of duplicate reported in DuplicateError.Kind.
const (
	DupCompaction = "compaction"
	DupInbox      = "inbox"
)

// Error names the agent, the kind of duplicate and the pending message.
func (e *DuplicateError) Error() string {
	what := "message of kind " + strconv.Quote(e.Kind)
	switch e.Kind {
	case DupCompaction:
		what = "compaction command"
	case DupInbox:
		what = "inbox delivery"
	}
	return fmt.Sprintf("queue: agent %q already has a pending %s (message %d); not added", e.Agent, what, e.ExistingID)
}

// Is reports whether target is ErrDuplicate.
func (e *DuplicateError) Is(target error) bool { return target == ErrDuplicate }

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// Now is the clock used for every timestamp the store writes. nil: time.Now.
	Now func() time.Time
	// CompactVerbs are the first tokens (compared lowercased) that make a
	// message a compaction command, of which an agent may have at most one
	// pending. nil: {"/compact", "/compress"}. An empty non-nil slice turns
	// the compaction dedupe off. The check uses the enqueuing handle's verbs
	// against the first tokens of the messages already pending, whoever
	// enqueued them.
	CompactVerbs []string
}

// DefaultCompactVerbs returns the compaction verbs used when
// Options.CompactVerbs is nil.
func DefaultCompactVerbs() []string { return []string{"/compact", "/compress"} }

// BusyTimeout is how long a writer waits for another connection or process to
// release SQLite's write lock before failing with "database is locked".
const BusyTimeout = 10 * time.Second

// Store is a handle on one queue file. It is safe for concurrent use by many
// goroutines; other processes may hold their own Store on the same file.
type Store struct {
	path         string
	db           *sql.DB
	now          func() time.Time
	compactVerbs map[string]bool
	// wlock serializes this handle's write transactions (a 1-slot semaphore
	// that honours context cancellation). Other handles and processes are
	// serialized by SQLite's own lock, waiting up to BusyTimeout.
	wlock chan struct{}
}

// dsn builds the modernc.org/sqlite DSN for an absolute path: a file: URI (so
// a path containing '?', '#' or '%' is escaped correctly), WAL,
// synchronous=FULL, a 10 s busy timeout, foreign keys on, and BEGIN IMMEDIATE
// for every read-write transaction.
func dsn(abs string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String() + "?_pragma=busy_timeout(" + strconv.Itoa(int(BusyTimeout/time.Millisecond)) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate"
}

// Open opens the queue file at path, creating its parent directory (0700) and
// the file (0600) if they are missing, and brings the schema up to date. It
// returns only once the file is usable; an error means no Store. A file
// written by a newer schema is refused with ErrSchemaTooNew.
func Open(path string, opts Options) (*Store, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("queue: open: path is %w", ErrBlank)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("queue: open %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("queue: open %s: create directory: %w", abs, err)
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("queue: open %s: %w", abs, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("queue: open %s: %w", abs, err)
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("queue: open %s: %w", abs, err)
	}
	// Several connections let readers run while a writer commits (WAL);
	// writers of this handle queue on wlock first anyway.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)

	s := &Store{
		path:  abs,
		db:    db,
		now:   opts.Now,
		wlock: make(chan struct{}, 1),
	}
	if s.now == nil {
		s.now = time.Now
	}
	verbs := opts.CompactVerbs
	if verbs == nil {
		verbs = DefaultCompactVerbs()
	}
	s.compactVerbs = make(map[string]bool, len(verbs))
	for _, v := range verbs {
		if v = strings.ToLower(strings.TrimSpace(v)); v != "" {
			s.compactVerbs[v] = true
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*BusyTimeout)
	defer cancel()
	if err := s.connectWAL(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("queue: open %s: %w", abs, err)
	}
	if err := s.migrate(ctx, mainSchema{}, migrations()); err != nil {
		db.Close()
		return nil, fmt.Errorf("queue: open %s: %w", abs, err)
	}
	return s, nil
}

// connectWAL makes the first connection, retrying while it fails with
// SQLITE_BUSY, and checks the file is in WAL mode.
//
// Converting a new file to WAL (the DSN's journal_mode pragma) needs an
// exclusive lock that SQLite takes WITHOUT calling the busy handler, so when
// several processes open a brand-new file at once, all but one may get
// SQLITE_BUSY immediately. WAL mode is persistent: once any connection has
// converted the file, later connections only read it and wait normally. So
// only the first connection of a handle needs this retry.
func (s *Store) connectWAL(ctx context.Context) error {
	deadline := time.Now().Add(BusyTimeout)
	backoff := time.Millisecond
	for {
		err := s.checkWAL(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return ctx.Err()
		}
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

func (s *Store) checkWAL(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	var mode string
	if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return fmt.Errorf("read journal mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, not WAL", mode)
	}
	return nil
}

// isBusy reports whether err is SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == 5 // SQLITE_BUSY
}

// Close releases the handle's connections. Everything already returned as
// written is on disk; Close never loses a committed write. Using the Store
// after Close returns errors.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("queue: close %s: %w", s.path, err)
	}
	return nil
}

// Path returns the absolute path of the queue file.
func (s *Store) Path() string { return s.path }

// DB returns the underlying handle, for read-only queries by layers that keep
// tables in the same file. Writes must go through Update so that they take
// BEGIN IMMEDIATE and bump the revision.
func (s *Store) DB() *sql.DB { return s.db }

// DataVersion returns the store's revision: a counter persisted in the file
// and incremented by every committed transaction that changed anything, from
// any process or handle (this one included). Poll it and compare: a different
// value means something changed. It never decreases.
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := s.db.QueryRowContext(ctx, `SELECT v FROM meta WHERE k = 'rev'`).Scan(&v); err != nil {
		return 0, fmt.Errorf("queue: data version: %w", err)
	}
	return v, nil
}

// Tx is one write transaction (BEGIN IMMEDIATE) of a Store, handed to the
// function given to Update. Its methods mirror the Store's write methods and
// take effect only if the whole transaction commits. A Tx must not be used
// after its function returns, nor from several goroutines.
type Tx struct {
	s   *Store
	ctx context.Context
	tx  *sql.Tx
	now time.Time
}

// SQL returns the raw transaction, for statements on other layers' tables
// that must commit atomically with the queue change (inbox leases, mail
// state). The store notices the rows changed and bumps the revision.
func (t *Tx) SQL() *sql.Tx { return t.tx }

// Context returns the context the transaction runs under.
func (t *Tx) Context() context.Context { return t.ctx }

// Now returns the timestamp this transaction writes (one per transaction).
func (t *Tx) Now() time.Time { return t.now }

func (t *Tx) exec(query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(t.ctx, query, args...)
}

func (t *Tx) queryRow(query string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(t.ctx, query, args...)
}

// Update runs fn in one write transaction (BEGIN IMMEDIATE) and commits it if
// fn returns nil; any error rolls everything back and is returned unchanged.
// Update returns nil only after the commit is durable. If any row changed,
// the revision (DataVersion) is bumped in the same transaction.
//
// fn must not call the Store's own methods (its write methods would wait for
// this very transaction); use the Tx's methods instead.
func (s *Store) Update(ctx context.Context, fn func(tx *Tx) error) error {
	return s.update(ctx, "update", fn)
}

func (s *Store) lockWrite(ctx context.Context) error {
	select {
	case s.wlock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Store) unlockWrite() { <-s.wlock }

// update is Update with op naming the operation in infrastructure errors
// (lock, begin, commit). Errors from fn are returned as they are: the Tx
// methods already say what they were doing.
func (s *Store) update(ctx context.Context, op string, fn func(tx *Tx) error) (err error) {
	if err := s.lockWrite(ctx); err != nil {
		return fmt.Errorf("queue: %s: %w", op, err)
	}
	defer s.unlockWrite()
	sqlTx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return fmt.Errorf("queue: %s: begin: %w", op, err)
	}
	defer func() {
		if err != nil {
			_ = sqlTx.Rollback()
		}
	}()
	var before int64
	if err := sqlTx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return fmt.Errorf("queue: %s: %w", op, err)
	}
	t := &Tx{s: s, ctx: ctx, tx: sqlTx, now: s.now()}
	if err := fn(t); err != nil {
		return err
	}
	// Bump the revision if fn changed any row (one statement: total_changes()
	// is evaluated before this UPDATE changes anything).
	if _, err := sqlTx.ExecContext(ctx, `UPDATE meta SET v = v + 1 WHERE k = 'rev' AND total_changes() != ?`, before); err != nil {
		return fmt.Errorf("queue: %s: bump revision: %w", op, err)
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("queue: %s: commit: %w", op, err)
	}
	return nil
}

// opErr wraps err with the package and the operation.
func opErr(op string, err error) error { return fmt.Errorf("queue: %s: %w", op, err) }

// ---- migrations ----

// migrations returns the schema steps of the store's own tables, oldest
// first. Step i brings user_version from i to i+1. Append only: never edit a
// step that has shipped.
func migrations() []string {
	return []string{
		// 1: registry, queue, events, holds, meta.
		`
CREATE TABLE agents (
	name    TEXT PRIMARY KEY,
	removed INTEGER NOT NULL DEFAULT 0,
	paused  INTEGER NOT NULL DEFAULT 0,
	spec    TEXT    NOT NULL DEFAULT '',
	added   INTEGER NOT NULL
);
CREATE TABLE messages (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	agent        TEXT    NOT NULL REFERENCES agents(name),
	position     INTEGER NOT NULL,
	text         TEXT    NOT NULL,
	verb         TEXT    NOT NULL DEFAULT '',
	created      INTEGER NOT NULL,
	manual       INTEGER NOT NULL DEFAULT 0,
	precondition TEXT    NOT NULL DEFAULT '',
	kind         TEXT    NOT NULL DEFAULT '',
	source       TEXT    NOT NULL DEFAULT '',
	attempts     INTEGER NOT NULL DEFAULT 0,
	last_error   TEXT    NOT NULL DEFAULT '',
	last_attempt INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX messages_order ON messages(agent, position, id);
CREATE TABLE events (
	seq    INTEGER PRIMARY KEY AUTOINCREMENT,
	at     INTEGER NOT NULL,
	agent  TEXT    NOT NULL DEFAULT '',
	msg_id INTEGER NOT NULL DEFAULT 0,
	kind   TEXT    NOT NULL,
	detail TEXT    NOT NULL DEFAULT ''
);
CREATE TABLE holds (
	agent  TEXT PRIMARY KEY,
	reason TEXT    NOT NULL,
	at     INTEGER NOT NULL
);
CREATE TABLE meta (
	k TEXT PRIMARY KEY,
	v INTEGER NOT NULL
);
INSERT INTO meta (k, v) VALUES ('rev', 0), ('floor_paused', 0);
`,
		// 2: a delivery in flight when the office stopped is remembered, so
		// it is never typed a second time without the person's say-so.
		`
ALTER TABLE messages ADD COLUMN in_flight   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;
`,
		// 3: idempotent sends (keys.go).
		keysSchema,
	}
}

// SchemaVersion is the schema version this binary writes (PRAGMA
// user_version of an up-to-date file).
func SchemaVersion() int { return len(migrations()) }

// versioner reads and writes a schema version inside a transaction.
type versioner interface {
	get(ctx context.Context, tx *sql.Tx) (int, error)
	set(ctx context.Context, tx *sql.Tx, v int) error
	String() string
}

// mainSchema keeps the store's own version in PRAGMA user_version.
type mainSchema struct{}

func (mainSchema) get(ctx context.Context, tx *sql.Tx) (int, error) {
	var v int
	err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

func (mainSchema) set(ctx context.Context, tx *sql.Tx, v int) error {
	_, err := tx.ExecContext(ctx, `PRAGMA user_version = `+strconv.Itoa(v))
	return err
}

func (mainSchema) String() string { return "schema" }

// componentSchema keeps another layer's version in the meta table.
type componentSchema string

func (c componentSchema) key() string { return "schema:" + string(c) }

func (c componentSchema) get(ctx context.Context, tx *sql.Tx) (int, error) {
	var v int
	err := tx.QueryRowContext(ctx, `SELECT v FROM meta WHERE k = ?`, c.key()).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

func (c componentSchema) set(ctx context.Context, tx *sql.Tx, v int) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, c.key(), v)
	return err
}

func (c componentSchema) String() string { return "schema of " + strconv.Quote(string(c)) }

// migrate applies steps beyond the recorded version, each in its own
// BEGIN IMMEDIATE transaction that re-reads the version first, so several
// processes opening the same file at once apply each step exactly once.
func (s *Store) migrate(ctx context.Context, ver versioner, steps []string) error {
	for {
		done, err := s.migrateOne(ctx, ver, steps)
		if err != nil || done {
			return err
		}
	}
}

func (s *Store) migrateOne(ctx context.Context, ver versioner, steps []string) (done bool, err error) {
	if err := s.lockWrite(ctx); err != nil {
		return false, fmt.Errorf("migrate %s: %w", ver, err)
	}
	defer s.unlockWrite()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("migrate %s: begin: %w", ver, err)
	}
	defer func() {
		if err != nil || done {
			_ = tx.Rollback()
		}
	}()
	v, err := ver.get(ctx, tx)
	if err != nil {
		return false, fmt.Errorf("migrate %s: read version: %w", ver, err)
	}
	switch {
	case v > len(steps):
		return false, fmt.Errorf("%s version %d, this binary knows up to %d: %w", ver, v, len(steps), ErrSchemaTooNew)
	case v == len(steps):
		return true, nil
	}
	if _, err := tx.ExecContext(ctx, steps[v]); err != nil {
		return false, fmt.Errorf("migrate %s to version %d: %w", ver, v+1, err)
	}
	if err := ver.set(ctx, tx, v+1); err != nil {
		return false, fmt.Errorf("migrate %s to version %d: record version: %w", ver, v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migrate %s to version %d: commit: %w", ver, v+1, err)
	}
	return false, nil
}

// Migrate brings another layer's tables in this file up to date. component
// names the layer (e.g. "inbox"); steps are its SQL scripts, oldest first,
// append-only; step i takes the component from version i to i+1. The
// component's version is kept in the store's meta table, separate from the
// store's own schema. Each step runs in its own transaction, exactly once
// across processes. A recorded version beyond len(steps) is ErrSchemaTooNew.
func (s *Store) Migrate(ctx context.Context, component string, steps []string) error {
	if strings.TrimSpace(component) == "" {
		return opErr("migrate", fmt.Errorf("component name is %w", ErrBlank))
	}
	if err := s.migrate(ctx, componentSchema(component), steps); err != nil {
		return opErr("migrate", err)
	}
	return nil
}

// ---- small helpers shared by the files ----

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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
