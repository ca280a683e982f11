package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// answers returns the fake agent's answers to its permission dialogs.
func (o *office) answers(agent string) []string {
	b, _ := os.ReadFile(o.logs[agent])
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		var e struct{ Event, Answer string }
		if json.Unmarshal([]byte(line), &e) == nil && e.Event == "permission" {
			out = append(out, e.Answer)
		}
	}
	return out
}

// Approving a dialog the person already answered in the pane types nothing:
// the digit would sit on the prompt and the next message would be submitted
// as "1<message>".
func TestApproveAfterTheDialogClosedTypesNothing(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "dev", args: []string{"--busy", "200ms", "--permission"}})
	tm := o.startUI(160, 45)
	o.uiReady(tm, 1)
	o.send("dev", "first")
	o.waitFor(20*time.Second, "the dialog", o.statusIs("dev", "waiting"))
	tm.keys("2") // the person answers in the pane: no
	o.waitFor(10*time.Second, "the person's answer", func() bool { return len(o.answers("dev")) == 1 })
	o.waitFor(10*time.Second, "idle after the answer", o.statusIs("dev", "idle"))
	_, errOut, code := o.run("", "approve", "dev", "1")
	if code == 0 || !strings.Contains(errOut, "no dialog") {
		t.Fatalf("approve after the dialog closed: exit %d %q, want a refusal", code, errOut)
	}
	o.send("dev", "after")
	o.waitFor(30*time.Second, "the next prompt", func() bool { return len(o.prompts("dev")) == 2 })
	if got := o.prompts("dev"); got[1] != "after" {
		t.Fatalf("prompts %q: the next message is not typed as it is", got)
	}
	if got := o.answers("dev"); len(got) != 1 || got[0] != "no" {
		t.Fatalf("dialog answers %q, want only the person's", got)
	}
}

// statusIs reports whether agent's live status is want.
func (o *office) statusIs(agent, want string) func() bool {
	return func() bool {
		st, _ := o.status()
		for _, s := range st {
			if s.Name == agent {
				return s.Status == want
			}
		}
		return false
	}
}
