package main

import (
	"errors"
	"os"
	"strings"
	"testing"

	"office/wire"
)

// TestWaitForAnAgentThatStaysExited: waiting for an exited agent whose
// restart policy is never to become idle, or to take a message, fails at
// once (exit 1, as "cannot happen any more"), naming the agent, its exit
// code and policy, rather than running to the timeout; a message that is
// not delivered in time is said so.
func TestWaitForAnAgentThatStaysExited(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	body := "brief = false\n\n[[agent]]\nname = \"a1\"\ncommand = [\"cat\"]\n\n[[agent]]\nname = \"gone\"\ncommand = [\"sh\", \"-c\", \"exit 3\"]\n"
	if err := os.WriteFile(o.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o.serve()
	if r := o.cmd("", "wait", "gone", "--until", "exited", "--timeout", "20s"); r.code != 0 {
		t.Fatalf("wait --until exited: exit %d, %q", r.code, r.stderr)
	}
	const why = "gone exited with code 3 and its restart policy is never"
	r := o.cmd("", "wait", "gone", "--until", "idle", "--timeout", "60s")
	if r.code != 1 || !strings.Contains(r.stderr, why) {
		t.Fatalf("wait --until idle: exit %d, stderr %q; want exit 1 saying %q", r.code, r.stderr, why)
	}
	sent := o.cmd("", "send", "gone", "hello")
	if sent.code != 0 {
		t.Fatalf("send: %d %q", sent.code, sent.stderr)
	}
	id := strings.TrimSpace(sent.stdout)
	r = o.cmd("", "wait", "gone", "--until", "delivered:"+id, "--timeout", "60s")
	if want := "message " + id + " will not be delivered"; r.code != 1 || !strings.Contains(r.stderr, why) || !strings.Contains(r.stderr, want) {
		t.Fatalf("wait --until delivered: exit %d, stderr %q; want exit 1 saying %q and %q", r.code, r.stderr, why, want)
	}

	// A message held by the agent's pause is not delivered within the timeout.
	if r := o.cmd("", "pause", "a1"); r.code != 0 {
		t.Fatalf("pause: %d %q", r.code, r.stderr)
	}
	sent = o.cmd("", "send", "a1", "held")
	id = strings.TrimSpace(sent.stdout)
	r = o.cmd("", "wait", "a1", "--until", "delivered:"+id, "--timeout", "1s")
	if want := "message " + id + " was not delivered to a1 within 1s"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("wait on a paused floor: exit %d, stderr %q; want exit 1 saying %q", r.code, r.stderr, want)
	}
}

// TestWaitUntilDrained: --until drained waits while a message is queued for
// the agent (here held by its pause, the agent idle all along: --until idle
// returns at once), and returns once it was typed in and its turn ended,
// with nothing left queued.
func TestWaitUntilDrained(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	body := "brief = false\n\n[[agent]]\nname = \"sh\"\nprofile = \"shell\"\n"
	if err := os.WriteFile(o.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o.serve()
	if r := o.cmd("", "wait", "sh", "--until", "drained", "--timeout", "60s"); r.code != 0 {
		t.Fatalf("wait --until drained on a fresh shell: exit %d, %q", r.code, r.stderr)
	}
	if r := o.cmd("", "pause", "sh"); r.code != 0 {
		t.Fatalf("pause: %d %q", r.code, r.stderr)
	}
	if r := o.cmd("", "send", "sh", "true"); r.code != 0 {
		t.Fatalf("send: %d %q", r.code, r.stderr)
	}
	if r := o.cmd("", "wait", "sh", "--until", "idle", "--timeout", "20s"); r.code != 0 {
		t.Fatalf("wait --until idle with a message held: exit %d, %q", r.code, r.stderr)
	}
	r := o.cmd("", "wait", "sh", "--until", "drained", "--timeout", "1s")
	if want := "sh did not become drained within 1s"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("wait --until drained with a message held: exit %d, %q; want exit 1 saying %q", r.code, r.stderr, want)
	}
	if r := o.cmd("", "resume", "sh"); r.code != 0 {
		t.Fatalf("resume: %d %q", r.code, r.stderr)
	}
	if r := o.cmd("", "wait", "sh", "--until", "drained", "--timeout", "60s"); r.code != 0 {
		t.Fatalf("wait --until drained after resume: exit %d, %q", r.code, r.stderr)
	}
	if ms := o.messages(); len(ms) != 0 {
		t.Fatalf("drained with %q still queued", ms)
	}
}

// fateDone judges a fate by wire's words: the server's "unknown" is an
// unknown message (bad input, exit 2), its delivery states end the wait,
// its queued one does not.
func TestFateDoneByWiresWords(t *testing.T) {
	t.Parallel()
	var in *inputError
	if done, err := fateDone(wire.MessageFate{ID: 9, State: wire.FateUnknown}, "a"); !done || !errors.As(err, &in) {
		t.Errorf("fate %s: done %v, %v; want done, bad input", wire.FateUnknown, done, err)
	}
	if done, err := fateDone(wire.MessageFate{ID: 9, Agent: "a", State: wire.DeliveryVerified}, "a"); !done || err != nil {
		t.Errorf("fate %s: done %v, %v; want done", wire.DeliveryVerified, done, err)
	}
	if done, err := fateDone(wire.MessageFate{ID: 9, Agent: "a", State: wire.FateQueued}, "a"); done || err != nil {
		t.Errorf("fate %s: done %v, %v; want waiting on", wire.FateQueued, done, err)
	}
}
