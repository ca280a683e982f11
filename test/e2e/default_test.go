package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"office/wire"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDefaultOfficeOnAFreshMachine runs `office` with no --config on a
// machine with no agent CLI on PATH: the embedded default office opens the
// person's shell with a notice saying how to add agents; keys typed reach the
// shell; a queued message is typed into it when it is idle; quitting stops it.
func TestDefaultOfficeOnAFreshMachine(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (CI installs it: .ci/run)")
	}
	dir := t.TempDir()
	o := &office{t: t, dir: dir, state: filepath.Join(dir, "state"), logs: map[string]string{}}
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock")}
	o.ui = tm
	// PATH without claude, codex or gemini; bash is the shell profile's program.
	cmdline := fmt.Sprintf("env -i PATH=/usr/bin:/bin HOME=%s LANG=C.UTF-8 TERM=xterm-256color %s --state %s", dir, officeBin, o.state)
	tm.cmd("new-session", "-d", "-x", "150", "-y", "40", "-s", "office", cmdline)
	t.Cleanup(func() { tm.cmd("kill-server") })

	o.waitFor(15*time.Second, "the notice and the shell pane", func() bool {
		s := tm.screen()
		return strings.Contains(s, "no agent CLI") && strings.Contains(s, "shell")
	})
	run := func(args ...string) (string, int) {
		cmd := exec.Command(officeBin, append(args, "--state", o.state)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	o.waitFor(15*time.Second, "the shell idle", func() bool {
		out, code := run("status")
		return code == 0 && strings.Contains(out, "idle")
	})
	tm.keys("echo typed-$((20+1))")
	tm.key("Enter")
	o.waitFor(10*time.Second, "the typed command's output", func() bool { return strings.Contains(tm.screen(), "typed-21") })
	if out, code := run("send", "shell", "echo queued-$((40+2))"); code != 0 {
		t.Fatalf("send: exit %d: %s", code, out)
	}
	o.waitFor(20*time.Second, "the queued command's output", func() bool { return strings.Contains(tm.screen(), "queued-42") })
	out, _ := run("status", "--json")
	var st []struct {
		Pid int `json:"pid"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st) != 1 || st[0].Pid == 0 {
		t.Fatalf("status --json: %q (%v)", out, err)
	}
	tm.key("C-]")
	tm.keys("x")
	tm.keys("y")
	o.waitFor(15*time.Second, "the shell gone and the office stopped", func() bool {
		return gone(st[0].Pid) && !engineRunning(o.state)
	})
}

// gone reports whether pid has exited (a zombie left for init counts).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return strings.Contains(string(b), ") Z")
}

// engineRunning reports whether an office still answers on state.
func engineRunning(state string) bool {
	_, err := os.Stat(filepath.Join(state, wire.SocketFile))
	return err == nil
}
