package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A permission dialog is forwarded once to the person (no parent), and
// `office approve` is the explicit act that answers it, logged with who did.
func TestPermissionDialogForwardedAndApproved(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t, teamAgent{name: "dev", args: []string{"--busy", "200ms", "--permission"}})
	o.startServe()
	if _, errOut, code := o.runAs("", "approve", "dev", "1"); code == 0 || !strings.Contains(errOut, "no dialog") {
		t.Fatalf("approve with no dialog: exit %d %q", code, errOut)
	}
	o.send("dev", "delete the temp files")
	o.waitFor(20*time.Second, "the dialog forwarded to the person", func() bool {
		out, _, _ := o.runAs("", "inbox", "--person")
		return strings.Contains(out, "<permission-request")
	})
	out := o.mustAs("", "inbox", "--person", "--json")
	if !strings.Contains(out, "Do you want to proceed?") || !strings.Contains(out, "office approve dev OPTION") || strings.Count(out, "permission-request agent") != 1 {
		t.Fatalf("person's inbox:\n%s", out)
	}
	o.mustAs("", "approve", "dev", "yes")
	o.waitFor(20*time.Second, "the turn to run", func() bool {
		for _, e := range o.log("dev") {
			if e.Event == "reply" {
				return true
			}
		}
		return false
	})
	answered := false
	for _, e := range o.log("dev") {
		if e.Event == "permission" {
			answered = true
		}
	}
	log, _ := os.ReadFile(filepath.Join(o.state, "office.log"))
	if !answered || !strings.Contains(string(log), "dialog answered") || !strings.Contains(string(log), "by=person") {
		t.Fatalf("approval not typed or not logged (answered %v)", answered)
	}
}

// An agent with a task gets the journal continuation after a turn that left
// no journal, and its parent hears about the first turn with the agent's
// own report.
func TestTaskAgentJournalAndReportedOutcome(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t,
		teamAgent{name: "lead", args: []string{"--busy", "200ms"}},
		teamAgent{name: "dev", args: []string{"--busy", "2s"}, parent: "lead", task: "T-1"},
	)
	o.startServe()
	o.send("dev", "start on T-1")
	o.waitFor(15*time.Second, "dev busy with its first turn", func() bool { return len(o.prompts("dev")) == 1 })
	o.mustAs("dev", "report", "partial", "parser half done")
	o.waitFor(25*time.Second, "the continuation", func() bool {
		return o.promptWith("dev", "Before terminating, write the task progress journal to: "+filepath.Join(o.state, "tasks", "T-1", "progress.md"))
	})
	o.waitFor(25*time.Second, "the parent notice with the report", func() bool {
		return o.promptWith("lead", `(actor_id: dev) completed.`, "Status: partial", "Summary: parser half done")
	})
}
