package engine

// watch.go keeps an eye on the state directory while the engine runs: every
// few seconds, and at each poke, it checks that the store's path still names
// the file the engine opened (deleted or replaced: the engine stops loudly,
// since every write from then on would go to a file no other process reads,
// or come from one this engine does not read) and that the socket is still
// there (removed or replaced: it is made again, so commands find the office).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultWatchEvery is how often a running engine checks its store and socket
// (it also checks at each poke).
const DefaultWatchEvery = 2 * time.Second

// ErrStoreLost: the store was deleted or replaced under the running engine,
// which stopped. The wrapping error says what happened and what to do.
var ErrStoreLost = errors.New("the store was deleted or replaced under the running office")

// registerWatchOps makes every poke also check the state directory.
func (e *Engine) registerWatchOps() {
	e.watchNow = make(chan struct{}, 1)
	plain := e.ops["poke"]
	e.ops["poke"] = func(ctx context.Context, req Request) (any, error) {
		select {
		case e.watchNow <- struct{}{}:
		default:
		}
		return plain(ctx, req)
	}
}

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
		case <-e.watchNow:
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
	if err := e.checkSocket(); err != nil {
		e.log.Error("socket check", "err", err)
	}
	return nil
}

// socketID identifies the socket file the engine listens on.
type socketID struct{ dev, ino uint64 }

// statSocket returns the identity of the socket at path; ok is false when
// there is no socket there.
func statSocket(path string) (id socketID, ok bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return socketID{}, false
	}
	return socketID{dev: uint64(st.Dev), ino: st.Ino}, true
}

// checkSocket makes the socket again if its file was removed or replaced.
func (e *Engine) checkSocket() error {
	path := filepath.Join(e.opts.StateDir, SocketFile)
	e.lnMu.Lock()
	defer e.lnMu.Unlock()
	if e.ln == nil || e.closingSocket {
		return nil
	}
	if id, ok := statSocket(path); ok && id == e.sockID {
		return nil
	}
	// The old listener must not unlink the path on close: it names the new
	// socket from now on (or something else, removed by listen).
	if ul, ok := e.ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	e.ln.Close()
	ln, id, err := listen(e.opts.StateDir)
	if err != nil {
		e.ln = nil
		return fmt.Errorf("engine: the socket %s was removed and could not be made again: %w", path, err)
	}
	e.ln, e.sockID = ln, id
	go serve(ln, e.handle)
	e.log.Warn("the socket was removed or replaced; made it again", "path", path)
	return nil
}

// lostStore turns a run cancelled by the watcher into its error.
func lostStore(ctx context.Context) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrStoreLost) {
		return cause
	}
	return nil
}
