package e2e

// A stalled host of three (its office server, and so its embedded NATS,
// stopped with SIGSTOP) makes only itself unreachable: the other two keep
// showing each other reachable.

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestClusterStalledHostLeavesOthersReachable(t *testing.T) {
	if testing.Short() {
		t.Skip("three office servers with clustered NATS, one stopped for about 15 s (about 40 s): not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "alice"})
	b := newTeamOffice(t, teamAgent{name: "bob"})
	c := newTeamOffice(t, teamAgent{name: "carol"})
	joinFloor(t, []*office{a, b, c}, []string{"a", "b", "c"})
	a.startServe()
	b.startServe()
	c.startServe()
	for _, w := range []struct {
		o      *office
		others []string
	}{{a, []string{"b", "c"}}, {b, []string{"a", "c"}}} {
		for _, h := range w.others {
			w.o.waitFor(30*time.Second, "host "+h+" reachable", func() bool {
				reachable, _, ok := w.o.hostRow(h)
				return ok && reachable
			})
		}
	}

	// The host to stop is the one leading JetStream's cluster layer: its
	// stop also holds up every call that layer answers until another host
	// leads it, the harder case (a stop of another host delays only its
	// own reads). Its log says so.
	offices := map[string]*office{"a": a, "b": b, "c": c}
	var stall string
	a.waitFor(30*time.Second, "a host leading JetStream's cluster layer", func() bool {
		for name, o := range offices {
			data, err := os.ReadFile(filepath.Join(o.state, "office.log"))
			if err == nil && strings.Contains(string(data), "this host leads the floor's JetStream cluster layer") {
				stall = name
				return true
			}
		}
		return false
	})
	var healthy []string
	for _, name := range []string{"a", "b", "c"} {
		if name != stall {
			healthy = append(healthy, name)
		}
	}
	x, y := offices[healthy[0]], offices[healthy[1]]
	pid := offices[stall].serve.Process.Pid
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	cont := func() {
		if stopped {
			_ = syscall.Kill(-pid, syscall.SIGCONT)
			stopped = false
		}
	}
	t.Cleanup(cont)
	// Twice Unreachable (6 s) and more: the healthy hosts' views of each
	// other are checked all along (polled: `office status` is the only
	// view).
	var stallSeen bool
	end := time.Now().Add(15 * time.Second)
	for time.Now().Before(end) {
		for _, w := range []struct {
			o           *office
			name, other string
		}{{x, healthy[0], healthy[1]}, {y, healthy[1], healthy[0]}} {
			reachable, _, ok := w.o.hostRow(w.other)
			if !ok || !reachable {
				log, _ := os.ReadFile(filepath.Join(w.o.state, "office.log"))
				t.Fatalf("with %s stopped, host %s shows healthy host %s unreachable (ok=%v); its log:\n%s", stall, w.name, w.other, ok, log)
			}
		}
		if reachable, _, ok := x.hostRow(stall); ok && !reachable {
			stallSeen = true
		}
		time.Sleep(250 * time.Millisecond)
	}
	if !stallSeen {
		t.Fatalf("host %s never showed the stopped host %s unreachable: the stall did not take", healthy[0], stall)
	}
	cont()
	x.waitFor(30*time.Second, "host "+stall+" reachable again", func() bool {
		reachable, _, ok := x.hostRow(stall)
		return ok && reachable
	})
}
