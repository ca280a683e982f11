package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// inboxItem mirrors `office inbox --json`.
type inboxItem struct {
	ID    string `json:"id"`
	State string `json:"state"`
	Body  string `json:"body"`
}

func (o *office) inbox(agent string, flags ...string) []inboxItem {
	o.t.Helper()
	out := o.mustAs("", append([]string{"inbox", agent, "--json"}, flags...)...)
	var its []inboxItem
	if err := json.Unmarshal([]byte(out), &its); err != nil {
		o.t.Fatalf("inbox --json: %v\n%s", err, out)
	}
	return its
}

// kill -9 of the office after a delivery was typed and before it was
// acknowledged: the agent swallows the first Enter, so the text sits typed
// for the drain's 2 s submit check; the office dies then. After the restart
// the items are delivered again, once, and nothing is lost.
func TestKill9BetweenTypingAndAckRedeliversOnce(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t, teamAgent{name: "dev", args: []string{"--busy", "200ms", "--swallow-enter", "1"}})
	o.startServe()
	// Paused while both are sent, so one attempt leases both (on a loaded
	// machine the second send can come after the first attempt).
	o.must("pause", "dev")
	id1 := o.mustAs("", "mail", "send", "--to", "dev", "--title", "one", "first item")
	id2 := o.mustAs("", "mail", "send", "--to", "dev", "--title", "two", "second item")
	o.must("resume", "dev")
	o.waitFor(20*time.Second, "the first Enter swallowed", func() bool {
		for _, e := range o.log("dev") {
			if e.Event == "swallowed" {
				return true
			}
		}
		return false
	})
	o.stopServe(syscall.SIGKILL)
	if got := o.prompts("dev"); len(got) != 0 {
		t.Fatalf("the kill came too late: prompts %q", got)
	}
	for _, it := range o.inbox("dev") {
		if it.State != "leased" {
			t.Fatalf("item %s is %s after the crash, want leased", it.ID, it.State)
		}
	}
	if m := o.mailShow(id1); m.State != "claimed" {
		t.Fatalf("mail %s after the crash, want claimed", m.State)
	}
	o.startServe()
	o.waitFor(25*time.Second, "the redelivery acknowledged", func() bool {
		return len(o.inbox("dev")) == 0 && o.mailShow(id1).State != "claimed" && o.mailShow(id1).State != "queued"
	})
	ps := o.prompts("dev")
	if len(ps) != 1 || !strings.Contains(ps[0], id1) || !strings.Contains(ps[0], id2) {
		t.Fatalf("prompts after the restart: %q (want one delivery carrying both ids)", ps)
	}
	for _, id := range []string{id1, id2} {
		o.waitFor(20*time.Second, "mail "+id+" done", o.mailState(id, "done"))
	}
}

// Sixteen `office mail send` processes at once, with no office running:
// every mail is stored, each with its own id.
func TestSixteenConcurrentMailSenders(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t, teamAgent{name: "a"})
	o.mustAs("", "mail", "ls") // create the store first
	var wg sync.WaitGroup
	ids := make([]string, 16)
	errs := make([]string, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(officeBin, "mail", "send", "--to", "a", "--title", fmt.Sprint(i), fmt.Sprintf("from sender %d", i),
				"--config", o.config, "--state", o.state)
			cmd.Env = o.env()
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				errs[i] = fmt.Sprintf("%v: %s", err, errb.String())
			}
			ids[i] = strings.TrimSpace(out.String())
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range 16 {
		if errs[i] != "" || ids[i] == "" || seen[ids[i]] {
			t.Fatalf("sender %d: id %q, error %s", i, ids[i], errs[i])
		}
		seen[ids[i]] = true
	}
	if its := o.inbox("a"); len(its) != 16 {
		t.Fatalf("%d items stored, want 16", len(its))
	}
}

// Mail to an agent whose process cannot start ends failed(spawn_failed)
// without passing working; an agent that exits non-zero after a turn that
// began with a delivery is reported failed to its parent.
func TestSpawnFailedMailAndFailedChildNotice(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t,
		teamAgent{name: "lead", args: []string{"--busy", "200ms"}},
		teamAgent{name: "quitter", args: []string{"--busy", "200ms", "--exit-after", "1", "--exit-code", "3"}, parent: "lead", role: "quitter"},
	)
	// A third agent whose program does not exist.
	cfg := "\n[[agent]]\nname = \"ghost\"\nprofile = \"claude\"\ncommand = [\"/nonexistent/ghost-cli\"]\n"
	appendFile(t, o.config, cfg)
	id := o.mustAs("", "mail", "send", "--to", "ghost", "--request", "--title", "boo", "are you there?")
	o.startServeUntil("lead and quitter idle", func() bool {
		st, ok := o.status()
		n := 0
		for _, s := range st {
			if s.Status == "idle" {
				n++
			}
		}
		return ok && n == 2
	})
	o.waitFor(20*time.Second, "failed(spawn_failed)", func() bool {
		m := o.mailShow(id)
		return m.State == "failed" && m.Reason == "spawn_failed"
	})
	for _, e := range o.mailShow(id).Timeline {
		if e.State == "working" {
			t.Fatal("spawn_failed mail passed working")
		}
	}
	o.mustAs("lead", "mail", "send", "--to", "quitter", "--title", "last job", "do one thing and quit")
	o.waitFor(25*time.Second, "the failed notice to lead", func() bool {
		return o.promptWith("lead", `Background sub-session "quitter" (actor_id: quitter) failed.`, "exited with status 3")
	})
}
