package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"office/queue"
)

// Claude Code's StopFailure hook, run as `office hook StopFailure` with
// the 2.1.332 payload on stdin, reaches the running office: rate_limit
// with a usage-limit banner as its message (a subscription's limit) holds
// the agent ("usage limit", no reset printed: the limit_retry),
// from the hook, and with it b2, of the same profile and environment (one
// account, one hold); it is recorded as limit_hit.
func TestHookStopFailureRateLimitHoldsTheAgent(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	// The agents run cat (profile custom): give it Claude's banner.
	f, err := os.OpenFile(o.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n[profile.custom.limits]\nbanners = [\"Claude usage limit reached\"]\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	o.serve()
	o.env["OFFICE_AGENT"] = "a1"
	payload := `{"session_id":"s1","hook_event_name":"StopFailure","error":"rate_limit",` +
		`"error_details":"429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}",` +
		`"last_assistant_message":"Claude usage limit reached."}`
	if r := o.cmd(payload, "hook", "StopFailure"); r.code != 0 || r.stderr != "" {
		t.Fatalf("office hook: %d %q", r.code, r.stderr)
	}
	delete(o.env, "OFFICE_AGENT")
	var out string
	deadline := time.Now().Add(10 * time.Second)
	for {
		out = o.cmd("", "status").stdout
		if line := rowOf(out, "a1"); strings.Contains(line, "usage limit") && strings.Contains(line, "retry ") &&
			strings.Contains(line, "from hook") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status after the hook:\n%s\nwant a1 usage limit, retry …, from hook", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	deadline = time.Now().Add(10 * time.Second)
	for line := rowOf(out, "b2"); !strings.Contains(line, "usage limit") || !strings.Contains(line, "from hook"); line = rowOf(out, "b2") {
		if time.Now().After(deadline) {
			t.Fatalf("status:\n%s\nwant b2, of a1's account, held too", out)
		}
		time.Sleep(50 * time.Millisecond)
		out = o.cmd("", "status").stdout
	}
	s, err := queue.Open(filepath.Join(o.state, "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline = time.Now().Add(10 * time.Second)
	for {
		evs, err := s.Events(context.Background(), 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(evs, func(ev queue.Event) bool {
			return ev.Kind == "limit_hit" && ev.Agent == "a1" && strings.Contains(ev.Detail, "from hook")
		}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no limit_hit from the hook in %+v", evs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rowOf returns the line of a table that starts with name.
func rowOf(table, name string) string {
	for _, l := range strings.Split(table, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			return l
		}
	}
	return ""
}
