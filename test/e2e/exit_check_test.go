package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	o := newOffice(t, agentSpec{name: "s", args: []string{"--busy", "100ms", "--swallow-enter", "5"}})
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
