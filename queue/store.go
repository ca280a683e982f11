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
	"sync"
	"sync/atomic"
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
	// ErrInFlight: Release was given a message the drain is typing now (or
	// was typing when the office stopped: the next start settles it);
	// releasing it then would be undone as its attempt settles. Nothing was
	// written; try again once it has settled.
	ErrInFlight = errors.New("being typed now; try again when it settles")
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
	// LockTimeout bounds how long a write waits for the write lock held by
	// other processes. Zero: LockTimeout.
	LockTimeout time.Duration
	// Existing opens only a store file that exists: nothing is created (no
	// directory, no file; SQLite opens it with mode=rw), and a missing file
	// is an error wrapping fs.ErrNotExist. For a command that expects a
	// running office's store: a store deleted meanwhile must not come back
	// as an empty file.
	Existing bool
}

// DefaultCompactVerbs returns the compaction verbs used when
// Options.CompactVerbs is nil.
func DefaultCompactVerbs() []string { return []string{"/compact", "/compress"} }

// BusyTimeout is SQLite's busy_timeout: how long one statement waits for a
// lock held by another connection or process before SQLITE_BUSY. Writes wait
// longer: they retry for up to the lock timeout (see LockTimeout).
const BusyTimeout = 10 * time.Second

// Store is a handle on one queue file. It is safe for concurrent use by many
// goroutines; other processes may hold their own Store on the same file.
type Store struct {
	path         string
	db           *sql.DB
	now          func() time.Time
	compactVerbs map[string]bool
	lockTimeout  time.Duration
	// file is the database file, opened by Open without following links
	// and kept open to tell when the path no longer names it (CheckFile).
	file *os.File
	// fileMu orders CheckFile's read of file against Close (a watchdog
	// checks the file while the store closes).
	fileMu sync.Mutex
	// wlock is the cross-process writer lock (file.go).
	wlock writerLock
	// The committer (commit.go): writes are handed over on reqs; closed
	// stops it; loopDone is closed when it has stopped.
	reqs     chan *writeReq
	closed   chan struct{}
	loopDone chan struct{}
	commits  atomic.Int64 // transactions committed, for tests
	// readOnly: opened by OpenReadOnly (no committer, no files of its own).
	readOnly bool
	closeErr error
	closeMu  sync.Once
}

// dsn builds the modernc.org/sqlite DSN for an absolute path: a file: URI (so
// a path containing '?', '#' or '%' is escaped correctly), WAL,
// synchronous=FULL, a 10 s busy timeout, foreign keys on, and BEGIN IMMEDIATE
// for every read-write transaction.
func dsn(abs string, busy time.Duration) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String() + "?_pragma=busy_timeout(" + strconv.Itoa(int(busy/time.Millisecond)) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate"
}

// Open opens the queue file at path, creating its parent directory (0700) and
// the file (0600) if they are missing, and brings the schema up to date. It
// returns only once the file is usable; an error means no Store. A file
// written by a newer schema is refused with ErrSchemaTooNew. A path that is a
// symbolic link, or a file not owned by this user or writable by group or
// others, is refused with ErrUnsafeFile.
//
// Opening a file whose schema is current writes nothing: the version is read
// first and the migrations (each its own write transaction) run only when it
// is behind.
func Open(path string, opts Options) (*Store, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("queue: open: path is %w", ErrBlank)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("queue: open %s: %w", path, err)
	}
	if !opts.Existing {
		if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
			return nil, fmt.Errorf("queue: open %s: create directory: %w", abs, err)
		}
	}
	f, err := openNoFollow(abs, opts.Existing)
	if err != nil {
		return nil, fmt.Errorf("queue: open %s: %w", abs, err)
	}
	lockFile, err := openNoFollow(abs+"-lock", false)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("queue: open %s: %w", abs, err)
	}
	lockTimeout := opts.LockTimeout
	if lockTimeout <= 0 {
		lockTimeout = LockTimeout
	}
	source := dsn(abs, min(BusyTimeout, lockTimeout))
	if opts.Existing {
		source += "&mode=rw" // SQLite must not create it either
	}
	db, err := sql.Open("sqlite", source)
	if err != nil {
		f.Close()
		lockFile.Close()
		return nil, fmt.Errorf("queue: open %s: %w", abs, err)
	}
	// Several connections let readers run while a writer commits (WAL);
	// writes of this handle all go through its committer anyway.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)

	s := &Store{
		path:        abs,
		db:          db,
		now:         opts.Now,
		lockTimeout: lockTimeout,
		file:        f,
		wlock:       writerLock{path: abs + "-lock", f: lockFile},
		reqs:        make(chan *writeReq),
		closed:      make(chan struct{}),
		loopDone:    make(chan struct{}),
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

	go s.commitLoop()

	ctx, cancel := context.WithTimeout(context.Background(), lockTimeout+BusyTimeout)
	defer cancel()
	if err := s.connectWAL(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("queue: open %s: %w", abs, corrupt(err))
	}
	// SQLite opened the file by its path: it must be the file checked above.
	if err := sameFile(abs, f); err != nil {
		s.Close()
		return nil, fmt.Errorf("queue: open %s: %w", abs, err)
	}
	if err := s.migrate(ctx, "open "+abs, mainSchema{}, migrations()); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// CheckFile reports whether the store's path still names the file Open
// opened: an error wrapping ErrFileGone says it was deleted or replaced (a
// running office must stop: what it writes from then on reaches no other
// process). It is cheap (two stat calls).
func (s *Store) CheckFile() error {
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	if s.file == nil {
		return nil // closed (or a read-only store, which keeps no file)
	}
	if err := sameFile(s.path, s.file); err != nil {
		return opErr("check file", err)
	}
	return nil
}

// QuickCheck runs SQLite's quick integrity check over the whole file (it
// reads every page, so it takes time in proportion to the file's size). A
// damaged file is an error wrapping ErrCorrupt that quotes what SQLite found.
func (s *Store) QuickCheck(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check(20)`)
	if err != nil {
		if isCorrupt(err) {
			return opErr("quick check", fmt.Errorf("%w: %s: %v", ErrCorrupt, s.path, err))
		}
		return opErr("quick check", err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return opErr("quick check", err)
		}
		if line != "ok" {
			found = append(found, line)
		}
	}
	if err := rows.Err(); err != nil {
		if isCorrupt(err) {
			return opErr("quick check", fmt.Errorf("%w: %s: %v", ErrCorrupt, s.path, err))
		}
		return opErr("quick check", err)
	}
	if len(found) > 0 {
		return opErr("quick check", fmt.Errorf("%w: %s: %s", ErrCorrupt, s.path, strings.Join(found, "; ")))
	}
	return nil
}

// corrupt marks err with ErrCorrupt when SQLite found the file damaged.
func corrupt(err error) error {
	if isCorrupt(err) && !errors.Is(err, ErrCorrupt) {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return err
}

// isCorrupt reports whether err is SQLITE_CORRUPT or SQLITE_NOTADB.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == 11 || c == 26 // SQLITE_CORRUPT, SQLITE_NOTADB
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
// written is on disk; Close never loses a committed write, and a write
// already handed to the committer finishes first. Using the Store after
// Close returns errors (ErrClosed for writes).
func (s *Store) Close() error {
	s.closeMu.Do(func() {
		close(s.closed)
		<-s.loopDone
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("queue: close %s: %w", s.path, err)
		}
		s.fileMu.Lock()
		if s.file != nil {
			s.file.Close()
			s.file = nil
		}
		s.fileMu.Unlock()
		if s.wlock.f != nil {
			s.wlock.f.Close()
		}
	})
	return s.closeErr
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

// Tx is one atomic write of a Store (a savepoint inside a BEGIN IMMEDIATE
// transaction), handed to the function given to Update. Its methods mirror
// the Store's write methods and take effect only if the write commits. A Tx must not be used
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

// Update runs fn as one atomic write (inside a BEGIN IMMEDIATE transaction)
// and commits it if fn returns nil; any error undoes all of fn's changes and
// is returned unchanged. Update returns nil only after the commit is durable.
// If any row changed, the revision (DataVersion) is bumped in the same
// commit. Writes of several goroutines may share one commit (group commit,
// each in a savepoint of its own: commit.go); each is still all or nothing.
// fn does not run when ctx ends before its turn; a ctx ending while fn runs
// does not interrupt it. fn may run a second time, in a transaction of its
// own, when the commit it shared failed for a reason that was not its own
// (nothing of the first run was committed), so fn must have no effect outside
// the transaction beyond setting its results.
//
// fn must not call the Store's own methods (its write methods would wait for
// this very transaction); use the Tx's methods instead.
func (s *Store) Update(ctx context.Context, fn func(tx *Tx) error) error {
	return s.update(ctx, "update", fn)
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
		// 4: "has this agent a pending message of this kind" (the inbox's
		// one delivery per agent) is an index lookup, not a scan of the
		// agent's whole queue.
		`
CREATE INDEX messages_by_kind ON messages(agent, kind);
`,
		// 5: delivery evidence. writing: when typing began (0: no byte of
		// this attempt was written, so a stop proves it was not typed);
		// entered: when its Enter was about to be written (0: a stop proves
		// it was never submitted);
		// evidence: what is known of its delivery; set_aside: held for the
		// person without blocking the rest of the agent's queue.
		`
ALTER TABLE messages ADD COLUMN writing   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN evidence  TEXT    NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN set_aside INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN entered   INTEGER NOT NULL DEFAULT 0;
UPDATE messages SET writing = last_attempt, entered = last_attempt WHERE in_flight = 1;
`,
		// 6: elsewhere: the host of a floor that has this agent's name
		// while this host does not run it ('' : it runs here, or may).
		`
ALTER TABLE agents ADD COLUMN elsewhere TEXT NOT NULL DEFAULT '';
`,
		// 7: person_rev: how many times the person changed the message
		// (Release), which recovery's settle compares with what it read.
		`
ALTER TABLE messages ADD COLUMN person_rev INTEGER NOT NULL DEFAULT 0;
`,
		// 8: an event's typed state (Event.State): what a reader decides
		// by, never the detail's words. '' in rows written before.
		`
ALTER TABLE events ADD COLUMN state TEXT NOT NULL DEFAULT '';
`,
	}
}

// SchemaVersion is the schema version this binary writes (PRAGMA
// user_version of an up-to-date file).
func SchemaVersion() int { return len(migrations()) }

// versioner reads and writes a schema version, inside a transaction or
// (reading only) on the handle.
type versioner interface {
	get(ctx context.Context, q execQuerier) (int, error)
	set(ctx context.Context, q execQuerier, v int) error
	String() string
}

// execQuerier is what *sql.DB and *sql.Tx have in common here.
type execQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// mainSchema keeps the store's own version in PRAGMA user_version.
type mainSchema struct{}

func (mainSchema) get(ctx context.Context, q execQuerier) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

func (mainSchema) set(ctx context.Context, q execQuerier, v int) error {
	_, err := q.ExecContext(ctx, `PRAGMA user_version = `+strconv.Itoa(v))
	return err
}

func (mainSchema) String() string { return "schema" }

// componentSchema keeps another layer's version in the meta table.
type componentSchema string

func (c componentSchema) key() string { return "schema:" + string(c) }

func (c componentSchema) get(ctx context.Context, q execQuerier) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT v FROM meta WHERE k = ?`, c.key()).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

func (c componentSchema) set(ctx context.Context, q execQuerier, v int) error {
	_, err := q.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, c.key(), v)
	return err
}

func (c componentSchema) String() string { return "schema of " + strconv.Quote(string(c)) }

// migrate applies steps beyond the recorded version. It reads the version
// first, outside any write transaction, and returns at once when it is
// current (so opening an up-to-date file never waits for the write lock).
// Otherwise each step runs in its own write that re-reads the version, so
// several processes opening the same file at once apply each step exactly
// once. Every error it returns reads "queue: OP: ...".
func (s *Store) migrate(ctx context.Context, op string, ver versioner, steps []string) error {
	v, err := ver.get(ctx, s.db)
	if err != nil {
		return opErr(op, fmt.Errorf("read %s version: %w", ver, corrupt(err)))
	}
	if v > len(steps) {
		return opErr(op, fmt.Errorf("%s version %d, this binary knows up to %d: %w", ver, v, len(steps), ErrSchemaTooNew))
	}
	for v < len(steps) {
		if v, err = s.migrateOne(ctx, op, ver, steps); err != nil {
			return err
		}
	}
	return nil
}

// migrateOne applies the next step, if any, and returns the version after.
func (s *Store) migrateOne(ctx context.Context, op string, ver versioner, steps []string) (after int, err error) {
	err = s.update(ctx, op, func(t *Tx) error {
		v, err := ver.get(t.ctx, t.tx)
		if err != nil {
			return opErr(op, fmt.Errorf("read %s version: %w", ver, err))
		}
		after = v
		switch {
		case v > len(steps):
			return opErr(op, fmt.Errorf("%s version %d, this binary knows up to %d: %w", ver, v, len(steps), ErrSchemaTooNew))
		case v == len(steps):
			return nil // another process applied it meanwhile
		}
		if _, err := t.tx.ExecContext(t.ctx, steps[v]); err != nil {
			return opErr(op, fmt.Errorf("%s to version %d: %w", ver, v+1, err))
		}
		if err := ver.set(t.ctx, t.tx, v+1); err != nil {
			return opErr(op, fmt.Errorf("%s to version %d: record version: %w", ver, v+1, err))
		}
		after = v + 1
		return nil
	})
	return after, err
}

// Migrate brings another layer's tables in this file up to date. component
// names the layer (e.g. "inbox"); steps are its SQL scripts, oldest first,
// append-only; step i takes the component from version i to i+1. The
// component's version is kept in the store's meta table, separate from the
// store's own schema. When the version is current nothing is written (it is
// only read). Each step runs in its own transaction, exactly once across
// processes. A recorded version beyond len(steps) is ErrSchemaTooNew.
func (s *Store) Migrate(ctx context.Context, component string, steps []string) error {
	if strings.TrimSpace(component) == "" {
		return opErr("migrate", fmt.Errorf("component name is %w", ErrBlank))
	}
	return s.migrate(ctx, "migrate", componentSchema(component), steps)
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
