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
	if r := o.exec(nil, "--state", o.state, "stop"); r.code != 0 {
		t.Fatalf("stop: exit %d, %q", r.code, r.stderr)
	}
	if code := <-served; code != 0 {
		t.Fatalf("serve: exit %d, %q", code, errb.String())
	}
	return errb.String()
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
		o.state + " last ran " + o.config + ", which is gone: running the embedded default office",
		"1 queued message(s) wait for agents this office does not run (a1)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("serve with the file gone: stderr %q, want %q", stderr, want)
		}
	}
	if _, err := os.Stat(filepath.Join(o.state, lastFileName)); !os.IsNotExist(err) {
		t.Errorf("the default ran, yet the record stays: %v", err)
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
