package main

// store.go opens the durable store for the commands that only touch it
// (send, queue, pause, resume, mail, inbox, report). They work whether or not
// an office is running, and poke its socket afterwards so a running drain
// looks at once.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"office/engine"
	"office/queue"
)

// openStore opens the state dir's store and registers the config's agents, so
// a name from the config is known even before the office first ran. While a
// server runs on the state dir the office file is not even loaded (an
// invalid one must not break send, queue or inbox) and nothing is
// registered: the running office registered its own agents, and those of
// another file (or of the embedded default, say "shell", when --config was
// forgotten) would make a send to an agent it does not run succeed and wait
// for ever.
func openStore(ctx context.Context, e *env, g *globals) (*queue.Store, string, error) {
	// Resolved only: a bad office file (no server) must leave no state
	// directory behind.
	where, err := engine.StateDir(g.state, e.getenv)
	if err != nil {
		return nil, "", err
	}
	if engine.Running(where) {
		dir, err := stateDir(g, e)
		if err != nil {
			return nil, "", err
		}
		// A server still starting may not have registered its agents yet;
		// it listens on its socket only once it has, so the command waits
		// for that (or for the server to go) and registers nothing itself.
		if err := awaitRegistered(ctx, dir); err != nil {
			return nil, "", err
		}
		if engine.Running(dir) {
			// The running office's store: a missing one was deleted under
			// it (it stops at its next check), and is not made again empty.
			s, err := queue.Open(filepath.Join(dir, engine.StoreFile), queue.Options{Existing: true})
			if err != nil {
				return nil, "", storeGone(dir, err)
			}
			return s, dir, nil
		}
	}
	cfg, _, err := loadConfig(g, e)
	if err != nil {
		return nil, "", err
	}
	dir, err := stateDir(g, e)
	if err != nil {
		return nil, "", err
	}
	if err := engine.EnsureStateDir(dir); err != nil {
		return nil, "", err
	}
	s, err := queue.Open(filepath.Join(dir, engine.StoreFile), queue.Options{})
	if err != nil {
		return nil, "", err
	}
	if err := s.EnsureAgents(ctx, agentNames(cfg)); err != nil {
		s.Close()
		return nil, "", err
	}
	return s, dir, nil
}

// awaitRegistered waits, up to startWait, until the server holding dir's
// lock listens on its socket (it listens only after registering its
// agents; a busy or stopped server that listens counts, so the store-only
// commands keep working while it misbehaves) or no server holds the lock
// any more.
func awaitRegistered(ctx context.Context, dir string) error {
	deadline := time.NewTimer(startWait)
	defer deadline.Stop()
	tick := time.NewTicker(startPoll)
	defer tick.Stop()
	for {
		if engine.Listening(ctx, dir) || !engine.Running(dir) {
			return nil
		}
		select {
		case <-deadline.C:
			return fmt.Errorf("the office on %s (pid %d) has not answered within %v; see %s", dir, engine.ServerPid(dir), startWait, filepath.Join(dir, engine.LogFile))
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// openRegistry is openStore, except inside an office agent (OFFICE_AGENT set)
// with no --config: there the registry the engine wrote is the truth and the
// embedded default's agents are not registered.
func openRegistry(ctx context.Context, e *env, g *globals) (*queue.Store, string, error) {
	if g.config != "" || strings.TrimSpace(e.getenv("OFFICE_AGENT")) == "" {
		return openStore(ctx, e, g)
	}
	dir, err := stateDir(g, e)
	if err != nil {
		return nil, "", err
	}
	// The office starts its agents before it opens (on a first run:
	// creates) its store; a command one of them runs then waits until the
	// office listens, as openStore does, before a missing store means it
	// was deleted.
	if engine.Running(dir) {
		if err := awaitRegistered(ctx, dir); err != nil {
			return nil, "", err
		}
	}
	s, err := queue.Open(filepath.Join(dir, engine.StoreFile), queue.Options{Existing: true})
	if err != nil {
		return nil, "", storeGone(dir, err)
	}
	return s, dir, nil
}

// storeGone says, for a store the command expected and did not find (a
// running office's, or the one an agent's office made), what happened.
func storeGone(dir string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the office's store %s is gone (deleted under the running office, which stops when it notices); nothing was written: %w",
			filepath.Join(dir, engine.StoreFile), err)
	}
	return err
}

// lookPathIn returns a PATH lookup over path (not the process's PATH variable,
// so tests can pass their own).
func lookPathIn(path string) func(string) (string, error) {
	return func(prog string) (string, error) {
		if strings.Contains(prog, "/") {
			if st, err := os.Stat(prog); err == nil && !st.IsDir() {
				return prog, nil
			}
			return "", fmt.Errorf("%s: not found", prog)
		}
		for _, dir := range filepath.SplitList(path) {
			if dir == "" {
				continue
			}
			p := filepath.Join(dir, prog)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s: not found on PATH", prog)
	}
}
