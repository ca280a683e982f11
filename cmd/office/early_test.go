package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"office/engine"
)

// earlyWindow runs `office serve` on o and holds it in its early window:
// its lock taken and its agents started, but its store not opened (the
// test holds the store's writer lock, as another writer would) and so its
// socket not listening. release lets it go on; it is called at the end
// too.
func earlyWindow(t *testing.T, o *testOffice) (release func()) {
	t.Helper()
	if err := engine.EnsureStateDir(o.state); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(o.state, engine.StoreFile+"-lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			lock.Close()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan int, 1)
	var serveErr bytes.Buffer
	go func() {
		e := &env{stdin: strings.NewReader(""), stdout: new(bytes.Buffer), stderr: &serveErr,
			getenv: func(k string) string { return o.env[k] }, bin: o.bin}
		served <- run(ctx, e, []string{"--config", o.config, "--state", o.state, "serve"})
	}()
	t.Cleanup(func() { release(); cancel(); <-served })
	deadline := time.Now().Add(20 * time.Second)
	for !engine.Running(o.state) {
		select {
		case code := <-served:
			t.Fatalf("office serve ended with %d: %s", code, serveErr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("office serve did not take its lock within 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if engine.Listening(context.Background(), o.state) {
		t.Fatal("the office listens while its store's writer lock is held: no early window to test")
	}
	return release
}

// agentRun runs office as agent runs it (OFFICE_AGENT set, --state only),
// in the background.
func agentRun(o *testOffice, agent, stdin string, args ...string) <-chan result {
	envs := map[string]string{"OFFICE_AGENT": agent}
	for k, v := range o.env {
		envs[k] = v
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return envs[k] }, bin: "office"}
		code := run(context.Background(), e, append(args, "--state", o.state))
		done <- result{code, out.String(), errb.String()}
	}()
	return done
}

// A hook call made while the office is starting (its agents run, its
// socket does not listen yet) is not lost: it reaches the engine once it
// listens, within the hook's own timeout.
func TestHookDuringTheEarlyWindowReachesTheEngine(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	release := earlyWindow(t, o)
	log, err := engine.HookLogPath(o.state, "a1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		t.Fatal(err)
	}
	done := agentRun(o, "a1", `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"early"}`, "hook", "UserPromptSubmit")
	// Its record is kept before the engine is called: from here on the
	// call is what is tested.
	deadline := time.Now().Add(hookTimeout)
	for {
		if _, err := os.Stat(log); err == nil {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("office hook ended before it kept its record: %+v", r)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("office hook kept no record")
		}
		time.Sleep(10 * time.Millisecond)
	}
	release()
	r := <-done
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("office hook during the early window: exit %d, stderr %q; want it to reach the engine", r.code, r.stderr)
	}
}

// A command an agent runs while its office is starting on a first run (no
// store yet) waits for the office instead of saying the store was deleted.
func TestAgentCommandDuringTheEarlyWindowWaits(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	release := earlyWindow(t, o)
	done := agentRun(o, "a1", "", "inbox")
	// Given a moment in the window (there is no event for "it is waiting"):
	// a command that does not wait ends in it.
	select {
	case r := <-done:
		t.Fatalf("office inbox ended during the early window: exit %d, stderr %q", r.code, r.stderr)
	case <-time.After(500 * time.Millisecond):
	}
	release()
	r := <-done
	if r.code != 0 || strings.Contains(r.stderr, "is gone") {
		t.Fatalf("office inbox during the early window: exit %d, stderr %q", r.code, r.stderr)
	}
}
