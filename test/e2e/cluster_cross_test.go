package e2e

// What else crosses hosts (docs/cluster.md): a child's notices to its
// parent on another host, `office mail cancel` of crossed mail, and the
// refusal of an item the receiving host cannot store.

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startFloor starts offices a and b on one floor and waits until each lists
// the other's first agent.
func startFloor(t *testing.T, a, b *office, aAgent, bAgent string) {
	t.Helper()
	joinFloor(t, []*office{a, b}, []string{"a", "b"})
	a.startServe()
	b.startServe()
	for _, w := range []struct {
		o     *office
		agent string
	}{{a, bAgent}, {b, aAgent}} {
		w.o.waitFor(30*time.Second, "the floor's roster lists "+w.agent, func() bool {
			out, _, code := w.o.run("", "team")
			return code == 0 && strings.Contains(out, w.agent+" ")
		})
	}
}

// count returns how many of agent's prompts contain sub.
func (o *office) count(agent, sub string) int {
	n := 0
	for _, p := range o.prompts(agent) {
		n += strings.Count(p, sub)
	}
	return n
}

// mailStateNow returns mail id's state on o, "" while o has no such mail.
func (o *office) mailStateNow(id string) string {
	o.t.Helper()
	out, _, code := o.runAs("", "mail", "show", id, "--json")
	if code != 0 {
		return ""
	}
	var m mailView
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		o.t.Fatalf("mail show --json: %v\n%s", err, out)
	}
	return m.State
}

// A child added on b with its parent on a: its turn-end notice and, when it
// is removed, its cancelled notice are typed into the parent on a, once
// each.
func TestClusterParentNoticesCrossHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS (about 15 s): not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "lead", args: []string{"--busy", "200ms"}})
	b := newTeamOffice(t, teamAgent{name: "worker", args: []string{"--busy", "200ms"}})
	startFloor(t, a, b, "lead", "worker")
	b.logs["helper"] = b.dir + "/helper.jsonl"
	b.mustAs("", "team", "add", "helper", "--profile", "claude", "--command", fakeBin, "--command", "--hook-evidence", "--command", "--busy", "--command", "200ms",
		"--command", "--log", "--command", b.logs["helper"], "--parent", "lead", "--role", "second pair of eyes")
	if _, errOut, code := b.runAs("", "team", "add", "lead", "--profile", "claude"); code == 0 || !strings.Contains(errOut, "by an agent of host a") {
		t.Fatalf("team add on b with a's agent's name: exit %d %q", code, errOut)
	}
	id := b.mustAs("", "mail", "send", "--to", "helper", "--title", "build", "check the build")
	b.waitFor(30*time.Second, "the mail to helper done", b.mailState(id, "done"))
	ended := `Background sub-session "second pair of eyes" (actor_id: helper) ended`
	a.waitFor(30*time.Second, "the turn-end notice typed into lead on a", func() bool { return a.promptWith("lead", ended) })

	b.mustAs("", "team", "rm", "helper")
	cancelled := `Background sub-session "second pair of eyes" (actor_id: helper) was cancelled.`
	a.waitFor(30*time.Second, "the cancelled notice typed into lead on a", func() bool { return a.promptWith("lead", cancelled) })
	// Nothing more is on its way: b's outbox for a is empty.
	b.waitFor(10*time.Second, "b's outbox empty", func() bool {
		_, n, ok := b.hostRow("a")
		return ok && n == 0
	})
	for _, n := range []string{ended, cancelled} {
		if c := a.count("lead", n); c != 1 {
			t.Errorf("%q reached lead %d times, want once", n, c)
		}
	}
}

// `office mail cancel` on a of mail that crossed to b: with b down the
// cancel waits in a's outbox, and when b is back the mail is cancelled on
// both hosts and never typed. A cancel made on a (its server down, so it
// has not heard) of mail b had typed in already comes back too late:
// alice is told, and both hosts keep b's state. A cancel of mail a knows
// is working is refused at once. A cancel on b of mail from a crosses back.
func TestClusterMailCancelCrosses(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS and restarts (about 40 s): not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "alice", args: []string{"--busy", "200ms"}})
	b := newTeamOffice(t, teamAgent{name: "bob", args: []string{"--busy", "5s"}})
	startFloor(t, a, b, "alice", "bob")

	b.stopServe(syscall.SIGTERM)
	early := a.mustAs("alice", "mail", "send", "--to", "bob", "--title", "early", "never mind this one")
	out, errOut, code := a.runAs("alice", "mail", "cancel", early)
	if code != 0 || !strings.Contains(out, "stored for host b") || !strings.Contains(errOut, "unless already typed in") {
		t.Fatalf("mail cancel with b down: exit %d, %q %q", code, out, errOut)
	}
	if st := a.mailShow(early).State; st != "queued" {
		t.Fatalf("a's envelope after the cancel: %s, want queued until b answers", st)
	}
	b.startServe()
	a.waitFor(30*time.Second, "cancelled on a", a.mailState(early, "cancelled"))
	if m := b.mailShow(early); m.State != "cancelled" {
		t.Fatalf("b's envelope: %+v, want cancelled", m)
	}

	// bob is busy when the next mail arrives, so it waits on b while a stops.
	b.must("send", "bob", "a job first")
	b.waitFor(30*time.Second, "bob busy", b.statusIs("bob", "busy"))
	late := a.mustAs("alice", "mail", "send", "--to", "bob", "--title", "late", "read the spec")
	b.waitFor(30*time.Second, "the mail on b", func() bool { return b.mailStateNow(late) == "queued" })
	a.stopServe(syscall.SIGTERM)
	b.waitFor(30*time.Second, "the mail typed into bob", func() bool {
		return b.promptWith("bob", "read the spec") && b.mailShow(late).State == "working"
	})
	if out, errOut, code := a.runAs("alice", "mail", "cancel", late); code != 0 || !strings.Contains(out, "stored for host b") {
		t.Fatalf("cancel on a of mail a still thinks queued: exit %d, %q %q", code, out, errOut)
	}
	a.startServe()
	a.waitFor(30*time.Second, "alice told the cancel came too late", func() bool {
		return a.promptWith("alice", "<actor-notification", late, "too late")
	})
	a.waitFor(30*time.Second, "a's envelope follows b's", func() bool {
		st := a.mailShow(late).State
		return st == "working" || st == "done"
	})
	if _, errOut, code := a.runAs("alice", "mail", "cancel", late); code == 0 || !strings.Contains(errOut, "it is") {
		t.Fatalf("cancel of mail a knows is typed in: exit %d %q", code, errOut)
	}
	b.waitFor(30*time.Second, "the late mail done on both hosts", func() bool {
		return b.mailShow(late).State == "done" && a.mailShow(late).State == "done"
	})

	// The person on b cancels mail from a that waits there: it crosses back.
	b.must("send", "bob", "another job")
	b.waitFor(30*time.Second, "bob busy again", b.statusIs("bob", "busy"))
	third := a.mustAs("alice", "mail", "send", "--to", "bob", "--title", "third", "drop this too")
	b.waitFor(30*time.Second, "the third mail on b", func() bool { return b.mailStateNow(third) == "queued" })
	if out := b.mustAs("", "mail", "cancel", third); !strings.Contains(out, "cancelled "+third) {
		t.Fatalf("mail cancel on b: %q", out)
	}
	a.waitFor(30*time.Second, "the cancel made on b reaches a", a.mailState(third, "cancelled"))
	for _, never := range []string{"never mind this one", "drop this too"} {
		if n := b.count("bob", never); n != 0 {
			t.Fatalf("cancelled mail %q was typed into bob %d times", never, n)
		}
	}
	if n := a.count("alice", "too late"); n != 1 {
		t.Fatalf("alice was told %d times that the cancel came too late, want once", n)
	}
}

// Items b refuses (a second pending compaction command for bob) end on a
// at once: the person is told, `office queue` on a lists the refusal, and
// nothing waits or comes again.
func TestClusterRefusedSendTold(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS (about 15 s): not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "alice"})
	b := newTeamOffice(t, teamAgent{name: "bob", args: []string{"--busy", "10s"}})
	startFloor(t, a, b, "alice", "bob")
	a.must("send", "bob", "a long job")
	b.waitFor(30*time.Second, "bob busy with the job", b.statusIs("bob", "busy"))
	first := strings.TrimSpace(a.must("send", "bob", "/compact"))
	second := strings.TrimSpace(a.must("send", "bob", "/compact"))
	a.waitFor(30*time.Second, "the refusal on a's queue listing", func() bool {
		out, _, _ := a.run("", "queue")
		return strings.Contains(out, second) && strings.Contains(out, "refused by host b")
	})
	out, _, _ := a.run("", "inbox", "--person", "--json")
	if !strings.Contains(out, second) || !strings.Contains(out, "compaction") || strings.Contains(out, first) {
		t.Fatalf("the person's inbox on a:\n%s\n(want the refusal of %s only)", out, second)
	}
	if q, _, _ := a.run("", "queue"); strings.Contains(q, first) {
		t.Fatalf("a's queue lists the first /compact as refused:\n%s", q)
	}
}
