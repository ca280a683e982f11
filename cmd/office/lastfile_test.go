package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveUntilAnswering runs `office ARGS serve` in this process until it
// answers on its socket, then stops it (`office stop`) and returns its
// stderr.
func serveUntilAnswering(t *testing.T, o *testOffice, args ...string) string {
	t.Helper()
	return serveInBackground(t, o, args...)()
}

// TestStateDirRemembersItsOfficeFile: a server started without --config on
// a state directory last run with an office file runs that file again and
// says so; a store command without --config knows its agents; once the file
// is gone, the embedded default starts with a notice naming the file and
// the messages waiting for its agents, as another file given with --config
// does.
func TestStateDirRemembersItsOfficeFile(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	serveUntilAnswering(t, o, "--config", o.config, "--state", o.state)

	stderr := serveUntilAnswering(t, o, "--state", o.state)
	if want := "running " + o.config + ", the office file " + o.state + " last ran"; !strings.Contains(stderr, want) {
		t.Errorf("serve without --config: stderr %q, want %q", stderr, want)
	}
	if !strings.Contains(stderr, "serving 2 agent(s)") {
		t.Errorf("serve without --config did not run the file's 2 agents: %q", stderr)
	}
	if r := o.exec(nil, "--state", o.state, "send", "a1", "hi"); r.code != 0 {
		t.Fatalf("send a1 without --config: exit %d, %q", r.code, r.stderr)
	}

	if err := os.Remove(o.config); err != nil {
		t.Fatal(err)
	}
	stderr = serveUntilAnswering(t, o, "--state", o.state)
	for _, want := range []string{
		o.state + " last ran " + o.config + ", which is missing: running the embedded default office; the file runs again once it is back",
		"1 queued message(s) wait for agents this office does not run (a1)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("serve with the file missing: stderr %q, want %q", stderr, want)
		}
	}
	if got, err := lastOfficeFile(o.state); err != nil || got != o.config {
		t.Errorf("the file was missing for a moment, and the record became %q (%v), want %s kept", got, err, o.config)
	}
	// Back (a git checkout, an editor's rename-on-save): it runs again.
	if err := os.WriteFile(o.config, []byte("brief = false\n[[agent]]\nname = \"a1\"\ncommand = [\"cat\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr = serveUntilAnswering(t, o, "--state", o.state)
	if !strings.Contains(stderr, "running "+o.config) || !strings.Contains(stderr, "serving 1 agent(s)") {
		t.Errorf("serve with the file back: stderr %q, want it run again", stderr)
	}

	other := filepath.Join(t.TempDir(), "other.toml")
	if err := os.WriteFile(other, []byte("brief = false\n[[agent]]\nname = \"z9\"\ncommand = [\"cat\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr = serveUntilAnswering(t, o, "--config", other, "--state", o.state)
	if want := "1 queued message(s) wait for agents this office does not run (a1)"; !strings.Contains(stderr, want) {
		t.Errorf("serve --config another file: stderr %q, want %q", stderr, want)
	}
	if got, err := lastOfficeFile(o.state); err != nil || got != other {
		t.Errorf("remembered %q (%v), want %s", got, err, other)
	}
}

// serveInBackground runs `office ARGS serve` in this process until it
// answers on its socket; the returned func stops it (`office stop`) and
// returns its stderr.
func serveInBackground(t *testing.T, o *testOffice, args ...string) (stop func() string) {
	t.Helper()
	var errb bytes.Buffer
	served := make(chan int, 1)
	go func() {
		e := &env{stdin: strings.NewReader(""), stdout: new(bytes.Buffer), stderr: &errb,
			getenv: func(k string) string { return o.env[k] }, bin: "office"}
		served <- run(context.Background(), e, append(args, "serve"))
	}()
	deadline := time.Now().Add(20 * time.Second)
	for o.exec(nil, "--state", o.state, "team").code != 0 {
		select {
		case code := <-served:
			t.Fatalf("office serve ended with %d: %s", code, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("office serve did not answer within 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return func() string {
		t.Helper()
		if r := o.exec(nil, "--state", o.state, "stop"); r.code != 0 {
			t.Fatalf("stop: exit %d, %q", r.code, r.stderr)
		}
		if code := <-served; code != 0 {
			t.Fatalf("serve: exit %d, %q", code, errb.String())
		}
		return errb.String()
	}
}

// TestStoreCommandsWhileServingIgnoreTheOfficeFile: while a server runs, an
// office file that became invalid does not break send, queue or inbox (they
// do not load it); with no server, its error names the record it came from
// and how to get out (exit 2).
func TestStoreCommandsWhileServingIgnoreTheOfficeFile(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	stop := serveInBackground(t, o, "--config", o.config, "--state", o.state)
	if err := os.WriteFile(o.config, []byte("[[agent]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"send", "a1", "hi"}, {"queue"}, {"inbox"}} {
		if r := o.exec(nil, append([]string{"--state", o.state}, args...)...); r.code != 0 {
			t.Errorf("%v while serving, the file invalid: exit %d, %q", args, r.code, r.stderr)
		}
	}
	stop()
	r := o.exec(nil, "--state", o.state, "queue")
	record := filepath.Join(o.state, lastFileName)
	if want := o.config + " (remembered in " + record + "): "; r.code != 2 || !strings.Contains(r.stderr, want) ||
		!strings.Contains(r.stderr, "fix it, pass --config, or remove "+record) {
		t.Errorf("queue with no server, the remembered file invalid: exit %d, %q; want 2 and %q", r.code, r.stderr, want)
	}
}

// TestRememberedFileUnreachableIsNotGone: only a file that does not exist
// (ENOENT) falls back to the default; another error reaching it (here
// ENOTDIR) is said, naming the record, and the record stays.
func TestRememberedFileUnreachableIsNotGone(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	if err := os.MkdirAll(o.state, 0o700); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(o.config, "x") // a regular file as a directory
	if err := recordOfficeFile(o.state, bad); err != nil {
		t.Fatal(err)
	}
	r := o.exec(nil, "--state", o.state, "queue")
	if want := bad + " (remembered in "; r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("queue, the remembered file unreachable: exit %d, %q; want 2 and %q", r.code, r.stderr, want)
	}
	if got, err := lastOfficeFile(o.state); err != nil || got != bad {
		t.Errorf("record %q (%v), want %s kept", got, err, bad)
	}
}
