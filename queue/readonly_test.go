package queue

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// dirNames lists dir's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// OpenReadOnly reads what is stored and writes nothing: no -wal, -shm or
// other file appears, a write fails with ErrReadOnly, a missing file is not
// created, and a file whose schema is behind is refused (ErrSchemaBehind)
// and left as it was.
func TestOpenReadOnlyWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "q.db")
	s := openAt(t, path, Options{}, "a")
	mustEnqueue(t, s, "a", "hello", EnqueueOptions{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirNames(t, dir)

	ro, err := OpenReadOnly(path, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := ro.List(ctx, "")
	if err != nil || len(msgs) != 1 || msgs[0].Text != "hello" {
		t.Fatalf("List = %+v, %v; want the one message", msgs, err)
	}
	if _, err := ro.Enqueue(ctx, "a", "more", EnqueueOptions{}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Enqueue on a read-only store: %v, want ErrReadOnly", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after := dirNames(t, dir); !slices.Equal(before, after) {
		t.Errorf("files %v after the read-only open, want %v as before", after, before)
	}

	missing := filepath.Join(dir, "none.db")
	if _, err := OpenReadOnly(missing, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenReadOnly of a missing file: %v, want ErrNotExist", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the missing file was created: %v", err)
	}

	// A file of the first schema only, as an older binary left it.
	old := filepath.Join(dir, "old.db")
	db, err := sql.Open("sqlite", old)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(migrations()[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnly(old, 0); !errors.Is(err, ErrSchemaBehind) {
		t.Errorf("OpenReadOnly of a file behind: %v, want ErrSchemaBehind", err)
	}
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != 1 {
		t.Errorf("schema version %d (%v) after the refused open, want 1 untouched", v, err)
	}
	// Open, by contrast, migrates it: the file really is behind.
	s2, err := Open(old, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations()) {
		t.Errorf("schema version %d (%v) after Open, want %d", v, err, len(migrations()))
	}
}
