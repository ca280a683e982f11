package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"office/configs"
	"office/engine"
	"office/queue"
)

// TestOfficeFileBounds: an office file past configs.MaxFileBytes, or with
// more than configs.MaxAgents [[agent]] tables, is refused by `office
// start` with exit 2, naming the file (and the line of the first table past
// the bound), before a server is spawned.
func TestOfficeFileBounds(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte("[[agent]]\nname = \"a\"\ncommand = [\"cat\"]\n#"+strings.Repeat("x", configs.MaxFileBytes)), 0o600); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range configs.MaxAgents + 1 {
		fmt.Fprintf(&b, "[[agent]]\nname = \"a%d\"\ncommand = [\"cat\"]\n", i)
	}
	many := filepath.Join(dir, "many.toml")
	if err := os.WriteFile(many, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		big:  big + ": the file is larger than 1048576 bytes",
		many: fmt.Sprintf("%s:%d: agent #%d: more than %d agents", many, 3*configs.MaxAgents+1, configs.MaxAgents+1, configs.MaxAgents),
	} {
		r := o.exec(nil, "start", "--config", file, "--state", o.state)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("office start --config %s: exit %d, %q; want 2 with %q", filepath.Base(file), r.code, r.stderr, want)
		}
	}
	if _, err := os.Stat(filepath.Join(o.state, "office.log")); err == nil {
		t.Error("a server was spawned (its log exists)")
	}
}

// TestServeWhileAServerRuns: a second `office serve` on a state directory
// whose server runs is not bad input: exit 1, naming the running server's
// pid and socket; `office start` says the same and succeeds (exit 0).
func TestServeWhileAServerRuns(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	o.serve()
	sock := filepath.Join(o.state, "client.sock")
	want := fmt.Sprintf("a server already runs on %s (pid %d, socket %s)", o.state, os.Getpid(), sock)
	if r := o.cmd("", "serve"); r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("second serve: exit %d, %q; want 1 with %q", r.code, r.stderr, want)
	}
	if r := o.cmd("", "start"); r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("start while one runs: exit %d, %q; want 0 with %q", r.code, r.stderr, want)
	}
}

// TestQueueLabelsTheHeadByWhatIsTrue: with an office running and nothing
// holding the head, `office queue` labels it "next" until the drain has
// begun typing it (Writing stamped), then "delivering"; the rest "queued".
func TestQueueLabelsTheHeadByWhatIsTrue(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	cfg, err := configs.Load(o.config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(o.state, 0o700); err != nil {
		t.Fatal(err)
	}
	// Open without Run: the engine holds the directory (running), and no
	// drain pass records a hold or begins an attempt.
	eng, err := engine.Open(engine.Options{Config: cfg, StateDir: o.state, HostEnv: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s, err := queue.Open(filepath.Join(o.state, "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var ids []int64
	for _, text := range []string{"one", "two"} {
		id, err := s.Enqueue(ctx, "a1", text, queue.EnqueueOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	labels := func() []string {
		rows, err := queueRows(ctx, s, o.state, "a1")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Held)
		}
		return out
	}
	if got := labels(); !slices.Equal(got, []string{"next", "queued"}) {
		t.Errorf("before the drain touched it: %q, want [next queued]", got)
	}
	if _, err := s.Attempt(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if got := labels(); !slices.Equal(got, []string{"next", "queued"}) {
		t.Errorf("attempt begun, nothing typed: %q, want [next queued]", got)
	}
	if err := s.Writing(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if got := labels(); !slices.Equal(got, []string{"delivering", "queued"}) {
		t.Errorf("being typed: %q, want [delivering queued]", got)
	}
}

// TestCompletionOfIDsAndUntil: `queue rm|release ID` completes the queued
// messages' ids (with agent and text), never file names; `wait --until` its
// values, delivered:ID from the agent's queue; with no store, nothing.
func TestCompletionOfIDsAndUntil(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	complete := func(args ...string) string {
		t.Helper()
		r := o.exec(nil, append([]string{"__complete", "--state", o.state}, args...)...)
		if r.code != 0 {
			t.Fatalf("__complete %q: exit %d, %q", args, r.code, r.stderr)
		}
		return r.stdout
	}
	// :4 is ShellCompDirectiveNoFileComp.
	if got := complete("queue", "rm", ""); got != ":4\n" {
		t.Errorf("ids with no store: %q, want none and no files", got)
	}
	if _, err := os.Stat(o.state); !os.IsNotExist(err) {
		t.Errorf("completion created the state directory: %v", err)
	}
	for _, a := range [][]string{{"a1", "hello\tthere"}, {"b2", "build it"}} {
		if r := o.cmd("", "send", a[0], a[1]); r.code != 0 {
			t.Fatalf("send: %d %q", r.code, r.stderr)
		}
	}
	for _, sub := range []string{"rm", "release"} {
		if got, want := complete("queue", sub, ""), "1\ta1: hello there\n2\tb2: build it\n:4\n"; got != want {
			t.Errorf("queue %s ids: %q, want %q", sub, got, want)
		}
	}
	if got, want := complete("queue", "rm", "2"), "2\tb2: build it\n:4\n"; got != want {
		t.Errorf("queue rm 2<TAB>: %q, want %q", got, want)
	}
	if got, want := complete("wait", "a1", "--until", ""), "idle\ndrained\nexited\ndelivered:\ta message id\n:4\n"; got != want {
		t.Errorf("--until values: %q, want %q", got, want)
	}
	if got, want := complete("wait", "a1", "--until", "de"), "delivered:\ta message id\n:6\n"; got != want {
		t.Errorf("--until de: %q, want %q (no space after it)", got, want)
	}
	if got, want := complete("wait", "a1", "--until", "d"), "drained\ndelivered:\ta message id\n:4\n"; got != want {
		t.Errorf("--until d: %q, want %q", got, want)
	}
	if got, want := complete("wait", "a1", "--until", "delivered:"), "delivered:1\ta1: hello there\n:4\n"; got != want {
		t.Errorf("--until delivered: for a1: %q, want %q", got, want)
	}
	// Read-only: no -wal or -shm file of its own, and a store that needs a
	// migration completes nothing and is left as it was.
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(filepath.Join(o.state, engine.StoreFile+suffix)); !os.IsNotExist(err) {
			t.Errorf("completion left %s%s: %v", engine.StoreFile, suffix, err)
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(o.state, engine.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	if got := complete("queue", "rm", ""); got != ":4\n" {
		t.Errorf("ids of a store needing a migration: %q, want none", got)
	}
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != 1 {
		t.Errorf("schema version %d (%v) after a completion, want 1: completion migrated", v, err)
	}
}

// TestNameListIsBounded: an error naming an office's agents lists at most
// maxListed of them, then how many more.
func TestNameListIsBounded(t *testing.T) {
	names := make([]string, configs.MaxAgents)
	for i := range names {
		names[i] = fmt.Sprintf("agent%03d", i)
	}
	got := nameList(names)
	if want := fmt.Sprintf("agent%03d and %d more", maxListed-1, len(names)-maxListed); !strings.HasSuffix(got, want) || strings.Contains(got, fmt.Sprintf("agent%03d", maxListed)) {
		t.Fatalf("nameList of %d: %q", len(names), got)
	}
	if got := nameList(names[:3]); got != "agent000, agent001, agent002" {
		t.Fatalf("nameList of 3: %q", got)
	}
	if got := nameList(nil); got != "none" {
		t.Fatalf("nameList of none: %q", got)
	}
}
