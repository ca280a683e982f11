package e2e

// Helpers of the inbox and mail end-to-end tests: offices written with
// their own config, and commands run as an agent (OFFICE_AGENT set, no
// --config), as agents run them from their own shells.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// teamAgent is one fake agent with the inbox's config keys.
type teamAgent struct {
	name   string
	args   []string
	parent string
	role   string
	task   string
}

// newTeamOffice writes an office like newOffice, with parents, roles and
// tasks (and, like every test office, `brief = false`).
func newTeamOffice(t *testing.T, agents ...teamAgent) *office {
	t.Helper()
	specs := make([]agentSpec, len(agents))
	for i, a := range agents {
		specs[i] = agentSpec{name: a.name, args: a.args, keys: map[string]string{"parent": a.parent, "role": a.role, "task": a.task}}
	}
	return newOffice(t, specs...)
}

// runAs runs `office ARGS --state S` as agent (OFFICE_AGENT=agent, no
// --config: the registry the engine wrote is the truth) and returns stdout,
// stderr and the exit code. agent "" runs it as the person, with --config.
func (o *office) runAs(agent string, args ...string) (string, string, int) {
	o.t.Helper()
	env := o.env()
	if agent != "" {
		env = append(env, "OFFICE_AGENT="+agent, "OFFICE_STATE="+o.state)
	} else {
		args = append(args, "--config", o.config)
	}
	args = append(args, "--state", o.state)
	cmd := exec.Command(officeBin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		o.t.Fatalf("office %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// mustAs is runAs that must succeed; it returns stdout trimmed.
func (o *office) mustAs(agent string, args ...string) string {
	o.t.Helper()
	out, errOut, code := o.runAs(agent, args...)
	if code != 0 {
		o.t.Fatalf("office %v as %q: exit %d: %s", args, agent, code, errOut)
	}
	return strings.TrimSpace(out)
}

// mailView mirrors `office mail show --json`.
type mailView struct {
	ID       string `json:"id"`
	Sender   string `json:"sender"`
	Receiver string `json:"receiver"`
	Type     string `json:"type"`
	State    string `json:"state"`
	Reason   string `json:"reason"`
	Timeline []struct {
		State  string `json:"state"`
		Detail string `json:"detail"`
	} `json:"timeline"`
}

func (o *office) mailShow(id string) mailView {
	o.t.Helper()
	out := o.mustAs("", "mail", "show", id, "--json")
	var m mailView
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		o.t.Fatalf("mail show --json: %v\n%s", err, out)
	}
	return m
}

// mailState returns a predicate: mail id is in state.
func (o *office) mailState(id, state string) func() bool {
	return func() bool { return o.mailShow(id).State == state }
}

// promptWith reports whether agent received (typed or handed over, prompts)
// a message containing all subs.
func (o *office) promptWith(agent string, subs ...string) bool {
	for _, p := range o.prompts(agent) {
		all := true
		for _, s := range subs {
			if !strings.Contains(p, s) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// appendFile appends text to path.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
