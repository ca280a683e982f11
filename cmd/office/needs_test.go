package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"office/wire"
)

// TestNeedsCommandListsAFailedAgentAndWaitUntilNeedsSeesIt: `office needs`
// prints the failed agent (its restart policy does not restart it) and not
// the one that is fine; --json is one object per item; `office wait --until
// needs` returns at once with it, and for an agent with nothing waiting it
// runs to its timeout (exit 1); an unknown agent is exit 2.
func TestNeedsCommandListsAFailedAgentAndWaitUntilNeedsSeesIt(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	body := "brief = false\n\n[[agent]]\nname = \"a1\"\ncommand = [\"cat\"]\n\n[[agent]]\nname = \"gone\"\ncommand = [\"sh\", \"-c\", \"exit 3\"]\n"
	if err := os.WriteFile(o.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o.serve()
	r := o.cmd("", "wait", "--until", "needs", "--timeout", "20s")
	if r.code != 0 || !strings.Contains(r.stdout, "gone failed: exited with status 3") {
		t.Fatalf("wait --until needs: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = o.cmd("", "needs")
	if r.code != 0 || !strings.Contains(r.stdout, "gone") || !strings.Contains(r.stdout, "failed") || strings.Contains(r.stdout, "a1") {
		t.Fatalf("needs: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = o.cmd("", "needs", "--json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var n wire.Need
	if r.code != 0 || len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &n) != nil || n.Agent != "gone" || n.Reason != wire.NeedFailed || n.Since.IsZero() {
		t.Fatalf("needs --json: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := o.cmd("", "wait", "a1", "--until", "needs", "--timeout", "500ms"); r.code != 1 || !strings.Contains(r.stderr, "nothing of a1 needed you") {
		t.Fatalf("wait a1 --until needs: exit %d, stderr %q; want a timeout", r.code, r.stderr)
	}
	if r := o.cmd("", "needs", "nobody"); r.code != 2 {
		t.Fatalf("needs nobody: exit %d, stderr %q; want 2", r.code, r.stderr)
	}
	if r := o.cmd("", "wait", "--until", "idle"); r.code != 2 {
		t.Fatalf("wait --until idle with no agent: exit %d; want 2", r.code)
	}
}
