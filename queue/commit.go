package queue

// commit.go is the store's group commit. Every write of a Store handle goes
// through one committer goroutine, which takes the functions waiting at that
// moment (up to maxBatch), runs them in ONE BEGIN IMMEDIATE transaction, each
// in its own savepoint (so one function's error undoes only its own
// changes), and commits them together: one fsync (synchronous=FULL) for the
// whole batch. Each caller returns only after the commit that carries its
// changes is durable. While one batch commits, the next one gathers, so the
// rate of durable writes grows with the number of writers instead of being
// one fsync each.
//
// Taking SQLite's write lock (BEGIN IMMEDIATE) waits on SQLite's busy handler
// (busy_timeout), and when that gives up with SQLITE_BUSY the committer tries
// again until the handle's lock timeout has passed, then fails the batch with
// an error saying the store stayed locked.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// maxBatch bounds how many callers' functions share one transaction (and so
// how long the write lock is held at a time).
const maxBatch = 64

// LockTimeout is how long a write waits in total for SQLite's write lock held
// by other processes (retrying BEGIN IMMEDIATE after each SQLITE_BUSY) before
// it fails with ErrLocked.
const LockTimeout = 60 * time.Second

// ErrLocked: another process held the store's write lock for longer than the
// lock timeout. Nothing was written.
var ErrLocked = errors.New("store stayed locked by another process")

// ErrClosed: the Store was closed. Nothing was written.
var ErrClosed = errors.New("store is closed")

// writeReq is one caller's write, handed to the committer.
type writeReq struct {
	ctx  context.Context
	op   string
	fn   func(*Tx) error
	done chan error // capacity 1; exactly one answer
}

// panicError carries a panic out of fn back to its caller's goroutine.
type panicError struct{ v any }

func (p panicError) Error() string { return fmt.Sprint("panic in write: ", p.v) }

// update runs fn through the committer and returns once its changes are
// durable (nil) or known not to be written (an error). op names the
// operation in infrastructure errors (lock, begin, commit); errors from fn
// are returned unchanged. A ctx that ends while the write waits for its turn
// returns at once with nothing written; once fn has started, it finishes
// (its statements do not see ctx's cancellation, so a cancelled caller can
// never abort the other callers' shared transaction).
func (s *Store) update(ctx context.Context, op string, fn func(tx *Tx) error) error {
	if err := ctx.Err(); err != nil {
		return opErr(op, err)
	}
	if s.readOnly {
		return opErr(op, ErrReadOnly)
	}
	req := &writeReq{ctx: ctx, op: op, fn: fn, done: make(chan error, 1)}
	select {
	case s.reqs <- req:
	case <-ctx.Done():
		return opErr(op, ctx.Err())
	case <-s.closed:
		return opErr(op, ErrClosed)
	}
	err := <-req.done
	if p, ok := err.(panicError); ok {
		panic(p.v)
	}
	return err
}

// commitLoop is the committer goroutine: it runs until Close.
func (s *Store) commitLoop() {
	defer close(s.loopDone)
	for {
		var first *writeReq
		select {
		case first = <-s.reqs:
		case <-s.closed:
			return
		}
		batch := []*writeReq{first}
	gather:
		for len(batch) < maxBatch {
			select {
			case r := <-s.reqs:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		s.runBatch(batch)
	}
}

// runBatch answers every request of batch. Requests whose caller already
// gave up are answered without running. If the shared transaction fails as
// a whole (begin, a savepoint, the revision bump or the commit), the requests
// whose own function succeeded are run again, each in a transaction of its
// own, so that one bad function cannot fail the others.
func (s *Store) runBatch(batch []*writeReq) {
	live := make([]*writeReq, 0, len(batch))
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- opErr(r.op, err)
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	errs, txErr := s.commit(live)
	if txErr == nil || len(live) == 1 {
		for i, r := range live {
			switch {
			case errs[i] != nil:
				r.done <- errs[i]
			case txErr != nil:
				r.done <- fmt.Errorf("queue: %s: %w", r.op, txErr)
			default:
				r.done <- nil
			}
		}
		return
	}
	for i, r := range live {
		if errs[i] != nil {
			r.done <- errs[i]
			continue
		}
		one, err := s.commit([]*writeReq{r})
		switch {
		case one[0] != nil:
			r.done <- one[0]
		case err != nil:
			r.done <- fmt.Errorf("queue: %s: %w", r.op, err)
		default:
			r.done <- nil
		}
	}
}

// commit runs reqs in one transaction and commits it. errs[i] is request i's
// own error (its changes were rolled back to its savepoint); txErr is a
// failure of the transaction as a whole (nothing of it was committed).
func (s *Store) commit(reqs []*writeReq) (errs []error, txErr error) {
	errs = make([]error, len(reqs))
	ctx := context.Background() // the transaction belongs to no single caller
	tx, unlock, err := s.begin(ctx)
	if err != nil {
		return errs, err
	}
	defer unlock()
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	var before int64
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return errs, err
	}
	if len(reqs) == 1 {
		// Alone in the transaction: no savepoint needed, a failure rolls
		// the whole transaction back.
		r := reqs[0]
		if errs[0] = runFn(r.fn, &Tx{s: s, ctx: context.WithoutCancel(r.ctx), tx: tx, now: s.now()}); errs[0] != nil {
			return errs, nil
		}
		reqs = nil
	}
	for i, r := range reqs {
		if _, err := tx.ExecContext(ctx, `SAVEPOINT write`); err != nil {
			return errs, fmt.Errorf("savepoint: %w", err)
		}
		t := &Tx{s: s, ctx: context.WithoutCancel(r.ctx), tx: tx, now: s.now()}
		errs[i] = runFn(r.fn, t)
		if errs[i] != nil {
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO write`); err != nil {
				return errs, fmt.Errorf("roll back a failed write: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `RELEASE write`); err != nil {
			return errs, fmt.Errorf("release savepoint: %w", err)
		}
	}
	// Bump the revision if anything changed (one statement: total_changes()
	// is evaluated before this UPDATE changes anything).
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET v = v + 1 WHERE k = 'rev' AND total_changes() != ?`, before); err != nil {
		return errs, fmt.Errorf("bump revision: %w", err)
	}
	committed = true
	if err := tx.Commit(); err != nil {
		return errs, fmt.Errorf("commit: %w", err)
	}
	s.commits.Add(1)
	return errs, nil
}

// runFn calls fn, turning a panic into a panicError for its caller.
func runFn(fn func(*Tx) error, t *Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError{v}
		}
	}()
	return fn(t)
}

// begin takes the cross-process writer lock and then starts a BEGIN
// IMMEDIATE transaction (the DSN's _txlock), trying again while SQLite
// answers SQLITE_BUSY (a writer that does not take the writer lock, such as
// the sqlite3 shell, holds SQLite's lock past busy_timeout), for at most the
// handle's lock timeout in all. unlock releases the writer lock; call it
// after the commit or rollback.
func (s *Store) begin(ctx context.Context) (tx *sql.Tx, unlock func(), err error) {
	start := time.Now()
	unlock, err = s.wlock.lock(s.lockTimeout)
	if err != nil {
		return nil, nil, err
	}
	backoff := time.Millisecond
	for {
		tx, err := s.db.BeginTx(ctx, nil)
		if err == nil {
			return tx, unlock, nil
		}
		waited := time.Since(start)
		if !isBusy(err) || waited >= s.lockTimeout {
			unlock()
			if isBusy(err) {
				return nil, nil, fmt.Errorf("begin: %w (waited %s for the write lock of %s): %v",
					ErrLocked, waited.Round(time.Millisecond), s.path, err)
			}
			return nil, nil, fmt.Errorf("begin: %w", err)
		}
		// Jitter keeps processes that gave up together from retrying in step.
		time.Sleep(backoff/2 + rand.N(backoff))
		backoff = min(2*backoff, 20*time.Millisecond)
	}
}
