package engine

// watch.go keeps an eye on the state directory while the engine runs: every
// few seconds, and at each poke, it checks that the store's path still names
// the file the engine opened (deleted or replaced: the engine stops loudly,
// since every write from then on would go to a file no other process reads,
// or come from one this engine does not read), that the directory itself is
// still this user's alone (writable by group or others: it stops loudly too,
// as the start would refuse it), and that the socket is still there (removed
// or replaced: it is made again, so commands find the office).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// DefaultWatchEvery is how often a running engine checks its store and socket
// (it also checks at each poke).
const DefaultWatchEvery = 2 * time.Second

// ErrStoreLost: the store was deleted or replaced under the running engine,
// which stopped. The wrapping error says what happened and what to do.
var ErrStoreLost = errors.New("the store was deleted or replaced under the running office")

// watch checks the state directory until ctx ends; a lost store cancels
// ctx's run with the error (stop).
func (e *Engine) watch(ctx context.Context, stop context.CancelCauseFunc) {
	every := e.opts.WatchEvery
	if every <= 0 {
		every = DefaultWatchEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-e.life.watchNow:
		}
		if err := e.checkState(); err != nil {
			stop(err)
			return
		}
	}
}

// checkState checks the store and the socket once. It returns a non-nil
// error (wrapping ErrStoreLost) when the engine must stop.
func (e *Engine) checkState() error {
	if err := e.store.CheckFile(); err != nil {
		path := filepath.Join(e.opts.StateDir, StoreFile)
		err = fmt.Errorf("engine: %w: %w; stopping now so that nothing is written to or delivered from a store other processes do not share. "+
			"Messages queued since then are in the file now at %s, if any (office send creates a new one). "+
			"Restore the old file if you have it, then start office again", ErrStoreLost, err, path)
		e.log.Error("store lost; stopping", "err", err)
		return err
	}
	if err := e.checkDirMode(); err != nil {
		e.log.Error("state directory unsafe; stopping", "err", err)
		return err
	}
	if s := e.serve.srv.Load(); s != nil {
		if err := s.CheckSocket(); err != nil {
			e.log.Error("socket check", "err", err)
		}
	}
	return nil
}

// checkDirMode refuses the state directory itself as the start does
// (EnsureStateDir): no longer a directory of this user's, or writable by
// group or others. Then another user could replace the store, the socket or
// an agent's files under the running office, so it stops (an error wrapping
// ErrUnsafeStateDir) rather than go on trusting them. One stat: the
// entries are checked at start only.
func (e *Engine) checkDirMode() error {
	dir := e.opts.StateDir
	st, err := os.Stat(dir)
	what := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // the store check says it: the store is gone with it
	case err != nil:
		return nil // unreadable now: the store check decides
	case !st.IsDir():
		what = "is not a directory any more"
	default:
		what = unsafeMode(st, true)
	}
	if what == "" {
		return nil
	}
	return fmt.Errorf("engine: %w; it changed while the office ran, so it stops now rather than trust the store and socket in it. Then start office again", &unsafeDirError{dir: dir, path: dir, what: what})
}

// lostStore turns a run cancelled by the watcher into its error: a lost
// store, or a state directory that became unsafe.
func lostStore(ctx context.Context) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrStoreLost) || errors.Is(cause, ErrUnsafeStateDir) {
		return cause
	}
	return nil
}
