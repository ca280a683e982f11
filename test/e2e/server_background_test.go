package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/client"
)

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return !strings.Contains(string(st), ") Z")
}

// agentPids returns each agent's pid from `office status --json`.
func (o *office) agentPids() map[string]int {
	o.t.Helper()
	var st []struct {
		Name string `json:"name"`
		Pid  int    `json:"pid"`
	}
	if err := json.Unmarshal([]byte(o.must("status", "--json")), &st); err != nil {
		o.t.Fatal(err)
	}
	out := map[string]int{}
	for _, s := range st {
		out[s.Name] = s.Pid
	}
	return out
}

func TestStartedServerOutlivesItsTerminalAndStopEndsTheAgents(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (CI installs it: .ci/run)")
	}
	o := newOffice(t, agentSpec{name: "a"})
	o.addAgent("tick", "", tickerArgv("0.2")...)
	tm := &tmux{t: t, socket: filepath.Join(o.dir, "tmux.sock")}
	cmdline := fmt.Sprintf("env -i %s %s start --config %s --state %s; sleep 600", strings.Join(o.env(), " "), officeBin, o.config, o.state)
	tm.cmd("new-session", "-d", "-x", "100", "-y", "30", "-s", "start", cmdline)
	t.Cleanup(func() {
		tm.cmd("kill-server")
		o.run("", "stop")
	})
	o.waitFor(30*time.Second, "the started office answering, a idle", func() bool {
		st, ok := o.status()
		return ok && len(st) == 2 && st[0].Status == "idle"
	})
	lock, err := os.ReadFile(filepath.Join(o.state, "engine.lock"))
	if err != nil {
		t.Fatal(err)
	}
	server, _ := strconv.Atoi(strings.TrimSpace(string(lock)))
	pids := o.agentPids()
	// The server is in its own session, without a controlling terminal.
	if sid, _ := syscall.Getpgid(server); sid != server {
		t.Errorf("server pid %d is in process group %d, want its own", server, sid)
	}
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", server))
	if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:])); len(f) > 4 && f[4] != "0" {
		t.Errorf("server has controlling terminal %s, want none", f[4])
	}

	// A draft typed through a client before the terminal dies.
	c := o.dial(client.Options{Client: "test", Screens: true})
	if err := c.Input("a", []byte("half a thought")); err != nil {
		t.Fatal(err)
	}
	o.waitFor(10*time.Second, "a has a draft", func() bool { return o.draft("a") })
	c.Close()

	tm.cmd("kill-server") // the terminal is gone: SIGHUP to its session
	o.waitFor(10*time.Second, "the tmux session gone", func() bool {
		out, err := exec.Command("tmux", "-S", tm.socket, "has-session").CombinedOutput()
		return err != nil || len(out) > 0
	})
	if !alive(server) {
		t.Fatalf("the server (pid %d) died with the terminal that started it", server)
	}
	for name, pid := range pids {
		if !alive(pid) {
			t.Fatalf("agent %s (pid %d) died with the terminal", name, pid)
		}
	}
	if got := o.agentPids(); got["a"] != pids["a"] || got["tick"] != pids["tick"] {
		t.Fatalf("agents after the terminal died: %v, want the same processes %v", got, pids)
	}
	o.send("a", "waits for the draft")
	o.waitFor(10*time.Second, "the message held by the draft", o.heldAs("a", "your draft"))
	c = o.dial(client.Options{Client: "again", Screens: true})
	o.waitScreen(c, "a", "the same draft", func(s string) bool { return strings.Contains(s, "half a thought") })
	first := lastTick(o.waitScreen(c, "tick", "a tick", func(s string) bool { return lastTick(s) > 0 }))
	o.waitScreen(c, "tick", "the ticker counting on", func(s string) bool { return lastTick(s) > first })

	if _, errOut, code := o.run("", "stop"); code != 0 {
		t.Fatalf("stop: exit %d: %s", code, errOut)
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the attached client was not told the office stopped")
	}
	if _, ok := c.Err().(*client.ByeError); !ok {
		t.Errorf("client ended with %v, want a bye", c.Err())
	}
	for name, pid := range pids {
		if alive(pid) {
			t.Errorf("agent %s (pid %d) still runs after stop", name, pid)
		}
	}
	if alive(server) {
		t.Errorf("server (pid %d) still runs after stop", server)
	}
	if q := o.queue(); len(q) != 1 || q[0].Text != "waits for the draft" {
		t.Fatalf("queue after stop = %+v, want the held message kept", q)
	}
	_, errOut, code := o.run("", "stop")
	if code != 1 || !strings.Contains(errOut, "no office is running") {
		t.Fatalf("stop with no server: exit %d: %s, want 1 and a clear message", code, errOut)
	}
}
