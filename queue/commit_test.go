package queue

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Writes that arrive while a commit is under way share the next one: with
// the committer held inside one write, 20 enqueues from 20 goroutines are
// committed together, each durable and in the queue when its call returns.
func TestGroupCommitSharesOneCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := open(t, Options{}, "a")
		ctx := context.Background()
		entered, release := make(chan struct{}), make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.Update(ctx, func(tx *Tx) error {
				close(entered)
				<-release
				_, err := tx.Enqueue("a", "first", EnqueueOptions{})
				return err
			})
		}()
		<-entered
		before := s.commits.Load()
		const n = 20
		ids := make([]int64, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { ids[i], errs[i] = s.Enqueue(ctx, "a", fmt.Sprintf("m%d", i), EnqueueOptions{}) })
		}
		synctest.Wait() // all 20 are waiting for the committer
		close(release)
		wg.Wait()
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("enqueue %d: %v", i, err)
			}
		}
		if got := s.commits.Load() - before; got != 2 {
			t.Errorf("%d commits for 1 + %d writes waiting together, want 2", got, n)
		}
		want := map[string][]int64{"a": ids}
		checkAll(t, s, map[string][]int64{"a": append(want["a"], firstID(t, s))})
	})
}

func firstID(t *testing.T, s *Store) int64 {
	t.Helper()
	ms, err := s.List(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Text == "first" {
			return m.ID
		}
	}
	t.Fatal("the first write is missing")
	return 0
}

// In a shared commit, a write that fails is undone alone: the others commit,
// and the failing caller gets its own error.
func TestGroupCommitIsolatesAFailingWrite(t *testing.T) {
	s := open(t, Options{}, "a")
	boom := errors.New("boom")
	mk := func(text string, fail bool) *writeReq {
		return &writeReq{ctx: context.Background(), op: "test", done: make(chan error, 1), fn: func(tx *Tx) error {
			if _, err := tx.Enqueue("a", text, EnqueueOptions{}); err != nil {
				return err
			}
			if fail {
				return boom
			}
			return nil
		}}
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	skipped := mk("never", false)
	skipped.ctx = cancelled
	reqs := []*writeReq{mk("one", false), mk("bad", true), skipped, mk("two", false)}
	before := s.commits.Load()
	s.runBatch(reqs)
	if err := <-reqs[0].done; err != nil {
		t.Errorf("first write: %v", err)
	}
	if err := <-reqs[1].done; !errors.Is(err, boom) {
		t.Errorf("failing write: %v, want its own error", err)
	}
	if err := <-reqs[2].done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled write: %v, want context.Canceled", err)
	}
	if err := <-reqs[3].done; err != nil {
		t.Errorf("last write: %v", err)
	}
	if got := strings.Join(texts(t, s, "a"), ","); got != "one,two" {
		t.Errorf("queue holds %q, want one,two", got)
	}
	if got := s.commits.Load() - before; got != 1 {
		t.Errorf("%d commits, want 1", got)
	}
}

// A panic in a write reaches its caller; the committer keeps working.
func TestGroupCommitPanicReachesTheCaller(t *testing.T) {
	s := open(t, Options{}, "a")
	func() {
		defer func() {
			if v := recover(); v != "kaboom" {
				t.Errorf("recovered %v, want kaboom", v)
			}
		}()
		_ = s.Update(context.Background(), func(*Tx) error { panic("kaboom") })
	}()
	mustEnqueue(t, s, "a", "after", EnqueueOptions{})
}

// A writer from another handle that holds the lock longer than the lock
// timeout makes a write fail with ErrLocked and nothing written; one that
// lets go in time only delays it.
func TestWriteWaitsForTheLockThenFailsClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	holder := openAt(t, path, Options{}, "a")
	s := openAt(t, path, Options{LockTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	hold := func(d time.Duration) chan struct{} {
		held, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			_ = holder.Update(ctx, func(*Tx) error {
				close(held)
				time.Sleep(d) // holding the write lock is the point here
				return nil
			})
		}()
		<-held
		return done
	}
	done := hold(time.Second)
	_, err := s.Enqueue(ctx, "a", "late", EnqueueOptions{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "enqueue") || !strings.Contains(err.Error(), "waited") {
		t.Fatalf("enqueue while locked: %v, want ErrLocked naming the operation and the wait", err)
	}
	<-done
	if got := texts(t, s, "a"); len(got) != 0 {
		t.Fatalf("a failed enqueue stored %v", got)
	}
	done = hold(100 * time.Millisecond)
	if _, err := s.Enqueue(ctx, "a", "waited", EnqueueOptions{}); err != nil {
		t.Fatalf("enqueue after a short hold: %v", err)
	}
	<-done
}

// Opening a current file and registering known agents take no write lock:
// they succeed while another handle holds it.
func TestOpenCurrentStoreWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	holder := openAt(t, path, Options{}, "a")
	if err := holder.Migrate(context.Background(), "comp", []string{`CREATE TABLE comp (x)`}); err != nil {
		t.Fatal(err)
	}
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_ = holder.Update(context.Background(), func(*Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	defer func() { close(release); <-done }()
	s, err := Open(path, Options{LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open while another handle writes: %v", err)
	}
	defer s.Close()
	if err := s.EnsureAgents(context.Background(), []string{"a"}); err != nil {
		t.Errorf("EnsureAgents of a registered agent: %v", err)
	}
	if err := s.Migrate(context.Background(), "comp", []string{`CREATE TABLE comp (x)`}); err != nil {
		t.Errorf("Migrate of a current component: %v", err)
	}
	if err := s.EnsureAgents(context.Background(), []string{"a", "new"}); !errors.Is(err, ErrLocked) {
		t.Errorf("EnsureAgents of a new agent while locked: %v, want ErrLocked (it must write)", err)
	}
}
