package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// uiLastSize returns the size the agent last reported (its start size when
// it never got SIGWINCH).
func (o *office) uiLastSize(agent string) (cols, rows int) {
	for _, e := range o.log(agent) {
		if e.Event == "start" || e.Event == "resize" {
			cols, rows = e.Cols, e.Rows
		}
	}
	return cols, rows
}

// uiWaitSize waits until the agent reports cols × rows.
func (o *office) uiWaitSize(agent string, cols, rows int) {
	o.t.Helper()
	o.waitFor(15*time.Second, agent+" reports "+itoa(cols)+"x"+itoa(rows), func() bool {
		c, r := o.uiLastSize(agent)
		return c == cols && r == rows
	})
}

// uiAgentPids returns the fake agents' process ids from their start lines.
func (o *office) uiAgentPids() []int {
	o.t.Helper()
	var pids []int
	for name := range o.logs {
		b, err := os.ReadFile(o.logs[name])
		if err != nil {
			o.t.Fatal(err)
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
	return pids
}

// uiAllGone reports whether every pid is dead (or a zombie awaiting its reaper).
func uiAllGone(pids []int) bool {
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			if st, _ := os.ReadFile("/proc/" + itoa(pid) + "/stat"); !strings.Contains(string(st), ") Z") {
				return false
			}
		}
	}
	return true
}

func uiFourAgents(t *testing.T) *office {
	return newOffice(t, agentSpec{name: "a", args: []string{"--busy", "200ms"}}, agentSpec{name: "b", args: []string{"--busy", "200ms"}},
		agentSpec{name: "c", args: []string{"--busy", "200ms"}}, agentSpec{name: "d", args: []string{"--busy", "200ms"}})
}

// TestUITypingZoomAndResize: keys typed into pane 2 reach only agent 2; zoom
// gives the focused agent the whole window and back; resizing the person's
// terminal resizes every PTY to its box.
func TestUITypingZoomAndResize(t *testing.T) {
	t.Parallel()
	o := uiFourAgents(t)
	tm := o.startUI(200, 50)
	o.uiReady(tm, 4)
	// 200×50: the status line leaves 49 rows, split 24 + 25; 200 columns
	// split 99 | 100; each box loses its title row. (The first resize is not
	// checked: it can reach a fake agent before it installs its SIGWINCH
	// handler. Every later one is.)

	tm.key("C-]")
	tm.keys("2")
	tm.keys("to two")
	tm.key("Enter")
	o.waitFor(10*time.Second, "b's prompt", func() bool { return len(o.prompts("b")) == 1 })
	if got := o.prompts("b")[0]; got != "to two" {
		t.Fatalf("b got %q", got)
	}
	for _, n := range []string{"a", "c", "d"} {
		if p := o.prompts(n); len(p) != 0 {
			t.Fatalf("%s got %q", n, p)
		}
	}
	if st, _ := o.status(); len(st) != 4 || st[0].Draft || st[2].Draft || st[3].Draft {
		t.Fatalf("keys leaked into another prompt: %+v", st)
	}

	tm.key("C-]")
	tm.keys("z")
	o.uiWaitSize("b", 200, 48)
	o.waitFor(5*time.Second, "one pane on screen", func() bool { return strings.Count(tm.screen(), " · claude · ") == 1 })
	if !strings.Contains(tm.screen(), "b · claude") {
		t.Fatalf("zoomed the wrong pane:\n%s", tm.screen())
	}
	tm.key("C-]")
	tm.keys("z")
	o.uiWaitSize("b", 100, 23)
	o.waitFor(5*time.Second, "four panes on screen", func() bool { return strings.Count(tm.screen(), " · claude · ") == 4 })

	tm.cmd("resize-window", "-t", officeTarget, "-x", "160", "-y", "40")
	// 160×40: 39 rows split 19 + 20; 160 columns split 79 | 80.
	o.uiWaitSize("a", 79, 18)
	o.uiWaitSize("d", 80, 19)
}

// TestUIComposerLeavesTheDraftAndQuitKeepsTheQueue: a message queued with the
// composer for one agent arrives while the person's draft in another pane
// stays untouched; quitting stops every agent and keeps queued messages.
func TestUIComposerLeavesTheDraftAndQuitKeepsTheQueue(t *testing.T) {
	t.Parallel()
	o := uiFourAgents(t)
	tm := o.startUI(200, 50)
	o.uiReady(tm, 4)
	tm.keys("my draft")
	o.waitFor(10*time.Second, "a's draft", func() bool { return o.draft("a") })

	tm.key("C-]")
	tm.keys("2")
	tm.key("C-]")
	tm.keys("m")
	o.waitFor(5*time.Second, "the composer", func() bool { return strings.Contains(tm.screen(), "message for b") })
	tm.keys("via the composer")
	tm.key("Enter")
	o.waitFor(30*time.Second, "the composer's message at b", func() bool { return len(o.prompts("b")) == 1 })
	if got := o.prompts("b")[0]; got != "via the composer" {
		t.Fatalf("b got %q", got)
	}
	if p := o.prompts("a"); len(p) != 0 {
		t.Fatalf("a got %q", p)
	}
	if st, _ := o.status(); len(st) != 4 || !st[0].Draft || !strings.Contains(tm.screen(), "my draft") {
		t.Fatalf("a's draft was touched: %+v\n%s", st, tm.screen())
	}

	// Pause the floor, queue a message, quit: the message stays.
	tm.key("C-]")
	tm.keys("p")
	o.waitFor(5*time.Second, "the floor paused", func() bool { return strings.Contains(tm.screen(), "PAUSED") })
	o.send("c", "for next time")
	o.waitFor(10*time.Second, "held: paused", func() bool { return strings.Contains(tm.screen(), "1 queued · held: paused") })
	pids := o.uiAgentPids()
	if len(pids) != 4 {
		t.Fatalf("agent pids %v", pids)
	}
	tm.key("C-]")
	tm.keys("x")
	o.waitFor(5*time.Second, "the quit question", func() bool { return strings.Contains(tm.screen(), "d: detach") })
	tm.keys("s")
	o.waitFor(15*time.Second, "agents gone", func() bool { return uiAllGone(pids) })
	o.waitFor(10*time.Second, "office gone", func() bool {
		_, _, code := o.run("", "status")
		return code != 0
	})
	q := o.queue()
	if len(q) != 1 || q[0].Agent != "c" || q[0].Text != "for next time" {
		t.Fatalf("queue after quit: %+v", q)
	}
}

// TestUINoticesForWaitingAndExit: an agent that starts waiting for the person
// and one that exits raise notices (the status line, the notice list) while
// focus stays where it was.
func TestUINoticesForWaitingAndExit(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "200ms", "--permission"}},
		agentSpec{name: "b", args: []string{"--busy", "200ms", "--exit-after", "1", "--exit-code", "3"}})
	tm := o.startUI(160, 40)
	o.uiReady(tm, 2)
	o.send("a", "needs a yes")
	o.waitFor(30*time.Second, "a waiting in its title", func() bool { return strings.Contains(tm.screen(), "a · claude · waiting for you") })
	o.send("b", "last words")
	o.waitFor(30*time.Second, "b exited in its title", func() bool { return strings.Contains(tm.screen(), "b · claude · exited with code 3") })
	tm.key("C-]")
	tm.keys("n")
	o.waitFor(5*time.Second, "both notices in the list", func() bool {
		s := tm.screen()
		return strings.Contains(s, "a: is waiting for you") && strings.Contains(s, "b: exited with code 3")
	})
	tm.key("Escape")
	o.waitFor(5*time.Second, "the list closed", func() bool { return !strings.Contains(tm.screen(), "notices (") })
	// Focus never moved: keys still reach a (its dialog takes "1" = yes).
	tm.keys("1")
	o.waitFor(30*time.Second, "a's turn after the person's yes", func() bool {
		for _, e := range o.log("a") {
			if e.Event == "reply" {
				return true
			}
		}
		return false
	})
}
