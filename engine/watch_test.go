package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
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

// A state directory made writable by group or others under a running
// engine (the start refuses one) stops it at the next check, loudly, as a
// replaced store does.
func TestStateDirMadeWritableStopsTheEngine(t *testing.T) {
	t.Parallel()
	_, state, done := runEngine(t, time.Hour)
	if err := os.Chmod(state, 0o770); err != nil {
		t.Fatal(err)
	}
	engine.Poke(state)
	err := waitRun(t, done, 10*time.Second)
	if !errors.Is(err, engine.ErrUnsafeStateDir) {
		t.Fatalf("Run returned %v, want ErrUnsafeStateDir", err)
	}
	for _, want := range []string{state, "writable by group or others (mode 0770)", "chmod 700", "start office again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
}

// The agents start before the store is opened: when the store is then
// refused, the agent started for that run is stopped, not left running.
func TestRefusedStoreLeavesNoAgentRunning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	c := fakeConfig(t, dir, 1)
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv()})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
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
	if _, err = engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv()}); !errors.Is(err, queue.ErrCorrupt) {
		t.Fatalf("Open on a damaged store: %v, want ErrCorrupt", err)
	}
	// No process of this test's agent is left: its command line names the
	// test's own log file.
	log := filepath.Join(dir, "a0.jsonl")
	waitCond(t, 10*time.Second, "the agent's processes gone", func() bool { return len(processesNaming(t, log)) == 0 })
	if b, err := os.ReadFile(log); err != nil || strings.Count(string(b), `{"event":"start"`) < 1 {
		t.Fatalf("the agent never started (%v): %s", err, b)
	}
}

// processesNaming lists the pids whose command line contains s.
func processesNaming(t *testing.T, s string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	var out []int
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, pid)
		}
	}
	return out
}
