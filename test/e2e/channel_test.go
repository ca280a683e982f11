package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// replayEvents returns `office events --since 0 --json AGENT`'s replay of
// the stored events (the command follows the stream; it is stopped once
// the replay had time to arrive).
func (o *office) replayEvents(agent string) string {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, officeBin, "events", "--since", "0", "--json", agent, "--state", o.state)
	cmd.Env = o.env()
	var out bytes.Buffer
	cmd.Stdout = &out
	_ = cmd.Run()
	return out.String()
}

// handed returns the messages the fake agent took from its Stop hook's
// block answer (its "handed" log lines), in order.
func (o *office) handed(agent string) []string {
	var out []string
	for _, e := range o.log(agent) {
		if e.Event == "handed" {
			out = append(out, e.Text)
		}
	}
	return out
}

// The channel with the real binary (docs/channels.md): the fake agent runs
// the Stop hook of office's --settings file as Claude Code does
// (--stop-hook). Mail from another agent, queued while the agent is busy,
// is handed over at the turn's end (the fake goes on with it in the same
// turn, recording Claude's meta transcript line), once; nothing of it is
// typed, and the delivery is confirmed from the transcript (the draft is
// TestClaudeOfficeChannel's, on the real CLI). The person's own message
// after it is typed.
func TestStopHookHandsMailOver(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--stop-hook", "--busy", "3s"}}, agentSpec{name: "b"})
	o.startServe()
	o.send("a", "TASK one")
	o.waitFor(10*time.Second, "a busy on the task", o.statusIs("a", "busy"))
	o.mustAs("b", "mail", "send", "--to", "a", "MAIL from b: review it")
	o.waitFor(20*time.Second, "the mail handed over", func() bool { return len(o.handed("a")) == 1 })
	if h := o.handed("a")[0]; !strings.Contains(h, "MAIL from b: review it") {
		t.Fatalf("handed over %q, want the mail", h)
	}
	o.waitFor(20*time.Second, "a idle, the queue empty", func() bool { return o.statusIs("a", "idle")() && len(o.queue()) == 0 })
	x := o.must("status", "--explain", "a")
	if !strings.Contains(x, "delivery: stop hook (last delivered: message ") || !strings.Contains(x, ", stop hook)") {
		t.Errorf("status --explain a:\n%s\nwant the last delivery by the stop hook", x)
	}
	if ps := o.typed("a"); len(ps) != 1 || ps[0] != "TASK one" {
		t.Errorf("prompts typed into a: %q, want only the task (the mail was handed over)", ps)
	}
	ev := o.replayEvents("a")
	if !strings.Contains(ev, `"state":"handed"`) || !strings.Contains(ev, `"channel":"stop hook"`) ||
		!strings.Contains(ev, "handed over (stop hook); evidence=transcript") {
		t.Errorf("events name no hand-over confirmed by the transcript:\n%s", ev)
	}
	o.send("a", "PERSON words")
	o.waitFor(20*time.Second, "the person's message typed", func() bool {
		ps := o.typed("a")
		return len(ps) == 2 && ps[1] == "PERSON words"
	})
	if n := len(o.handed("a")); n != 1 {
		t.Errorf("%d hand-overs, want the mail's alone", n)
	}
}
