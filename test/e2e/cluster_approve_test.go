package e2e

import (
	"strings"
	"testing"
	"time"
)

// A child on b with its parent on a shows a permission dialog: the dialog
// is typed into the parent on a, and `office approve helper yes` run by the
// parent on a is typed into the child's dialog on b, once, the parent told
// it was. Once the dialog closed, approving again on a types nothing and
// says why; a name no host has is refused as on one host.
func TestClusterApproveCrossesToChildHost(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS and a dialog (about 20 s): not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "lead", args: []string{"--busy", "200ms"}})
	b := newTeamOffice(t, teamAgent{name: "worker", args: []string{"--busy", "200ms"}})
	startFloor(t, a, b, "lead", "worker")
	b.logs["helper"] = b.dir + "/helper.jsonl"
	b.mustAs("", "team", "add", "helper", "--profile", "claude", "--command", fakeBin, "--command", "--hook-evidence", "--command", "--busy", "--command", "200ms",
		"--command", "--permission", "--command", "--log", "--command", b.logs["helper"], "--parent", "lead")
	b.send("helper", "build it")
	b.waitFor(30*time.Second, "helper's dialog on b", b.statusIs("helper", "waiting"))
	a.waitFor(30*time.Second, "the dialog typed into lead on a", func() bool {
		return a.promptWith("lead", "<permission-request", "office approve helper OPTION")
	})

	out := a.mustAs("lead", "approve", "helper", "yes")
	if !strings.Contains(out, "answered helper's dialog on host b with option 1") {
		t.Fatalf("approve on a: %q", out)
	}
	b.waitFor(10*time.Second, "the answer typed on b", func() bool { return len(b.answers("helper")) == 1 })
	b.waitFor(10*time.Second, "helper idle after the turn", b.statusIs("helper", "idle"))
	if got := b.answers("helper"); got[0] != "yes" {
		t.Fatalf("helper's answers %q, want [yes]", got)
	}

	_, errOut, code := a.runAs("lead", "approve", "helper", "1")
	if code == 0 || !strings.Contains(errOut, "on host b") || !strings.Contains(errOut, "no dialog") {
		t.Fatalf("approve on a after the dialog closed: exit %d %q, want why nothing was typed", code, errOut)
	}
	if _, errOut, code := a.runAs("", "approve", "nobody-anywhere", "1"); code == 0 || strings.Contains(errOut, "host b") {
		t.Fatalf("approve of a name no host has: exit %d %q", code, errOut)
	}
	b.send("helper", "after")
	b.waitFor(30*time.Second, "the next prompt on b", func() bool { return len(b.prompts("helper")) == 2 })
	if got := b.prompts("helper"); got[1] != "after" {
		t.Fatalf("helper's prompts %q: the next message is not typed as it is", got)
	}
	if got := b.answers("helper"); len(got) != 1 {
		t.Fatalf("helper's answers %q, want only the approval from a", got)
	}
}
