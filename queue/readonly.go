package queue

// readonly.go opens a store only to read it (the shell's completions, the
// notices a command prints before a server starts): nothing is created or
// migrated, and a busy file is given up on quickly.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ErrReadOnly: a write through a Store opened with OpenReadOnly. Nothing was
// written.
var ErrReadOnly = errors.New("store is opened read-only")

// ErrSchemaBehind: OpenReadOnly of a file whose schema this binary would
// migrate (Open does that).
var ErrSchemaBehind = errors.New("schema needs migrating")

// OpenReadOnly opens the existing queue file at path only to read it: no
// directory, file, lock file or schema change is made (SQLite's mode=ro
// and query_only), each statement waits at most busy for a lock held
// elsewhere (0: one second), and every write fails with ErrReadOnly. A
// missing file is an error wrapping fs.ErrNotExist, a file whose schema is
// behind ErrSchemaBehind (a newer one ErrSchemaTooNew), an unsafe one
// ErrUnsafeFile, as Open says.
func OpenReadOnly(path string, busy time.Duration) (*Store, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("queue: open read-only: path is %w", ErrBlank)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("queue: open %s read-only: %w", path, err)
	}
	if busy <= 0 {
		busy = time.Second
	}
	var st unix.Stat_t
	if err := unix.Lstat(abs, &st); err != nil {
		return nil, fmt.Errorf("queue: open %s read-only: %w", abs, err)
	}
	if err := safeStat(abs, &st); err != nil {
		return nil, fmt.Errorf("queue: open %s read-only: %w", abs, err)
	}
	// With no -wal file no connection has the file open (the last one to
	// close checkpoints and deletes it): everything is in the main file,
	// read as immutable, so SQLite creates no -wal or -shm of its own.
	// With one, the connections there share their -shm with this one.
	mode := "mode=ro"
	if _, err := os.Lstat(abs + "-wal"); errors.Is(err, fs.ErrNotExist) {
		mode += "&immutable=1"
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	db, err := sql.Open("sqlite", u.String()+"?"+mode+"&_pragma=busy_timeout("+strconv.Itoa(int(busy/time.Millisecond))+")&_pragma=query_only(1)")
	if err != nil {
		return nil, fmt.Errorf("queue: open %s read-only: %w", abs, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{path: abs, db: db, now: time.Now, readOnly: true,
		closed: make(chan struct{}), loopDone: make(chan struct{})}
	close(s.loopDone) // no committer: nothing is written
	ctx, cancel := context.WithTimeout(context.Background(), busy)
	defer cancel()
	v, err := mainSchema{}.get(ctx, db)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("queue: open %s read-only: %w", abs, corrupt(err))
	}
	switch n := len(migrations()); {
	case v > n:
		s.Close()
		return nil, fmt.Errorf("queue: open %s read-only: schema version %d, this binary knows up to %d: %w", abs, v, n, ErrSchemaTooNew)
	case v < n:
		s.Close()
		return nil, fmt.Errorf("queue: open %s read-only: schema version %d, this binary's is %d: %w", abs, v, n, ErrSchemaBehind)
	}
	return s, nil
}
