// Package e2e drives the real office binary end to end: `office serve` or the
// UI under tmux, fake agent TUIs in real PTYs, the real SQLite store and the
// real Unix socket. Tests wait on conditions with deadlines; they never sleep
// to let something happen.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/test/testbin"
)

// Binaries built once by TestMain.
var (
	officeBin string
	fakeBin   string
)

// e2eParallel is how many e2e tests run at once: each mostly waits (on an
// agent's boot, a poll, a cooldown), so more than the cores.
const e2eParallel = 8

func TestMain(m *testing.M) {
	testbin.Parallel(e2eParallel)
	testbin.Main(func(bins map[string]string) int {
		officeBin, fakeBin = bins["office"], bins["fakeagent"]
		return m.Run()
	}, "office/cmd/office", "office/test/fakeagent")
}

// agentSpec is one fake agent in a test office.
type agentSpec struct {
	name string
	args []string // extra fake agent flags
	// keys are more [[agent]] keys (parent, role, task), written when non-empty.
	keys map[string]string
	// noHooks: the fake agent runs no hooks, so its records never show a
	// delivery (by default it runs office's hooks as Claude Code does: a
	// CLI that keeps records confirms every delivery).
	noHooks bool
}

// office is one test office: a config, a state dir and the fake agents' logs.
type office struct {
	t      testing.TB
	dir    string
	config string
	state  string
	logs   map[string]string
	serve  *exec.Cmd
	served chan struct{}
	ui     *tmux
}

// newOffice writes a config with the given fake agents (profile claude, as the
// fake agent mimics Claude Code's screen).
func newOffice(t testing.TB, agents ...agentSpec) *office {
	t.Helper()
	dir := t.TempDir()
	o := &office{t: t, dir: dir, config: filepath.Join(dir, "office.toml"), state: filepath.Join(dir, "state"), logs: map[string]string{}}
	var b strings.Builder
	// No opening brief: the tests count the prompts each agent receives.
	b.WriteString("brief = false\n\n")
	for _, a := range agents {
		log := filepath.Join(dir, a.name+".jsonl")
		o.logs[a.name] = log
		argv := append([]string{fakeBin, "--log", log}, a.args...)
		if !a.noHooks && !slices.Contains(a.args, "--hook-evidence") {
			argv = append(argv, "--hook-evidence")
		}
		q := make([]string, len(argv))
		for i, s := range argv {
			q[i] = fmt.Sprintf("%q", s)
		}
		fmt.Fprintf(&b, "[[agent]]\nname = %q\nprofile = \"claude\"\ncommand = [%s]\n", a.name, strings.Join(q, ", "))
		for _, k := range slices.Sorted(maps.Keys(a.keys)) {
			if v := a.keys[k]; v != "" {
				fmt.Fprintf(&b, "%s = %q\n", k, v)
			}
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(o.config, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return o
}

// env is the environment office commands run with in tests.
func (o *office) env() []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + o.dir, "LANG=C.UTF-8", "TERM=xterm-256color", "TMPDIR=" + o.dir}
}

// run runs `office ARGS --config C --state S` and returns stdout, stderr and
// the exit code.
func (o *office) run(stdin string, args ...string) (string, string, int) {
	o.t.Helper()
	if !contains(args, "--config") {
		args = append(args, "--config", o.config)
	}
	args = append(args, "--state", o.state)
	cmd := exec.Command(officeBin, args...)
	cmd.Env = o.env()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		o.t.Fatalf("office %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// must runs an office command that must succeed and returns its stdout.
func (o *office) must(args ...string) string {
	o.t.Helper()
	out, errOut, code := o.run("", args...)
	if code != 0 {
		o.t.Fatalf("office %v: exit %d: %s", args, code, errOut)
	}
	return out
}

// startServe starts `office serve` and waits until every agent is idle.
func (o *office) startServe() {
	o.t.Helper()
	o.startServeUntil("every agent idle", func() bool {
		st, ok := o.status()
		if !ok || len(st) == 0 {
			return false
		}
		for _, s := range st {
			if s.Status != "idle" && !s.Remote { // another host's agents are not this server's to start
				return false
			}
		}
		return true
	})
}

// startServeUntil starts `office serve` and waits for cond (an office with
// an agent that cannot start is never all idle).
func (o *office) startServeUntil(what string, cond func() bool) {
	o.t.Helper()
	cmd := exec.Command(officeBin, "serve", "--config", o.config, "--state", o.state)
	cmd.Env = o.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		o.t.Fatal(err)
	}
	o.serve = cmd
	served := make(chan struct{})
	o.served = served
	go func() { cmd.Wait(); close(served) }()
	o.t.Cleanup(func() { o.stopServe(syscall.SIGTERM) })
	o.waitFor(30*time.Second, what, func() bool {
		select {
		case <-served: // Wait has returned: errb is whole, and no longer written
			o.t.Fatalf("office serve exited (%v) before %s:\n%s", cmd.ProcessState, what, errb.String())
		default:
		}
		return cond()
	})
}

// stopServe signals the serving office's process group and waits for it.
func (o *office) stopServe(sig syscall.Signal) {
	if o.serve == nil {
		return
	}
	if sig == syscall.SIGKILL {
		_ = syscall.Kill(o.serve.Process.Pid, sig)
	} else {
		_ = syscall.Kill(o.serve.Process.Pid, sig)
	}
	select {
	case <-o.served:
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(-o.serve.Process.Pid, syscall.SIGKILL)
		<-o.served
	}
	o.serve = nil
}

// agentStatus mirrors `office status --json`.
type agentStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Signal string `json:"signal"`
	Draft  bool   `json:"draft"`
	Hold   string `json:"hold"`
	Remote bool   `json:"remote"` // an agent of another host of the floor
}

func (o *office) status() ([]agentStatus, bool) {
	out, _, code := o.run("", "status", "--json")
	if code != 0 {
		return nil, false
	}
	var st []agentStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return nil, false
	}
	return st, true
}

// queued mirrors `office queue --json`.
type queued struct {
	ID        int64  `json:"id"`
	Agent     string `json:"agent"`
	Text      string `json:"text"`
	Attempts  int    `json:"attempts"`
	LastError string `json:"last_error"`
	Held      string `json:"held"`
	Evidence  string `json:"evidence"`
}

func (o *office) queue() []queued {
	o.t.Helper()
	out := o.must("queue", "--json")
	var q []queued
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		o.t.Fatalf("queue --json: %v\n%s", err, out)
	}
	return q
}

// send queues text for agent and returns the message id.
func (o *office) send(agent, text string) string {
	o.t.Helper()
	out, errOut, code := o.run(text, "send", agent, "-")
	if code != 0 {
		o.t.Fatalf("send %s: exit %d: %s", agent, code, errOut)
	}
	return strings.TrimSpace(out)
}

// logEntry is one line of a fake agent's JSON log.
type logEntry struct {
	Event  string `json:"event"`
	Text   string `json:"text"`
	How    string `json:"how"`
	Cols   int    `json:"cols"`
	Rows   int    `json:"rows"`
	Queued bool   `json:"queued"`
}

func (o *office) log(agent string) []logEntry {
	o.t.Helper()
	f, err := os.Open(o.logs[agent])
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		o.t.Fatal(err)
	}
	defer f.Close()
	var out []logEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e logEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // a line being written
		}
		out = append(out, e)
	}
	return out
}

// prompts returns what agent received, in order: the prompts typed into it
// and the messages handed over to it at a turn's end (the fake agent runs
// office's Stop hook, as Claude Code does, so the drain may hand a notice
// or an agent's mail over instead of typing it, as timing has it). A test
// that must tell the two apart asks typed or handed.
func (o *office) prompts(agent string) []string {
	var out []string
	for _, e := range o.log(agent) {
		if e.Event == "prompt" || e.Event == "handed" {
			out = append(out, e.Text)
		}
	}
	return out
}

// typed returns the prompts typed into agent, in order (no hand-over).
func (o *office) typed(agent string) []string {
	var out []string
	for _, e := range o.log(agent) {
		if e.Event == "prompt" {
			out = append(out, e.Text)
		}
	}
	return out
}

// waitFor polls cond until it holds or d passes.
func (o *office) waitFor(d time.Duration, what string, cond func() bool) {
	o.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			o.t.Fatalf("timed out after %v waiting for %s\n%s", d, what, o.diagnose())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// diagnose describes the office for a failure message: status, queue, the
// engine's log and the UI's screen.
func (o *office) diagnose() string {
	var b strings.Builder
	st, _, _ := o.run("", "status")
	q, _, _ := o.run("", "queue")
	fmt.Fprintf(&b, "--- office status:\n%s--- office queue:\n%s", st, q)
	if log, err := os.ReadFile(filepath.Join(o.state, "office.log")); err == nil {
		lines := strings.Split(strings.TrimSpace(string(log)), "\n")
		if len(lines) > 30 {
			lines = lines[len(lines)-30:]
		}
		fmt.Fprintf(&b, "--- office.log (last lines):\n%s\n", strings.Join(lines, "\n"))
	}
	if o.ui != nil {
		fmt.Fprintf(&b, "--- screen:\n%s", o.ui.screen())
	}
	return b.String()
}

// tmux is a private tmux server running the office UI.
type tmux struct {
	t      testing.TB
	socket string
}

// startUI runs `office` (the UI) in a detached tmux session of cols × rows.
func (o *office) startUI(cols, rows int) *tmux {
	o.t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		o.t.Skip("tmux not installed (CI installs it: .ci/run)")
	}
	tm := &tmux{t: o.t, socket: filepath.Join(o.dir, "tmux.sock")}
	envs := strings.Join(o.env(), " ")
	cmdline := fmt.Sprintf("env -i %s %s --config %s --state %s", envs, officeBin, o.config, o.state)
	tm.cmd("new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-s", "office", cmdline)
	// The UI is a client: the server it started outlives tmux, so stop it.
	o.t.Cleanup(func() { o.stopServer() })
	o.t.Cleanup(func() { tm.cmd("kill-server") })
	o.ui = tm
	return tm
}

// stopServer stops the office's background server, if one runs, and waits
// until it is gone.
func (o *office) stopServer() {
	cmd := exec.Command(officeBin, "stop", "--state", o.state)
	cmd.Env = o.env()
	_ = cmd.Run()
}

func (tm *tmux) cmd(args ...string) string {
	tm.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil && args[0] != "kill-server" {
		tm.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// sessionTarget names tmux session name's current pane unambiguously. A bare
// name is looked up as a window name first, in tmux's current session: every
// window running the office binary is named "office", so "-t office" can
// pick another session's window (the most recently created one).
func sessionTarget(name string) string { return "=" + name + ":" }

// officeTarget is sessionTarget of the session startUI creates.
const officeTarget = "=office:"

// keys types literal text into the UI.
func (tm *tmux) keys(text string) { tm.cmd("send-keys", "-t", officeTarget, "-l", text) }

// key sends named keys (Enter, Escape, C-u, C-]).
func (tm *tmux) key(names ...string) {
	tm.cmd(append([]string{"send-keys", "-t", officeTarget}, names...)...)
}

// screen returns the UI's visible text.
func (tm *tmux) screen() string { return tm.cmd("capture-pane", "-p", "-t", officeTarget) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
