package e2e

// attach_test.go is issue 9's promise end to end: `office` is a client of
// the office's server, so closing its window (tmux killed: SIGHUP) only
// detaches; another `office` shows the same panes, drafts and all; several
// clients at once; prefix d detaches; `office stop` ends the agents; the UI
// attaches through a real sshd and survives its ssh being killed.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/client"
)

// win is one tmux session running an office UI.
type win struct {
	tm   *tmux
	name string
}

// openWin runs `office ARGS --state S` (with --config C unless args name
// one) in a new tmux session of the test's tmux server; extra are more
// environment variables.
func (o *office) openWin(tm *tmux, name string, extra []string, args ...string) *win {
	o.t.Helper()
	if !contains(args, "--config") && !contains(args, "--ssh") {
		args = append(args, "--config", o.config)
	}
	args = append(args, "--state", o.state)
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	envs := strings.Join(append(o.env(), extra...), " ")
	cmdline := fmt.Sprintf("env -i %s %s %s", envs, officeBin, strings.Join(q, " "))
	tm.cmd("new-session", "-d", "-x", "120", "-y", "36", "-s", name, cmdline)
	return &win{tm: tm, name: name}
}

func (w *win) keys(text string) { w.tm.cmd("send-keys", "-t", sessionTarget(w.name), "-l", text) }
func (w *win) key(names ...string) {
	w.tm.cmd(append([]string{"send-keys", "-t", sessionTarget(w.name)}, names...)...)
}
func (w *win) screen() string { return w.tm.cmd("capture-pane", "-p", "-t", sessionTarget(w.name)) }

// pid is the pid of the office client the session runs (env execs it).
func (w *win) pid() int {
	n, _ := strconv.Atoi(strings.TrimSpace(w.tm.cmd("display-message", "-p", "-t", sessionTarget(w.name), "#{pane_pid}")))
	return n
}

// open reports whether the session still runs (it ends with its client).
func (w *win) open() bool {
	return exec.Command("tmux", "-S", w.tm.socket, "has-session", "-t", "="+w.name).Run() == nil
}

var tickRe = regexp.MustCompile(`tick (\d+)`)

// maxTick is the highest "tick N" anywhere on a screen.
func maxTick(screen string) int {
	n := 0
	for _, m := range tickRe.FindAllStringSubmatch(screen, -1) {
		if k, _ := strconv.Atoi(m[1]); k > n {
			n = k
		}
	}
	return n
}

// serverPid is the pid holding the state directory's lock.
func (o *office) serverPid() int {
	o.t.Helper()
	b, err := os.ReadFile(filepath.Join(o.state, "engine.lock"))
	if err != nil {
		o.t.Fatal(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// shellOffice is a shell agent and a ticking one, no fake agents.
func shellAndTicker(t *testing.T) (*office, *tmux) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (CI installs it: .ci/run)")
	}
	o := newOffice(t)
	o.addAgent("sh", "shell", "bash", "--norc", "--noprofile")
	o.addAgent("tick", "", tickerArgv("0.2")...)
	tm := &tmux{t: t, socket: filepath.Join(o.dir, "tmux.sock")}
	t.Cleanup(o.stopServer)
	t.Cleanup(func() { tm.cmd("kill-server") })
	return o, tm
}

func TestAttachOutlivesTheWindowSharesTheDraftAndDetaches(t *testing.T) {
	t.Parallel()
	o, tm := shellAndTicker(t)
	w1 := o.openWin(tm, "one", nil)
	o.waitFor(30*time.Second, "the office answering, sh idle, ticks on screen", func() bool {
		st, ok := o.status()
		return ok && len(st) == 2 && st[0].Status == "idle" && maxTick(w1.screen()) > 0
	})
	server, client1, pids := o.serverPid(), w1.pid(), o.agentPids()
	if server == client1 || server == 0 {
		t.Fatalf("server pid %d, client pid %d: the UI must not be the server", server, client1)
	}
	w1.keys("echo my-draft-words")
	o.waitFor(10*time.Second, "the draft in the server and on screen", func() bool {
		return o.draft("sh") && strings.Contains(w1.screen(), "echo my-draft-words")
	})

	// The window dies: tmux hangs up on its client.
	tm.cmd("kill-server")
	o.waitFor(10*time.Second, "the client gone", func() bool { return !alive(client1) })
	for name, pid := range pids {
		if !alive(pid) {
			t.Fatalf("agent %s (pid %d) died with the window", name, pid)
		}
	}
	if !alive(server) {
		t.Fatal("the server died with the window")
	}
	if !o.draft("sh") {
		t.Fatal("the draft is gone after the window died")
	}
	id := o.send("sh", "echo from-the-queue")
	o.waitFor(10*time.Second, "the message held by the draft", o.heldAs("sh", "your draft"))
	ticks := 0
	c := o.dial(client.Options{Client: "test", Screens: true})
	ticks = maxTick(o.waitScreen(c, "tick", "ticks", func(s string) bool { return maxTick(s) > 0 }))

	// A new window and a second client at once: the same draft, a ticker
	// that kept counting.
	w2 := o.openWin(tm, "two", nil)
	w3 := o.openWin(tm, "three", nil)
	for _, w := range []*win{w2, w3} {
		o.waitFor(20*time.Second, w.name+": the same draft and later ticks", func() bool {
			s := w.screen()
			return strings.Contains(s, "echo my-draft-words") && maxTick(s) > ticks
		})
	}
	if p := o.serverPid(); p != server {
		t.Fatalf("a new server (pid %d) replaced pid %d", p, server)
	}
	// Each client has its own focus: keys from two go to the pane two
	// focuses (tick), three's focus stays on sh.
	w2.key("C-]")
	w2.keys("l")
	w2.keys("zz")
	o.waitScreen(c, "tick", "the keys typed in window two", func(s string) bool { return strings.Contains(s, "zz") })
	if s := screenText(c, "sh"); strings.Contains(s, "zz") || !strings.Contains(s, "echo my-draft-words") {
		t.Fatalf("window two's keys reached sh:\n%s", s)
	}
	// Clearing the draft in one client delivers the message; both show it.
	w3.key("C-u")
	if _, errOut, code := o.run("", "wait", "sh", "--until", "delivered:"+id, "--timeout", "20s"); code != 0 {
		t.Fatalf("wait delivered: exit %d: %s", code, errOut)
	}
	for _, w := range []*win{w2, w3} {
		o.waitFor(15*time.Second, w.name+": the message's output", func() bool {
			return strings.Count(w.screen(), "from-the-queue") >= 2 // the command and what it printed
		})
	}

	// Prefix d detaches one client; the other and the agents go on.
	w2.key("C-]")
	w2.keys("d")
	o.waitFor(10*time.Second, "window two closed by prefix d", func() bool { return !w2.open() })
	if _, ok := o.status(); !ok || !alive(pids["sh"]) {
		t.Fatal("detaching stopped the office")
	}
	before := maxTick(w3.screen())
	o.waitFor(10*time.Second, "window three still live", func() bool { return maxTick(w3.screen()) > before })

	// office stop ends the agents; the last client says so and exits.
	o.must("stop")
	o.waitFor(15*time.Second, "agents gone", func() bool {
		for _, pid := range pids {
			if alive(pid) {
				return false
			}
		}
		return !alive(server)
	})
	o.waitFor(10*time.Second, "window three closed when the office stopped", func() bool { return !w3.open() })
}

// TestAttachWarnsWhenTheConfigDiffers: with a server running, `office
// --config OTHER` attaches to it and says the file differs.
func TestAttachWarnsWhenTheConfigDiffers(t *testing.T) {
	t.Parallel()
	o, tm := shellAndTicker(t)
	o.must("start")
	other := filepath.Join(o.dir, "other.toml")
	if err := os.WriteFile(other, []byte("brief = false\n[[agent]]\nname = \"zzz\"\ncommand = [\"bash\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := o.openWin(tm, "other", nil, "--config", other)
	o.waitFor(20*time.Second, "the warning and the running office's panes", func() bool {
		s := w.screen()
		return strings.Contains(s, "--config "+other+" differs") && strings.Contains(s, "tick")
	})
	if st, _ := o.status(); len(st) != 2 || st[0].Name != "sh" {
		t.Fatalf("status %+v: the config given started something", st)
	}
}

// TestAttachStdioStartsTheServer: the far side of `attach --ssh` starts the
// server in the background when none runs, then bridges.
func TestAttachStdioStartsTheServer(t *testing.T) {
	t.Parallel()
	o, _ := shellAndTicker(t)
	if _, _, code := o.run("", "attach", "--stdio"); code != 1 {
		t.Fatalf("attach --stdio with no server: exit %d, want 1", code)
	}
	if _, errOut, code := o.run("", "attach", "--stdio", "--start"); code != 0 {
		t.Fatalf("attach --stdio --start: exit %d: %s", code, errOut)
	}
	if st, ok := o.status(); !ok || len(st) != 2 {
		t.Fatalf("no server after attach --stdio --start: %+v", st)
	}
}

// TestAttachOverSSHSurvivesKillingSSH: `office attach --ssh` through a real
// sshd on loopback runs the UI here; killing its ssh reconnects, and keys
// still reach the far side's agent.
func TestAttachOverSSHSurvivesKillingSSH(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts an sshd and ssh sessions (about 5 s)")
	}
	t.Parallel()
	sd := startSSHD(t)
	o, tm := shellAndTicker(t)
	o.must("start")
	w := o.openWin(tm, "ssh", []string{"OFFICE_SSH_COMMAND=" + strconv.Quote(sd.command)},
		"attach", "--ssh", sd.host, "--remote-office", officeBin)
	o.waitFor(30*time.Second, "the far office's panes", func() bool { return maxTick(w.screen()) > 0 })
	sshOf := func() int {
		for _, p := range children(w.pid()) {
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(comm)) == "ssh" {
				return p
			}
		}
		return 0
	}
	first := sshOf()
	if first == 0 {
		t.Fatalf("no ssh under the attached client\n%s", w.screen())
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	o.waitFor(20*time.Second, "a new ssh", func() bool { p := sshOf(); return p != 0 && p != first })
	before := maxTick(w.screen())
	o.waitFor(20*time.Second, "ticks again after the reconnect", func() bool { return maxTick(w.screen()) > before })
	w.keys("echo typed-far-away")
	o.waitFor(10*time.Second, "the keys at the far side", func() bool { return o.draft("sh") })
	o.waitFor(10*time.Second, "the draft on screen", func() bool { return strings.Contains(w.screen(), "echo typed-far-away") })
	if strings.Contains(w.screen(), "is gone") {
		t.Fatalf("still says gone:\n%s", w.screen())
	}
	w.key("C-]")
	w.keys("d")
	o.waitFor(10*time.Second, "detached", func() bool { return !w.open() })
	if !o.draft("sh") {
		t.Fatal("detaching over ssh lost the draft")
	}
}

// TestAttachSaysTheServerDiedAndStartsIt: a server killed under its window
// is reported there; prefix s starts it again and the panes come back.
func TestAttachSaysTheServerDiedAndStartsIt(t *testing.T) {
	t.Parallel()
	o, tm := shellAndTicker(t)
	w := o.openWin(tm, "crash", nil)
	o.waitFor(30*time.Second, "ticks on screen", func() bool { return maxTick(w.screen()) > 0 })
	server := o.serverPid()
	if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	o.waitFor(10*time.Second, "the window saying the server is gone", func() bool {
		return strings.Contains(w.screen(), "is gone") && strings.Contains(w.screen(), "s starts it again")
	})
	w.key("C-]")
	w.keys("s")
	var last string
	deadline := time.Now().Add(30 * time.Second)
	for {
		last = w.screen()
		st, ok := o.status()
		if ok && len(st) == 2 && !strings.Contains(last, "is gone") && strings.Contains(last, "tick 1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 30s waiting for a new server and its ticks in the same window; the window:\n%s\n%s", last, o.diagnose())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if p := o.serverPid(); p == server || !alive(p) {
		t.Fatalf("server pid %d after the restart (was %d)", p, server)
	}
	if !w.open() {
		t.Fatal("the window closed")
	}
}
