package e2e

import (
	"encoding/json"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestAgentDyingInTheSubmitCheckKeepsTheMessage: a CLI that did not take the
// Enter (the fake agent swallows it, as Codex and Gemini do before they are
// ready) and whose process dies during office's submit check (a crash, a
// restart) never received the message: its text died on the prompt. The
// message stays queued for the agent's next process, no attempt counted,
// rather than being recorded delivered "unverified: the agent exited".
func TestAgentDyingInTheSubmitCheckKeepsTheMessage(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--swallow-enter", "5"}})
	o.startServe()
	id, err := strconv.ParseInt(o.send("a", "never taken"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	o.waitFor(15*time.Second, "the Enter swallowed", func() bool {
		return slices.ContainsFunc(o.log("a"), func(e logEntry) bool { return e.Event == "swallowed" })
	})
	// Kill it while office still watches for the submit (2 s after the Enter).
	var st []struct {
		Name string `json:"name"`
		Pid  int    `json:"pid"`
	}
	if err := json.Unmarshal([]byte(o.must("status", "--json")), &st); err != nil || len(st) != 1 || st[0].Pid == 0 {
		t.Fatalf("status --json: %+v, %v", st, err)
	}
	if err := syscall.Kill(st[0].Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	o.waitFor(10*time.Second, "held: exited", o.heldAs("a", "exited"))
	q := o.queue()
	if len(q) != 1 || q[0].ID != id || q[0].Attempts != 0 {
		t.Fatalf("queue %+v: want message %d still queued, no attempt counted", q, id)
	}
	if p := o.prompts("a"); len(p) != 0 {
		t.Fatalf("the agent received %q", p)
	}
}
