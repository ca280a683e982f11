package main

import (
	"os"
	"strings"
	"testing"
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
