package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/client"
)

// The person restarts an agent while the drain checks a submit its CLI did
// not take (a CLI not yet taking Enter, as Codex and Gemini before they are
// ready: the fake agent swallows the Enters). The exit proves nothing about
// the submit, and this CLI's records (claude, no hooks wired) cannot tell:
// the message is set aside with a durable notice naming it, never recorded
// delivered, never typed into the new process on its own
// (docs/evidence.md, "An exit during the submit check").
func TestRestartDuringTheSubmitCheckSetsTheMessageAside(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "s", args: []string{"--busy", "100ms", "--swallow-enter", "5"}, noHooks: true})
	o.startServe()
	c := o.dial(client.Options{Client: "exit check"})
	sent := o.send("s", "paused one")
	id, err := strconv.ParseInt(sent, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	o.waitFor(15*time.Second, "the first Enter swallowed", func() bool {
		for _, e := range o.log("s") {
			if e.Event == "swallowed" {
				return true
			}
		}
		return false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Restart(ctx, "s"); err != nil { // what prefix R, y does
		t.Fatal(err)
	}
	o.waitFor(30*time.Second, "the message set aside", o.heldAs("s", "set aside"))
	q := o.queue()
	if len(q) != 1 || q[0].ID != id || !strings.Contains(q[0].Evidence, "exited before the submit was seen") ||
		!strings.Contains(q[0].Evidence, "may or may not have reached the agent") {
		t.Fatalf("queue --json: %+v; want message %d set aside saying what is known", q, id)
	}
	f, err := c.Message(ctx, id)
	if err != nil || f.State != "queued" || f.Delivered() {
		t.Fatalf("message %d: %+v, %v; want it queued (set aside), not delivered", id, f, err)
	}
	o.waitFor(10*time.Second, "the person's notice naming it", func() bool {
		return strings.Contains(strings.Join(o.personNotices(), "\n"), fmt.Sprintf("message %d set aside: s exited before its submit was seen", id))
	})
	// The first process swallowed the Enters and was hung up; the new one
	// is typed nothing: a message set aside waits for the person.
	var exits, swallowed int
	for _, e := range o.log("s") {
		switch e.Event {
		case "exit":
			exits++
		case "swallowed":
			swallowed++
		}
	}
	if p := o.prompts("s"); len(p) != 0 || exits != 1 || swallowed < 1 {
		t.Fatalf("prompts %q, %d exits, %d swallowed: want none submitted, the first process ended", p, exits, swallowed)
	}
	log, err := os.ReadFile(filepath.Join(o.state, "office.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), "unverified: the agent exited") {
		t.Fatal("office.log records the message delivered ('unverified: the agent exited')")
	}
}

// The same restart, but the CLI's records (Claude-style hooks) were seen
// recording that process's prompts before the message was typed, and they
// do not show it: the CLI never took it, the text died on its prompt with
// the process, so it is typed again, once, into the new process.
func TestRestartDuringTheSubmitCheckTypesAgainWhatTheRecordsShowNotTaken(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "s", args: []string{"--busy", "100ms", "--hook-evidence", "--swallow-after", "1", "--swallow-enter", "5"}})
	o.startServe()
	c := o.dial(client.Options{Client: "exit check"})
	o.send("s", "first")
	o.waitFor(15*time.Second, "the first message delivered", func() bool { return len(o.prompts("s")) == 1 && len(o.queue()) == 0 })
	id, err := strconv.ParseInt(o.send("s", "paused one"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	o.waitFor(15*time.Second, "an Enter swallowed", func() bool {
		for _, e := range o.log("s") {
			if e.Event == "swallowed" {
				return true
			}
		}
		return false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Restart(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	o.waitFor(40*time.Second, "typed again into the new process and delivered", func() bool {
		return len(o.prompts("s")) == 2 && len(o.queue()) == 0
	})
	if p := o.prompts("s"); p[0] != "first" || p[1] != "paused one" {
		t.Fatalf("prompts %q: want first, then the message once, in the new process", p)
	}
	if f, err := c.Message(ctx, id); err != nil || !f.Delivered() {
		t.Fatalf("message %d: %+v, %v; want delivered", id, f, err)
	}
	if n := strings.Join(o.personNotices(), "\n"); strings.Contains(n, "set aside") {
		t.Fatalf("a notice says set aside:\n%s", n)
	}
	log, err := os.ReadFile(filepath.Join(o.state, "office.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "its records do not show the text; typed again into its next process") {
		t.Fatal("office.log does not say why it was typed again")
	}
}

// TestAgentDyingInTheSubmitCheckKeepsTheMessage: the CLI crashes (SIGKILL)
// instead, during the submit check of a message whose Enter it swallowed.
// A crash and the person's restart are one case: the message is not
// recorded delivered "unverified: the agent exited", and with no records to
// decide it stays in the queue, set aside, no attempt counted, never
// received.
func TestAgentDyingInTheSubmitCheckKeepsTheMessage(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--swallow-enter", "5"}, noHooks: true})
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
	o.waitFor(20*time.Second, "set aside", o.heldAs("a", "set aside"))
	q := o.queue()
	if len(q) != 1 || q[0].ID != id || q[0].Attempts != 0 {
		t.Fatalf("queue %+v: want message %d still queued, set aside, no attempt counted", q, id)
	}
	if p := o.prompts("a"); len(p) != 0 {
		t.Fatalf("the agent received %q", p)
	}
}
