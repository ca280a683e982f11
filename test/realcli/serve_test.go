package realcli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeWithRealClaude runs the real `office serve` binary with a real
// Claude Code agent: `office send` reaches the model once, Claude's hooks
// (`office hook`, run by Claude from the settings file office wrote) decide
// its status, and `office status --explain` names that signal.
func TestServeWithRealClaude(t *testing.T) {
	r := newRig(t, "claude")
	if officeBin == "" {
		t.Skip("office binary not built")
	}
	cfg := filepath.Join(r.root, "office.toml")
	if err := os.WriteFile(cfg, []byte(r.config()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(officeBin, "serve", "--config", cfg, "--state", r.state)
	cmd.Env = r.sb.HostEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var logb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logb, &logb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { cmd.Wait(); close(served) }()
	t.Cleanup(func() {
		syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-served:
		case <-time.After(15 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-served
		}
	})
	run := func(args ...string) (string, bool) {
		c := exec.Command(officeBin, append(args, "--config", cfg, "--state", r.state)...)
		c.Env = r.sb.HostEnv()
		out, err := c.CombinedOutput()
		return string(out), err == nil
	}
	status := func() (string, string) {
		out, ok := run("status", "--json")
		if !ok {
			return "", ""
		}
		var st []struct{ Status, Signal string }
		if json.Unmarshal([]byte(out), &st) != nil || len(st) != 1 {
			return "", ""
		}
		return st[0].Status, st[0].Signal
	}
	wait := func(d time.Duration, what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(d)
		for !cond() {
			if time.Now().After(deadline) {
				out, _ := run("status", "--explain")
				t.Fatalf("timed out waiting for %s\n%s\n--- serve output:\n%s", what, out, logb.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	wait(40*time.Second, "claude idle", func() bool { s, _ := status(); return s == "idle" })
	r.srv.SetDelay(2 * time.Second)
	if out, ok := run("send", "claude", "hello from office send"); !ok {
		t.Fatalf("office send: %s", out)
	}
	wait(20*time.Second, "busy decided by the hook", func() bool { s, sig := status(); return s == "busy" && sig == "hook" })
	wait(20*time.Second, "idle again", func() bool { s, _ := status(); return s == "idle" })
	if n := r.countPrompts("hello from office send"); n != 1 {
		t.Fatalf("the message reached the model %d times", n)
	}
	out, ok := run("status", "--explain")
	if !ok || !strings.Contains(out, "decided by hook") || !strings.Contains(out, "* hook") {
		t.Fatalf("office status --explain:\n%s", out)
	}
	t.Logf("office status --explain:\n%s", out)
}
