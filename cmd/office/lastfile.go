package main

// lastfile.go: the state directory remembers the office file its server
// last ran, so `office`, `office start` and `office serve` without --config
// run that office again instead of the embedded default (whose agents would
// leave the old agents' queued messages waiting as "unknown agent").

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"office/configs"
	"office/engine"
	"office/queue"
)

// lastFileName is the file in the state directory that holds the absolute
// path of the office file the server last ran (absent: the embedded
// default).
const lastFileName = "office-file"

// readOnlyWait bounds how long a read-only look at the store (a shell
// completion, a notice before a server starts) waits for a lock held
// elsewhere: a Tab press must not hang for the store's busy timeout.
const readOnlyWait = 500 * time.Millisecond

// maxLastFile bounds what is read of it: a path (PATH_MAX is 4096).
const maxLastFile = 4096

// lastOfficeFile returns the office file the state directory's server last
// ran, "" when it ran the embedded default or never ran.
func lastOfficeFile(dir string) (string, error) {
	f, err := os.OpenFile(filepath.Join(dir, lastFileName), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("state directory %s: %w", dir, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLastFile+1))
	if err != nil {
		return "", fmt.Errorf("state directory %s: %w", dir, err)
	}
	if len(b) > maxLastFile {
		return "", &inputError{fmt.Errorf("%s: longer than %d bytes: not a path office wrote (remove it)", f.Name(), maxLastFile)}
	}
	return strings.TrimSpace(string(b)), nil
}

// recordOfficeFile remembers path (absolute; "" for the embedded default)
// as the office file dir's server runs, replacing the record atomically.
func recordOfficeFile(dir, path string) error {
	name := filepath.Join(dir, lastFileName)
	if path == "" {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("record the office file: %w", err)
		}
		return nil
	}
	tmp, err := os.CreateTemp(dir, lastFileName+".*")
	if err != nil {
		return fmt.Errorf("record the office file: %w", err)
	}
	_, werr := tmp.WriteString(path + "\n")
	serr := tmp.Sync() // a crash after the rename must not leave an empty record
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("record the office file: %w", err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("record the office file: %w", err)
	}
	return nil
}

// rememberedFile resolves a missing --config from the state directory's
// record: the path of the office file to load ("" for the embedded default),
// the record's path when the file came from it ("" otherwise) and a notice
// saying what was chosen, or "" when there is nothing to say. A remembered
// file that does not exist (ENOENT: an editor's rename-on-save, a git
// checkout) leaves the default, with a notice naming the file; the record
// stays, so the file runs again once it is back. Any other error reaching
// the file is the file's error, said by the load.
func rememberedFile(g *globals, e *env) (path, record, notice string, err error) {
	if g.config != "" {
		return g.config, "", "", nil
	}
	dir, err := engine.StateDir(g.state, e.getenv)
	if err != nil {
		return "", "", "", err
	}
	last, err := lastOfficeFile(dir)
	if err != nil || last == "" {
		return "", "", "", err
	}
	record = filepath.Join(dir, lastFileName)
	if _, err := os.Stat(last); errors.Is(err, fs.ErrNotExist) {
		return "", "", missingNotice(dir, last), nil
	}
	return last, record, fmt.Sprintf("running %s, the office file %s last ran (--config FILE runs another)", last, dir), nil
}

// missingNotice says that dir's last office file does not exist, and that
// the record is kept.
func missingNotice(dir, last string) string {
	return fmt.Sprintf("%s last ran %s, which is missing: running the embedded default office; the file runs again once it is back (remove %s to forget it)",
		dir, last, filepath.Join(dir, lastFileName))
}

// rememberedError is err, loading path taken from record, saying where the
// path came from and how to get out.
func rememberedError(path, record string, err error) error {
	return &inputError{fmt.Errorf("%s (remembered in %s): %v; fix it, pass --config, or remove %s", path, record, err, record)}
}

// waitingNotice says which messages queued in dir's store wait for agents
// cfg does not run (and no `team add` record of the store starts): those
// of another office file the directory ran before. "" when there are none,
// or no store yet (or one busy past readOnlyWait, or needing a migration:
// the server's own open migrates it). It only reads: nothing is created.
func waitingNotice(ctx context.Context, dir string, cfg *configs.Config) string {
	s, err := queue.OpenReadOnly(filepath.Join(dir, engine.StoreFile), readOnlyWait)
	if err != nil {
		return ""
	}
	defer s.Close()
	return waitingIn(ctx, s, cfg)
}

// waitingIn is waitingNotice on an open store s: the server's own, once
// it is open (opening the store a second time before the agents start
// would put that open on their path). "" when there are none, or s cannot
// be read.
func waitingIn(ctx context.Context, s *queue.Store, cfg *configs.Config) string {
	msgs, err := s.List(ctx, "")
	if err != nil || len(msgs) == 0 {
		return ""
	}
	recs, err := s.ListAgents(ctx)
	if err != nil {
		return ""
	}
	runs := map[string]bool{}
	for _, a := range cfg.Agents {
		runs[a.Name] = true
	}
	for _, r := range recs {
		if r.Spec != "" || r.Removed { // team-added (started again), or removed on purpose
			runs[r.Name] = true
		}
	}
	waiting, agents := 0, []string{}
	for _, m := range msgs {
		if runs[m.Agent] {
			continue
		}
		waiting++
		if !slices.Contains(agents, m.Agent) {
			agents = append(agents, m.Agent)
		}
	}
	if waiting == 0 {
		return ""
	}
	return fmt.Sprintf("%d queued message(s) wait for agents this office does not run (%s): 'office stop', then 'office --config FILE' with the file that has them (or 'office queue clear AGENT')",
		waiting, strings.Join(agents, ", "))
}
