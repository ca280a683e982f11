package main

// term.go is the outer terminal (a PTY this program owns, where tmux's client
// or office's UI runs) and the two systems under test.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
)

const (
	cols = 120
	rows = 40
	// tmuxBatch is how many agents one tmux command line starts.
	tmuxBatch = 50
)

// term is a program running in a PTY of cols×rows whose master this program
// holds: what the program writes arrives on out, one read at a time.
type term struct {
	cmd  *exec.Cmd
	f    *os.File
	out  chan []byte
	done chan struct{}
	read atomic.Int64 // bytes read from the master
}

func startTerm(env []string, argv ...string) (*term, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		return nil, fmt.Errorf("start %s in a PTY: %w", argv[0], err)
	}
	t := &term{cmd: cmd, f: f, out: make(chan []byte, 4096), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				t.read.Add(int64(n))
				t.out <- bytes.Clone(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { _ = cmd.Wait() }()
	return t, nil
}

// drain discards output until none arrived for quiet (or max passed).
func (t *term) drain(quiet, max time.Duration) {
	end := time.After(max)
	for {
		select {
		case <-t.out:
		case <-time.After(quiet):
			return
		case <-end:
			return
		}
	}
}

// discard throws all output away from now on (a client being fed a stream).
func (t *term) discard() {
	go func() {
		for {
			select {
			case <-t.out:
			case <-t.done:
				return
			}
		}
	}()
}

// waitFor reads output until it contains s.
func (t *term) waitFor(s string, d time.Duration) error {
	var seen []byte
	end := time.After(d)
	for {
		select {
		case b := <-t.out:
			seen = append(seen, b...)
			if bytes.Contains(seen, []byte(s)) {
				return nil
			}
			if len(seen) > 1<<20 {
				seen = seen[len(seen)-len(s):]
			}
		case <-t.done:
			return fmt.Errorf("%s exited before showing %q", t.cmd.Path, s)
		case <-end:
			return fmt.Errorf("%q not seen in %s", s, d)
		}
	}
}

func (t *term) alive() bool {
	select {
	case <-t.done:
		return false
	default:
		return true
	}
}

func (t *term) close() {
	if t.cmd.Process != nil {
		_ = syscall.Kill(t.cmd.Process.Pid, syscall.SIGTERM)
	}
	select {
	case <-t.done:
	case <-time.After(3 * time.Second):
		_ = t.cmd.Process.Kill()
	}
	t.f.Close()
}

// baseEnv is the environment every program under test gets.
func (e *env) baseEnv(home string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "TERM=xterm-256color", "TMPDIR=" + home}
	// The Go runtime's knobs pass through, to measure office under them.
	for _, k := range []string{"GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// agent is one program in a pane: its argv and the fake agent's log (when it
// is a fake agent).
type agent struct {
	name string
	argv []string
	log  string
}

// fakeAgents are n fake agents logging into dir, with extra flags.
func (e *env) fakeAgents(dir, prefix string, n int, extra ...string) []agent {
	as := make([]agent, n)
	for i := range as {
		name := fmt.Sprintf("%s%03d", prefix, i)
		log := filepath.Join(dir, name+".jsonl")
		as[i] = agent{name: name, log: log, argv: append([]string{e.fake, "--log", log}, extra...)}
	}
	return as
}

// logged counts the agents whose log has a line with event ev.
func logged(as []agent, ev string) int {
	n := 0
	for _, a := range as {
		b, _ := os.ReadFile(a.log)
		if bytes.Contains(b, []byte(`{"event":"`+ev+`"`)) {
			n++
		}
	}
	return n
}

// waitLogged waits until every agent logged ev.
func waitLogged(as []agent, ev string, d time.Duration) error {
	end := time.Now().Add(d)
	for {
		n := logged(as, ev)
		if n == len(as) {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("%d of %d agents logged %q in %s", n, len(as), ev, d)
		}
		time.Sleep(50 * time.Millisecond) // polling files written by other processes
	}
}

// officeRun is one office: its config, state directory and processes.
type officeRun struct {
	e      *env
	bin    string // the office binary: e.office, or -vs's
	dir    string
	config string
	state  string
	serve  *exec.Cmd
	ui     *term
}

// newOffice writes a config for the agents (profile claude for fake agents,
// custom otherwise) in a fresh directory.
func (e *env) newOffice(name string, as []agent) (*officeRun, error) {
	dir := filepath.Join(e.dir, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("brief = false\n\n")
	for _, a := range as {
		q := make([]string, len(a.argv))
		for i, s := range a.argv {
			q[i] = strconv.Quote(s)
		}
		profile := "custom"
		if a.log != "" {
			profile = "claude"
		}
		fmt.Fprintf(&b, "[[agent]]\nname = %q\nprofile = %q\ncommand = [%s]\n\n", a.name, profile, strings.Join(q, ", "))
	}
	o := &officeRun{e: e, bin: e.office, dir: dir, config: filepath.Join(dir, "office.toml"), state: filepath.Join(dir, "state")}
	return o, os.WriteFile(o.config, []byte(b.String()), 0o600)
}

func (o *officeRun) env() []string {
	env := append(o.e.baseEnv(o.dir), o.e.extraEnv...)
	if o.e.profile != "" {
		env = append(env, "OFFICE_PPROF="+o.e.profile)
	}
	return env
}

func (o *officeRun) args(args ...string) []string {
	return append(args, "--config", o.config, "--state", o.state)
}

// startServe runs `office serve` (headless).
func (o *officeRun) startServe() error {
	cmd := exec.Command(o.bin, o.args("serve")...)
	cmd.Env = o.env()
	cmd.Dir = o.dir
	logf, err := os.Create(filepath.Join(o.dir, "serve.out"))
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("office serve: %w", err)
	}
	o.serve = cmd
	go func() { _ = cmd.Wait(); logf.Close() }()
	return nil
}

// startUI runs `office` (the UI) in an outer terminal. With a server running
// it attaches to it, if this office can; callers check attachedUI.
func (o *officeRun) startUI() error {
	t, err := startTerm(o.env(), append([]string{o.bin}, o.args()...)...)
	if err != nil {
		return err
	}
	o.ui = t
	return nil
}

// attachUI shows the office's UI for a server already serving: attached as a
// client when this office can do that; otherwise (the UI holds the engine
// itself) the server is stopped and the UI runs the office alone, and the
// agents start again (the caller waits for them).
func (o *officeRun) attachUI(beforeRestart func()) (restarted bool, err error) {
	if err := o.startUI(); err != nil {
		return false, err
	}
	// An office whose UI cannot attach exits at once: one office per state.
	select {
	case <-o.ui.done:
	case <-time.After(2 * time.Second):
		return false, nil
	}
	o.stopServe()
	beforeRestart()
	return true, o.startUI()
}

func (o *officeRun) send(agent, text string) error {
	cmd := exec.Command(o.bin, o.args("send", agent, text)...)
	cmd.Env = o.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("office send %s: %v: %s", agent, err, out)
	}
	return nil
}

func (o *officeRun) pids() []int { return byExeArg(o.bin, o.state) }

func (o *officeRun) stopServe() {
	if o.serve == nil {
		return
	}
	_ = o.serve.Process.Signal(syscall.SIGTERM)
	for i := 0; i < 100 && o.serve.ProcessState == nil && syscall.Kill(o.serve.Process.Pid, 0) == nil; i++ {
		time.Sleep(50 * time.Millisecond) // waiting for the server to stop its agents
	}
	o.serve = nil
}

// close stops every office process of this run (the UI, a server it may have
// started, `office serve`).
func (o *officeRun) close() {
	if o.ui != nil {
		o.ui.close()
		o.ui = nil
	}
	o.stopServe()
	cmd := exec.Command(o.bin, o.args("stop")...)
	cmd.Env = o.env()
	_ = cmd.Run()
	for i := 0; i < 100 && len(o.pids()) > 0; i++ {
		time.Sleep(50 * time.Millisecond) // waiting for processes of this run to exit
	}
}

// tmuxRun is one tmux server on its own socket.
type tmuxRun struct {
	e      *env
	sock   string
	dir    string
	client *term
}

// newTmux starts a tmux server with the agents: the first (up to) nine as
// tiled panes of window 0, so an attached client shows nine as office's grid
// does, the rest one window each; windows are cols×rows.
func (e *env) newTmux(name string, as []agent) (*tmuxRun, error) {
	if e.tmux == "" {
		return nil, errors.New("no tmux")
	}
	e.tmuxCount++
	t := &tmuxRun{e: e, sock: fmt.Sprintf("office-bench-%d-%d", os.Getpid(), e.tmuxCount), dir: filepath.Join(e.dir, name)}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return nil, err
	}
	args := []string{"-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), shellJoin(as[0].argv)}
	args = append(args, ";", "set", "-g", "status", "off", ";", "set", "-g", "window-size", "latest")
	for i, a := range as[1:] {
		if i+1 < 9 {
			args = append(args, ";", "split-window", "-t", "b:0", shellJoin(a.argv), ";", "select-layout", "-t", "b:0", "tiled")
		} else {
			args = append(args, ";", "new-window", "-d", "-t", fmt.Sprintf("b:%d", i+1-8), shellJoin(a.argv))
		}
		// tmux takes a command line of bounded length: many agents are
		// added a batch at a time.
		if (i+2)%tmuxBatch == 0 && i+2 < len(as) {
			if out, err := t.cmd(args...); err != nil {
				return nil, fmt.Errorf("tmux: %v: %s", err, out)
			}
			args = []string{"set", "-g", "status", "off"}
		}
	}
	if out, err := t.cmd(args...); err != nil {
		return nil, fmt.Errorf("tmux new-session: %v: %s", err, out)
	}
	return t, nil
}

func (t *tmuxRun) cmd(args ...string) (string, error) {
	cmd := exec.Command(t.e.tmux, append([]string{"-L", t.sock}, args...)...)
	cmd.Env = t.e.baseEnv(t.dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// serverPid is the tmux server's pid.
func (t *tmuxRun) serverPid() int {
	out, err := t.cmd("display-message", "-p", "-t", "b", "#{pid}")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(out))
	return n
}

// attach runs `tmux attach` in an outer terminal.
func (t *tmuxRun) attach() error {
	c, err := startTerm(t.e.baseEnv(t.dir), t.e.tmux, "-L", t.sock, "attach", "-t", "b")
	if err != nil {
		return err
	}
	t.client = c
	return nil
}

func (t *tmuxRun) pids() []int {
	ps := []int{t.serverPid()}
	if t.client != nil && t.client.alive() {
		ps = append(ps, t.client.cmd.Process.Pid)
	}
	return ps
}

func (t *tmuxRun) close() {
	if t.client != nil {
		t.client.close()
	}
	_, _ = t.cmd("kill-server")
}

// shellJoin quotes argv for tmux, which runs its command through sh -c.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, s := range argv {
		q[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
