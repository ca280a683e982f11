package realcli

// The UI end to end with a real CLI: the office binary (its UI) under tmux,
// the pinned CLI as its one agent, the fake model server answering.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// uiTmux runs the office UI for the rig under a private tmux server.
type uiTmux struct {
	t      *testing.T
	socket string
}

func (tm *uiTmux) cmd(args ...string) string {
	tm.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil && args[0] != "kill-server" {
		tm.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (tm *uiTmux) screen() string { return tm.cmd("capture-pane", "-p", "-t", "=office:") }

// startUI writes the rig's config and runs `office` on it under tmux, with
// the sandbox's environment.
func (r *rig) startUI(cols, rows int) *uiTmux {
	r.t.Helper()
	if officeBin == "" {
		r.t.Skip("office binary not built")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		r.t.Skip("tmux not installed (CI installs it: .ci/run)")
	}
	cfg := filepath.Join(r.root, "office.toml")
	if err := os.WriteFile(cfg, []byte(r.config()), 0o600); err != nil {
		r.t.Fatal(err)
	}
	var sh strings.Builder
	sh.WriteString("#!/bin/sh\n")
	for _, kv := range r.sb.HostEnv() {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&sh, "export %s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
	}
	fmt.Fprintf(&sh, "exec %s --config '%s' --state '%s'\n", officeBin, cfg, r.state)
	script := filepath.Join(r.root, "run-office.sh")
	if err := os.WriteFile(script, []byte(sh.String()), 0o700); err != nil {
		r.t.Fatal(err)
	}
	tm := &uiTmux{t: r.t, socket: filepath.Join(r.root, "tmux.sock")}
	tm.cmd("new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-s", "office", "env -i "+script)
	// The UI is a client: the server it started outlives tmux, its agent
	// writing into the test's directory while the test removes it, so it
	// is stopped (and waited for) after tmux goes.
	r.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, officeBin, "stop", "--state", r.state)
		cmd.Env = r.sb.HostEnv()
		_ = cmd.Run()
	})
	r.t.Cleanup(func() { tm.cmd("kill-server") })
	return tm
}

// TestUIShiftEnterIsANewline: Shift+Enter as a kitty-protocol terminal
// sends it (CSI 13;2u) reaches the real CLI through the UI as a new line in
// the prompt, not a submit; the Enter after the second line submits both
// lines as one prompt.
func TestUIShiftEnterIsANewline(t *testing.T) {
	for _, cli := range []string{"claude", "codex", "gemini"} {
		t.Run(cli, func(t *testing.T) {
			r := newRig(t, cli)
			tm := r.startUI(120, 40)
			ready := map[string]string{"claude": "? for shortcuts", "codex": "? for shortcuts", "gemini": "Type your message"}[cli]
			r.waitFor(60*time.Second, "the CLI ready in the UI", func() bool {
				return strings.Contains(tm.screen(), ready) && strings.Contains(tm.screen(), "idle")
			})
			// Each key waits for the CLI to have drawn the text before it, as
			// a person's does (Gemini under load reads text and a key sent
			// right after it in one batch and drops the key).
			shown := func(text string) {
				r.waitFor(10*time.Second, "the typed text in the pane", func() bool { return strings.Contains(tm.screen(), text) })
				time.Sleep(300 * time.Millisecond) // a person's next key comes in its own read
			}
			tm.cmd("send-keys", "-t", "=office:", "-l", "first line here")
			shown("first line here")
			tm.cmd("send-keys", "-t", "=office:", "-H", "1b", "5b", "31", "33", "3b", "32", "75")
			time.Sleep(300 * time.Millisecond)
			tm.cmd("send-keys", "-t", "=office:", "-l", "second line here")
			shown("second line here")
			if n := r.countPrompts("first line here"); n != 0 {
				t.Fatalf("Shift+Enter submitted: the model got %q\n%s", r.prompts(), tm.screen())
			}
			tm.cmd("send-keys", "-t", "=office:", "Enter")
			r.waitFor(30*time.Second, "the two-line prompt at the model", func() bool { return r.countPrompts("second line here") == 1 })
			if p := r.lastPromptWith("second line here"); !strings.Contains(p, "first line here\nsecond line here") {
				t.Fatalf("prompt arrived as %q\n%s", p, tm.screen())
			}
		})
	}
}
