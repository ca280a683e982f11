package e2e

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"
)

// teamMember mirrors `office team --json`.
type teamMember struct {
	Name    string `json:"name"`
	Role    string `json:"role"`
	Profile string `json:"profile"`
	Parent  string `json:"parent"`
	Status  string `json:"status"`
	Queue   int    `json:"queue"`
	Inbox   int    `json:"inbox"`
	Added   bool   `json:"added"`
}

func (o *office) team() map[string]teamMember {
	o.t.Helper()
	out, _, code := o.runAs("", "team", "--json")
	if code != 0 {
		return nil
	}
	var ms []teamMember
	if err := json.Unmarshal([]byte(out), &ms); err != nil {
		o.t.Fatalf("team --json: %v\n%s", err, out)
	}
	m := map[string]teamMember{}
	for _, x := range ms {
		m[x.Name] = x
	}
	return m
}

// A team-added agent joins the running office, takes mail, comes back after
// a restart, and once removed is stopped, refused as a receiver, and its
// parent is told it was cancelled.
func TestTeamAddRemoveAndRestart(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t, teamAgent{name: "lead", args: []string{"--busy", "200ms"}})
	if _, errOut, code := o.runAs("", "team", "add", "x", "--profile", "claude"); code == 0 || !strings.Contains(errOut, "no office is running") {
		t.Fatalf("team add without an office: exit %d %q", code, errOut)
	}
	o.startServe()
	// The command is a real argv, one --command per word (never split).
	o.logs["helper"] = o.dir + "/helper.jsonl"
	o.mustAs("", "team", "add", "helper", "--profile", "claude", "--command", fakeBin, "--command", "--hook-evidence", "--command", "--busy", "--command", "200ms",
		"--command", "--log", "--command", o.logs["helper"], "--parent", "lead", "--role", "second pair of eyes")
	if _, errOut, code := o.runAs("", "team", "add", "lead", "--profile", "claude"); code == 0 || !strings.Contains(errOut, "already in use") {
		t.Fatalf("name in use: exit %d %q", code, errOut)
	}
	o.waitFor(20*time.Second, "helper idle in the roster", func() bool {
		m := o.team()["helper"]
		return m.Status == "idle" && m.Parent == "lead" && m.Role == "second pair of eyes" && m.Added
	})
	id := o.mustAs("lead", "mail", "send", "--to", "helper", "--title", "hi", "welcome aboard")
	o.waitFor(20*time.Second, "mail to helper done", o.mailState(id, "done"))

	// Restart: the added agent comes back.
	o.stopServe(syscall.SIGTERM)
	o.startServe()
	if m := o.team()["helper"]; !m.Added {
		t.Fatalf("helper not back after a restart: %+v", o.team())
	}

	o.mustAs("", "team", "rm", "helper")
	if _, ok := o.team()["helper"]; ok {
		t.Fatal("helper still in the roster")
	}
	if _, errOut, code := o.runAs("lead", "mail", "send", "--to", "helper", "hello?"); code != 2 || !strings.Contains(errOut, "removed") {
		t.Fatalf("send to a removed agent: exit %d %q", code, errOut)
	}
	o.waitFor(20*time.Second, "the cancelled notice to lead", func() bool {
		return o.promptWith("lead", `Background sub-session "second pair of eyes" (actor_id: helper) was cancelled.`)
	})
	if _, errOut, code := o.runAs("", "team", "rm", "lead"); code == 0 || !strings.Contains(errOut, "config file") {
		t.Fatalf("rm of a config agent: exit %d %q", code, errOut)
	}
	// Joins and leaves are on the event log (the engine's log says so too).
	o.stopServe(syscall.SIGTERM)
	o.startServe()
	if _, ok := o.team()["helper"]; ok {
		t.Fatal("a removed agent came back after a restart")
	}
}
