package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/configs"
	"office/engine"
	"office/queue"
)

// shellConfig is an office of one plain command (no fake agent needed).
func shellConfig(t *testing.T, dir string) *configs.Config {
	t.Helper()
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte("brief = false\n[[agent]]\nname = \"c\"\ncommand = [\"cat\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runEngine opens an engine with a watch interval far longer than the test
// (so only pokes trigger checks) and runs it; the channel gets Run's error.
func runEngine(t *testing.T, every time.Duration) (*engine.Engine, string, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	e, err := engine.Open(engine.Options{Config: shellConfig(t, dir), StateDir: state, HostEnv: hostEnv(), WatchEvery: every})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	return e, state, done
}

func waitRun(t *testing.T, done <-chan error, within time.Duration) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatalf("Run still running %s after the store was lost", within)
		return nil
	}
}

// Deleting office.db under a running engine stops it at the next poke, with
// an error that says what happened and what to do.
func TestDeletedStoreStopsTheEngineLoudly(t *testing.T) {
	t.Parallel()
	_, state, done := runEngine(t, time.Hour)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(filepath.Join(state, engine.StoreFile+suffix))
	}
	engine.Poke(state)
	err := waitRun(t, done, 10*time.Second)
	if !errors.Is(err, engine.ErrStoreLost) || !errors.Is(err, queue.ErrFileGone) {
		t.Fatalf("Run returned %v, want ErrStoreLost wrapping ErrFileGone", err)
	}
	for _, want := range []string{"deleted", "start office again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
}

// A store replaced by another file is noticed by the periodic check alone.
func TestReplacedStoreStopsTheEngine(t *testing.T) {
	t.Parallel()
	_, state, done := runEngine(t, 20*time.Millisecond)
	path := filepath.Join(state, engine.StoreFile)
	if err := os.WriteFile(path+".new", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	err := waitRun(t, done, 10*time.Second)
	if !errors.Is(err, engine.ErrStoreLost) || !strings.Contains(err.Error(), "replaced") {
		t.Fatalf("Run returned %v, want ErrStoreLost saying the file was replaced", err)
	}
}

// A damaged store is refused at start with what to do.
func TestCorruptStoreRefusedAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	c := shellConfig(t, dir)
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().Enqueue(context.Background(), "c", "hello", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	// Overwrite pages past the header: SQLite opens the file, and the quick
	// check finds the damage.
	path := filepath.Join(state, engine.StoreFile)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
	for off := int64(4096); off < st.Size(); off += 4096 {
		if _, err := f.WriteAt(junk, off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	_, err = engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv()})
	if !errors.Is(err, queue.ErrCorrupt) {
		t.Fatalf("Open on a damaged store: %v, want ErrCorrupt", err)
	}
	if !strings.Contains(err.Error(), "Move it aside") {
		t.Errorf("the error does not say what to do: %v", err)
	}
}
