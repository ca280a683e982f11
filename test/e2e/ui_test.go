package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// uiReady waits until the UI shows every agent idle.
func (o *office) uiReady(tm *tmux, n int) {
	o.t.Helper()
	o.waitFor(30*time.Second, "agents idle in the UI", func() bool {
		st, ok := o.status()
		if !ok || len(st) != n {
			return false
		}
		for _, s := range st {
			if s.Status != "idle" {
				return false
			}
		}
		return strings.Count(tm.screen(), "? for shortcuts") >= 1
	})
}

func (o *office) draft(agent string) bool {
	st, _ := o.status()
	for _, s := range st {
		if s.Name == agent {
			return s.Draft
		}
	}
	return false
}

func TestDraftHoldsMessageUntilThePersonSubmits(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "300ms"}})
	tm := o.startUI(160, 45)
	o.uiReady(tm, 1)
	tm.keys("my own words")
	o.waitFor(10*time.Second, "the draft badge", func() bool {
		return o.draft("a") && strings.Contains(tm.screen(), "your draft")
	})
	o.send("a", "from the queue")
	o.waitFor(10*time.Second, "held: your draft", o.heldAs("a", "your draft"))
	o.waitFor(10*time.Second, "the hold in the title bar", func() bool {
		return strings.Contains(tm.screen(), "1 queued · held: your draft")
	})
	if p := o.prompts("a"); len(p) != 0 {
		t.Fatalf("delivered into the draft: %q", p)
	}
	tm.key("Enter")
	o.waitFor(30*time.Second, "both prompts", func() bool { return len(o.prompts("a")) >= 2 })
	if got := o.prompts("a"); !reflect.DeepEqual(got, []string{"my own words", "from the queue"}) {
		t.Fatalf("agent got %q", got)
	}
}

func TestPickerHoldsDeliveryUntilEsc(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "300ms"}})
	tm := o.startUI(160, 45)
	o.uiReady(tm, 1)
	tm.keys("/model")
	tm.key("Enter")
	o.waitFor(10*time.Second, "the picker", func() bool { return strings.Contains(tm.screen(), "Select model") })
	o.send("a", "after the picker")
	o.waitFor(15*time.Second, "held: picker open", o.heldAs("a", "picker open"))
	if p := o.prompts("a"); len(p) != 0 {
		t.Fatalf("delivered into the picker: %q", p)
	}
	tm.key("Escape")
	o.waitFor(30*time.Second, "delivery after Esc", func() bool { return len(o.prompts("a")) == 1 })
	if got := o.prompts("a")[0]; got != "after the picker" {
		t.Fatalf("agent got %q", got)
	}
}

func TestQuitLeavesNoAgentProcess(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"}, agentSpec{name: "b"})
	tm := o.startUI(160, 45)
	o.uiReady(tm, 2)
	var pids []int
	for _, name := range []string{"a", "b"} {
		b, err := os.ReadFile(o.logs[name])
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			var e struct {
				Event string `json:"event"`
				Pid   int    `json:"pid"`
			}
			if json.Unmarshal([]byte(line), &e) == nil && e.Event == "start" {
				pids = append(pids, e.Pid)
			}
		}
	}
	if len(pids) != 2 {
		t.Fatalf("agent pids %v", pids)
	}
	tm.key("C-]")
	tm.keys("x")
	o.waitFor(5*time.Second, "the quit question", func() bool { return strings.Contains(tm.screen(), "s: stop every agent") })
	tm.keys("s")
	o.waitFor(15*time.Second, "agents gone", func() bool {
		for _, pid := range pids {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				if st, _ := os.ReadFile("/proc/" + itoa(pid) + "/stat"); !strings.Contains(string(st), ") Z") {
					return false
				}
			}
		}
		return true
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
