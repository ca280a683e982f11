package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// A team agent x added on a, then on b, while the hosts had not met (both
// succeed: docs/cluster.md, Limits) may run on both until b restarts; then
// b does not start its x (host a has the name) and x is no receiver on b:
// `office send x` on b goes to a's x, typed there once, and nothing waits
// in b's queue. Once a removes its x, b starts its own, and a send on b is
// typed into b's x.
func TestClusterNameNotRunHereGoesToItsHost(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS and restarts (about 40 s): not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "lead"})
	b := newTeamOffice(t, teamAgent{name: "worker"})
	joinFloor(t, []*office{a, b}, []string{"a", "b"})
	addX := func(o *office) {
		o.logs["x"] = o.dir + "/x.jsonl"
		o.mustAs("", "team", "add", "x", "--profile", "claude", "--command", fakeBin, "--command", "--hook-evidence", "--command", "--log", "--command", o.logs["x"])
	}
	// The hosts have not met: each takes the name, a first.
	a.startServe()
	addX(a)
	a.stopServe(syscall.SIGTERM)
	b.startServe()
	addX(b)
	b.stopServe(syscall.SIGTERM)
	a.startServe()
	b.startServe()
	// b may have started its x before it could read a's roster (then both
	// run it, and both are told of the clash) or not; either way it learns
	// that a has the name.
	b.waitFor(30*time.Second, "b keeps a's x in its roster", func() bool {
		st, _ := b.status()
		return listed(st, "x", true)
	})

	// b restarts: a keeps the name, b's x is not started.
	b.stopServe(syscall.SIGTERM)
	b.startServe()
	if st, _ := b.status(); !listed(st, "x", true) || listed(st, "x", false) {
		t.Fatalf("b's status %+v: want x listed as another host's only", st)
	}
	out, errOut, code := b.run("hello from b", "send", "x", "-")
	if code != 0 || !strings.Contains(errOut, "on host a") || !strings.Contains(errOut, "stored") {
		t.Fatalf("send x on b: exit %d, %q %q: want it stored for x on host a", code, out, errOut)
	}
	a.waitFor(30*time.Second, "the message typed into a's x", func() bool { return a.count("x", "hello from b") == 1 })
	for _, m := range b.queue() {
		if m.Agent == "x" {
			t.Fatalf("b's queue holds %+v for x, which b does not run", m)
		}
	}
	if got := b.prompts("x"); len(got) != 0 {
		t.Fatalf("b's x got %q", got)
	}

	// a leaves the name: b starts its x, a receiver on b again.
	a.mustAs("", "team", "rm", "x")
	b.waitFor(30*time.Second, "b's x started, and a's gone from b's roster", func() bool {
		st, _ := b.status()
		return !listed(st, "x", true) && localIdle(st, "x")
	})
	out, errOut, code = b.run("now on b", "send", "x", "-")
	if code != 0 || strings.Contains(errOut, "host a") {
		t.Fatalf("send x on b after a removed its x: exit %d, %q %q: want it queued on b", code, out, errOut)
	}
	b.waitFor(30*time.Second, "the message typed into b's x", func() bool { return b.count("x", "now on b") == 1 })
	if n := a.count("x", "now on b"); n != 0 {
		t.Fatalf("a's removed x got the message %d times", n)
	}
}

// listed reports whether st lists agent as another host's (remote) or as
// this host's.
func listed(st []agentStatus, agent string, remote bool) bool {
	for _, s := range st {
		if s.Name == agent && s.Remote == remote {
			return true
		}
	}
	return false
}

// localIdle reports whether st lists agent as this host's, idle.
func localIdle(st []agentStatus, agent string) bool {
	for _, s := range st {
		if s.Name == agent && !s.Remote && s.Status == "idle" {
			return true
		}
	}
	return false
}
