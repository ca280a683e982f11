package queue

import (
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Options.Existing opens only a store that exists: a missing one is an
// error wrapping fs.ErrNotExist and nothing is made, not the directory, not
// the file (nor, should the file go between the checks, by SQLite: mode=rw);
// an existing one opens as usual.
func TestOpenExistingCreatesNothing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "office.db")
	if _, err := Open(path, Options{Existing: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(Existing) of a missing store: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(Existing) of a missing store made its directory (%v)", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{Existing: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(Existing) of a missing store: %v, want fs.ErrNotExist", err)
	}
	// SQLite's own open with the DSN Existing uses does not create it.
	db, err := sql.Open("sqlite", dsn(path, BusyTimeout)+"&mode=rw")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err == nil {
		t.Error("SQLite opened a missing file with mode=rw")
	}
	db.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("opening a missing store left %v", ents)
	}
	s := openAt(t, path, Options{}, "a")
	s.Close()
	s, err = Open(path, Options{Existing: true})
	if err != nil {
		t.Fatalf("Open(Existing) of an existing store: %v", err)
	}
	s.Close()
}
