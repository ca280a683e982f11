package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// heldAs returns a predicate: the agent's head message is held for reason.
func (o *office) heldAs(agent, reason string) func() bool {
	return func() bool {
		for _, q := range o.queue() {
			if q.Agent == agent {
				return q.Held == reason
			}
		}
		return false
	}
}

func TestSendErrorsExitTwoAndWriteNothing(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"unknown agent", []string{"send", "nobody", "hi"}, "", `unknown agent`},
		{"blank text", []string{"send", "a", "   "}, "", "blank"},
		{"blank stdin", []string{"send", "a", "-"}, " \n\t\n", "blank"},
		{"no text", []string{"send", "a"}, "", "usage"},
		{"bad config", []string{"send", "a", "hi", "--config", "/nonexistent/office.toml"}, "", "office.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := o.run(tc.stdin, tc.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, errOut)
			}
			if !strings.Contains(strings.ToLower(errOut), tc.want) {
				t.Fatalf("stderr %q does not name %q", errOut, tc.want)
			}
		})
	}
	if q := o.queue(); len(q) != 0 {
		t.Fatalf("failed sends wrote %d messages", len(q))
	}
}

func TestQueueWorksWithoutOffice(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	id := o.send("a", "first")
	o.send("a", "second")
	q := o.queue()
	if len(q) != 2 || fmt.Sprint(q[0].ID) != id || q[0].Held != "office not running" {
		t.Fatalf("queue = %+v", q)
	}
	o.must("queue", "release", fmt.Sprint(q[1].ID))
	if q2 := o.queue(); q2[0].Text != "second" {
		t.Fatalf("release did not move to the front: %+v", q2)
	}
	o.must("queue", "rm", fmt.Sprint(q[0].ID))
	if q3 := o.queue(); len(q3) != 1 || q3[0].Text != "second" {
		t.Fatalf("rm: %+v", q3)
	}
	if out := o.must("queue", "clear", "a"); !strings.Contains(out, "cleared 1") {
		t.Fatalf("clear said %q", out)
	}
	if q4 := o.queue(); len(q4) != 0 {
		t.Fatalf("clear left %+v", q4)
	}
}

func TestMultiLineMessageArrivesAsOnePrompt(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "200ms"}})
	o.startServe()
	o.send("a", "first line\nsecond line\nthird line")
	o.waitFor(15*time.Second, "the prompt", func() bool { return len(o.prompts("a")) == 1 })
	if got := o.prompts("a")[0]; got != "first line\nsecond line\nthird line" {
		t.Fatalf("agent got %q", got)
	}
}

func TestControlBytesArriveAsInertText(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "200ms"}})
	o.startServe()
	o.send("a", "before\x1b[201~after\x03\x15\x1b[Aend\nsecond")
	o.waitFor(15*time.Second, "the prompt", func() bool { return len(o.prompts("a")) == 1 })
	got := o.prompts("a")[0]
	if got != "before[201~afterend\nsecond" && got != "before[201~after[Aend\nsecond" {
		t.Fatalf("agent got %q", got)
	}
	o.waitFor(10*time.Second, "agent idle", func() bool {
		st, _ := o.status()
		return len(st) == 1 && st[0].Status == "idle"
	})
	if p := o.prompts("a"); len(p) != 1 {
		t.Fatalf("control bytes split the message into %d prompts: %q", len(p), p)
	}
}

func TestSendNowOnPausedAgentDeliversOnlyThatMessage(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "100ms"}})
	o.startServe()
	o.must("pause", "a")
	o.send("a", "one")
	id2 := o.send("a", "two")
	o.send("a", "three")
	o.waitFor(10*time.Second, "held: paused", o.heldAs("a", "paused"))
	o.must("queue", "release", id2)
	o.waitFor(15*time.Second, "the released message", func() bool { return len(o.prompts("a")) == 1 })
	if got := o.prompts("a"); got[0] != "two" {
		t.Fatalf("delivered %q, want only the released message", got)
	}
	// The others stay held while paused.
	o.waitFor(10*time.Second, "the rest held: paused", func() bool {
		q := o.queue()
		return len(q) == 2 && q[0].Held == "paused"
	})
	o.must("resume", "a")
	o.waitFor(30*time.Second, "the rest after resume", func() bool { return len(o.prompts("a")) == 3 })
	if got := o.prompts("a"); !reflect.DeepEqual(got, []string{"two", "one", "three"}) {
		t.Fatalf("order %q", got)
	}
}

func TestExitedAgentKeepsItsMessagesWithNoAttempt(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "100ms", "--exit-after", "1", "--exit-code", "7"}})
	o.startServe()
	o.send("a", "the last prompt")
	o.waitFor(15*time.Second, "exit", func() bool {
		st, _ := o.status()
		return len(st) == 1 && st[0].Status == "exited"
	})
	id := o.send("a", "for the dead")
	var dead queued
	o.waitFor(10*time.Second, "held: exited", func() bool {
		for _, q := range o.queue() {
			if fmt.Sprint(q.ID) == id {
				dead = q
				return q.Held == "exited"
			}
		}
		return false
	})
	if dead.Attempts != 0 {
		t.Fatalf("message for the exited agent %+v: want no attempt counted", dead)
	}
	// The first, typed before the exit, was taken once: delivered when the
	// drain saw the submit before the exit, else set aside (this fake agent
	// writes no records to settle it), never typed again.
	for _, q := range o.queue() {
		if q.Text == "the last prompt" && !strings.HasPrefix(q.Held, "set aside") {
			t.Fatalf("the message typed before the exit: %+v, want delivered or set aside", q)
		}
	}
	if p := o.prompts("a"); !reflect.DeepEqual(p, []string{"the last prompt"}) {
		t.Fatalf("prompts %q, want the first once", p)
	}
}

func TestKill9WithTwentyQueuedThenRestartDeliversEachOnce(t *testing.T) {
	t.Parallel()
	// Four agents share the 20 messages so the 4.5 s per-agent cooldown
	// costs 5 rounds, not 20.
	names := []string{"a", "b", "c", "d"}
	var specs []agentSpec
	for _, n := range names {
		specs = append(specs, agentSpec{name: n, args: []string{"--busy", "50ms"}})
	}
	o := newOffice(t, specs...)
	o.startServe()
	o.must("pause", "--all")
	want := map[string][]string{}
	for i := 1; i <= 20; i++ {
		agent := names[i%len(names)]
		text := fmt.Sprintf("message %02d", i)
		want[agent] = append(want[agent], text)
		o.send(agent, text)
	}
	o.stopServe(syscall.SIGKILL)
	if q := o.queue(); len(q) != 20 {
		t.Fatalf("after kill -9: %d queued, want 20", len(q))
	}
	o.must("resume", "--all")
	o.startServe()
	o.waitFor(90*time.Second, "all 20 delivered and acknowledged", func() bool {
		n := 0
		for _, a := range names {
			n += len(o.prompts(a))
		}
		return n >= 20 && len(o.queue()) == 0
	})
	for _, a := range names {
		if got := o.prompts(a); !reflect.DeepEqual(got, want[a]) {
			t.Errorf("agent %s got %q, want %q", a, got, want[a])
		}
	}
	if q := o.queue(); len(q) != 0 {
		t.Fatalf("queue not empty: %+v", q)
	}
}

func TestSecondEnterSubmitsWhenTheFirstIsSwallowed(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "200ms", "--swallow-enter", "1"}})
	o.startServe()
	o.send("a", "hello")
	o.waitFor(15*time.Second, "the prompt and its acknowledgement", func() bool {
		return len(o.prompts("a")) == 1 && len(o.queue()) == 0
	})
	if got := o.prompts("a"); got[0] != "hello" {
		t.Fatalf("agent got %q", got)
	}
}

func TestTypedButNotSubmittedIsReportedNotRetyped(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "200ms", "--swallow-enter", "2"}})
	o.startServe()
	o.send("a", "hello")
	o.waitFor(15*time.Second, "the message to leave the queue", func() bool { return len(o.queue()) == 0 })
	swallowed := 0
	for _, e := range o.log("a") {
		if e.Event == "swallowed" {
			swallowed++
		}
	}
	if swallowed != 2 || len(o.prompts("a")) != 0 {
		t.Fatalf("swallowed %d Enters, prompts %q: want 2 and none", swallowed, o.prompts("a"))
	}
	// The text sits on the prompt: it now counts as a draft and holds the next message.
	o.waitFor(5*time.Second, "the draft badge", func() bool { return o.draft("a") })
	o.send("a", "next")
	o.waitFor(10*time.Second, "held: your draft", o.heldAs("a", "your draft"))
	if log, err := os.ReadFile(filepath.Join(o.state, "office.log")); err != nil || !strings.Contains(string(log), "typed but not submitted") {
		t.Fatalf("no loud report in the log (%v)", err)
	}
}

func TestHungAgentGetsNothingTypedTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 s write timeout")
	}
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "100ms", "--stop-reading-after", "1"}})
	o.startServe()
	o.send("a", "first")
	o.waitFor(15*time.Second, "the agent to stop reading", func() bool {
		for _, e := range o.log("a") {
			if e.Event == "stopped-reading" {
				return true
			}
		}
		return false
	})
	// A long paste fills the PTY's input buffer of an agent that no longer
	// reads: the write times out after part of it went in, so it is
	// reported and never typed again (that would duplicate the part).
	o.send("a", strings.Repeat("x", 64*1024))
	o.waitFor(25*time.Second, "the partly written paste reported, not retried", func() bool { return len(o.queue()) == 0 })
	// The next message goes in but the agent shows nothing and draws
	// nothing: it may read it later, so it is held for the person, with no
	// attempt counted and no second typing.
	second := o.send("a", "second")
	o.waitFor(20*time.Second, "held: interrupted", func() bool {
		q := o.queue()
		return len(q) == 1 && q[0].Held == "interrupted" && q[0].Attempts == 0
	})
	// It holds a's queue (a may still read it later: nothing is typed
	// after it), says why, and the person is told, durably, what ends it.
	o.send("a", "third")
	o.waitFor(20*time.Second, "the person's notice of the held message", func() bool {
		out, _, _ := o.run("", "inbox", "--person", "--all")
		return strings.Contains(out, "message "+second+" held") && strings.Contains(out, "office queue rm "+second)
	})
	if q := o.queue(); len(q) != 2 || q[0].Evidence == "" || q[1].Text != "third" || q[1].Attempts != 0 || q[1].Held != "queued" {
		t.Fatalf("queue %+v: want the held message with why, and the one behind it not attempted", q)
	}
	// A stop ends the process that might still read it: at the next start
	// it is set aside (its CLI's records do not show it) and the message
	// behind it is delivered, once, to the new process.
	o.stopServe(syscall.SIGTERM)
	o.startServe()
	o.waitFor(30*time.Second, "third delivered after the restart", func() bool {
		return contains(o.prompts("a"), "third") && len(o.queue()) == 1
	})
	q := o.queue()
	if len(q) != 1 || q[0].Text != "second" || q[0].Held != "set aside" {
		t.Fatalf("queue after the restart %+v: want only the held message, set aside", q)
	}
	if p := o.prompts("a"); len(p) != 2 || p[0] != "first" || p[1] != "third" {
		t.Fatalf("prompts %q: want first and third once each", p)
	}
	log, err := os.ReadFile(filepath.Join(o.state, "office.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"message typed but not submitted", "the agent showed nothing after the text; held until released"} {
		if !strings.Contains(string(log), want) {
			t.Fatalf("office.log lacks %q", want)
		}
	}
}
