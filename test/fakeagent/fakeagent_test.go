package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"
)

const waitTimeout = 10 * time.Second

// TestFakeAgent builds the binary once and drives it in real PTYs.
func TestFakeAgent(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "fakeagent")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cases := []struct {
		name string
		fn   func(t *testing.T, bin string)
	}{
		{"Submit", testSubmit},
		{"Paste", testPaste},
		{"ModelPicker", testModelPicker},
		{"ExitAfter", testExitAfter},
		{"ExitCommand", testExitCommand},
		{"FastReturn", testFastReturn},
		{"Resize", testResize},
		{"Screen", testScreen},
		{"Interrupt", testInterrupt},
		{"Recall", testRecall},
		{"Permission", testPermission},
		{"Startup", testStartup},
		{"CtrlC", testCtrlC},
		{"SIGTERM", testSIGTERM},
		{"Hangup", testHangup},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.fn(t, bin)
		})
	}
}

type event map[string]any

func (e event) str(k string) string { s, _ := e[k].(string); return s }

func (e event) num(k string) int { f, _ := e[k].(float64); return int(f) }

type agent struct {
	t    *testing.T
	cmd  *exec.Cmd
	pty  *os.File
	log  string
	done chan struct{} // process exited
	eof  chan struct{} // PTY reader finished (all output read)

	mu  sync.Mutex
	out []byte
}

func startAgent(t *testing.T, bin string, args ...string) *agent {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "log.jsonl")
	cmd := exec.Command(bin, append([]string{"--log", logPath}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FAKEAGENT_") && !strings.HasPrefix(kv, "TERM=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TERM=xterm-256color")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	ptmx = pollable(t, ptmx)
	a := &agent{t: t, cmd: cmd, pty: ptmx, log: logPath, done: make(chan struct{}), eof: make(chan struct{})}
	go func() {
		defer close(a.eof)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				a.mu.Lock()
				a.out = append(a.out, buf[:n]...)
				a.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(a.done)
	}()
	t.Cleanup(func() {
		select {
		case <-a.done:
		default:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-a.done:
			case <-time.After(2 * time.Second):
				_ = cmd.Process.Kill()
				<-a.done
			}
		}
		_ = ptmx.Close()
	})
	return a
}

// pollable returns a non-blocking, poller-backed copy of the PTY master.
// pty's ioctls call Fd(), which switches the file to blocking mode; then
// Close cannot interrupt a blocked Read, so the descriptor (and the child's
// terminal) would stay open until the next byte arrives.
func pollable(t *testing.T, f *os.File) *os.File {
	t.Helper()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatalf("dup: %v", err)
	}
	_ = f.Close()
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatalf("nonblock: %v", err)
	}
	return os.NewFile(uintptr(fd), "ptmx")
}

func (a *agent) write(s string) {
	a.t.Helper()
	if _, err := a.pty.Write([]byte(s)); err != nil {
		a.t.Fatalf("write %q: %v", s, err)
	}
}

func (a *agent) output() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]byte(nil), a.out...)
}

// screen replays all output so far into a fresh 120x40 vt10x.
func (a *agent) screen() vt10x.Terminal {
	vt := vt10x.New(vt10x.WithSize(120, 40))
	_, _ = vt.Write(a.output())
	return vt
}

func screenLines(vt vt10x.Terminal) []string {
	lines := strings.Split(strings.TrimSuffix(vt.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// events reads the complete lines of the log.
func (a *agent) events() []event {
	a.t.Helper()
	data, err := os.ReadFile(a.log)
	if err != nil && !os.IsNotExist(err) {
		a.t.Fatalf("read log: %v", err)
	}
	var evs []event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			a.t.Fatalf("bad log line %q: %v", sc.Text(), err)
		}
		evs = append(evs, e)
	}
	// A final line without '\n' would be a torn write; the program writes
	// whole lines, so that would be a bug.
	if len(data) > 0 && data[len(data)-1] != '\n' {
		a.t.Fatalf("log does not end in a newline: %q", data)
	}
	return evs
}

func (a *agent) fail(format string, args ...any) {
	a.t.Helper()
	var b strings.Builder
	for _, e := range a.events() {
		j, _ := json.Marshal(e)
		b.WriteString("  " + string(j) + "\n")
	}
	a.t.Fatalf(format+"\nlog:\n%s\nscreen:\n%s", append(args, b.String(), a.screen().String())...)
}

// waitFor polls the log until cond holds.
func (a *agent) waitFor(what string, cond func([]event) bool) []event {
	a.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		evs := a.events()
		if cond(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			a.fail("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitEvent waits for the nth (1-based) event that has this name and
// satisfies match (nil matches all).
func (a *agent) waitEvent(name string, n int, match func(event) bool) event {
	a.t.Helper()
	var found event
	a.waitFor(name, func(evs []event) bool {
		c := 0
		for _, e := range evs {
			if e.str("event") == name && (match == nil || match(e)) {
				c++
				if c == n {
					found = e
					return true
				}
			}
		}
		return false
	})
	return found
}

// waitScreen waits until cond holds for the emulated screen.
func (a *agent) waitScreen(what string, cond func(vt vt10x.Terminal, lines []string) bool) vt10x.Terminal {
	a.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		vt := a.screen()
		if cond(vt, screenLines(vt)) {
			return vt
		}
		if time.Now().After(deadline) {
			a.fail("timed out waiting for screen: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitExit waits for the process to exit and for its output to be drained.
func (a *agent) waitExit() int {
	a.t.Helper()
	timeout := time.After(waitTimeout)
	for _, ch := range []chan struct{}{a.done, a.eof} {
		select {
		case <-ch:
		case <-timeout:
			a.fail("timed out waiting for exit")
		}
	}
	return a.cmd.ProcessState.ExitCode()
}

func filter(evs []event, name string) []event {
	var out []event
	for _, e := range evs {
		if e.str("event") == name {
			out = append(out, e)
		}
	}
	return out
}

func texts(evs []event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.str("text"))
	}
	return out
}

func ready(a *agent) { a.waitEvent("ready", 1, nil) }

func testSubmit(t *testing.T, bin string) {
	a := startAgent(t, bin, "--busy", "300ms")
	ready(a)
	a.write("hello\r")
	p := a.waitEvent("prompt", 1, nil)
	if p.str("text") != "hello" || p["queued"] != false || p.str("time") == "" {
		a.fail("first prompt = %v", p)
	}
	// Enter while busy queues; the queued message is sent after the turn.
	a.write("second\r")
	a.waitEvent("queued", 1, func(e event) bool { return e.str("text") == "second" })
	q := a.waitEvent("prompt", 2, nil)
	if q.str("text") != "second" || q["queued"] != true {
		a.fail("second prompt = %v", q)
	}
	evs := a.waitFor("two replies", func(evs []event) bool { return len(filter(evs, "reply")) == 2 })
	if got := texts(filter(evs, "prompt")); len(got) != 2 {
		a.fail("prompts = %q", got)
	}
	if got := texts(filter(evs, "reply")); got[0] != "hello" || got[1] != "second" {
		a.fail("replies = %q", got)
	}
	out := string(a.output())
	for _, want := range []string{"\x1b]0;⠂ fakeagent\x07", "\x1b]0;✳ fakeagent\x07", "esc to interrupt", "✻ Working…", "  ❯ second", "ress up to edit queued messages", "\x1b[?2004h"} {
		if !strings.Contains(out, want) {
			a.fail("output lacks %q", want)
		}
	}
	a.waitScreen("replies in transcript", func(vt vt10x.Terminal, lines []string) bool {
		s := strings.Join(lines, "\n")
		return strings.Contains(s, "● reply: hello") && strings.Contains(s, "● reply: second") &&
			strings.HasPrefix(lines[39], "  ? for shortcuts") && vt.Title() == "✳ fakeagent"
	})
}

func testPaste(t *testing.T, bin string) {
	a := startAgent(t, bin, "--busy", "100ms")
	ready(a)
	// Markers split across writes (and so, usually, across reads).
	for _, s := range []string{"\x1b[20", "0~a\n", "b\x1b[2", "01~"} {
		a.write(s)
	}
	a.waitScreen("pasted text in the input", func(_ vt10x.Terminal, lines []string) bool {
		for i, l := range lines[:len(lines)-1] {
			if strings.HasPrefix(l, "❯\u00a0a") && strings.HasPrefix(lines[i+1], "  b") {
				return true
			}
		}
		return false
	})
	a.write("\r")
	p := a.waitEvent("prompt", 1, nil)
	if p.str("text") != "a\nb" {
		a.fail("prompt = %q, want %q", p.str("text"), "a\nb")
	}
	evs := a.waitFor("reply", func(evs []event) bool { return len(filter(evs, "reply")) == 1 })
	if n := len(filter(evs, "prompt")); n != 1 {
		a.fail("%d prompts, want 1", n)
	}
}

func testModelPicker(t *testing.T, bin string) {
	a := startAgent(t, bin)
	ready(a)
	a.write("/model\r")
	a.waitEvent("command", 1, func(e event) bool { return e.str("text") == "/model" })
	a.waitScreen("picker", func(_ vt10x.Terminal, lines []string) bool {
		s := strings.Join(lines, "\n")
		return strings.Contains(s, "Select model") && strings.Contains(s, "❯ 1. Default (recommended)") &&
			strings.Contains(s, "  2. Opus") && strings.Contains(s, "  3. Sonnet") &&
			strings.Contains(s, "Enter to confirm · Esc to cancel")
	})
	a.write("\x1b[B") // Down
	a.write("\x1b")   // Esc alone
	pk := a.waitEvent("picker", 1, nil)
	if pk.str("how") != "esc" || pk.num("choice") != 2 {
		a.fail("picker = %v", pk)
	}
	// With an argument it is a plain command, not a picker.
	a.write("/model sonnet\r")
	a.waitEvent("command", 1, func(e event) bool { return e.str("text") == "/model sonnet" })
	a.waitScreen("set model line", func(_ vt10x.Terminal, lines []string) bool {
		return strings.Contains(strings.Join(lines, "\n"), "⎿ Set model to sonnet")
	})
	evs := a.events()
	if n := len(filter(evs, "prompt")); n != 0 {
		a.fail("%d prompt events, want 0", n)
	}
	if n := len(filter(evs, "picker")); n != 1 {
		a.fail("%d picker events, want 1", n)
	}
}

func testExitAfter(t *testing.T, bin string) {
	a := startAgent(t, bin, "--exit-after", "1", "--exit-code", "3", "--busy", "100ms")
	ready(a)
	a.write("hi\r")
	if code := a.waitExit(); code != 3 {
		a.fail("exit code %d, want 3", code)
	}
	ex := filter(a.events(), "exit")
	if len(ex) != 1 || ex[0].num("code") != 3 || ex[0].str("reason") != "exit-after" {
		a.fail("exit events %v", ex)
	}
	if !strings.Contains(string(a.output()), "\x1b[?2004l") {
		a.fail("bracketed paste not disabled at exit")
	}
}

func testExitCommand(t *testing.T, bin string) {
	a := startAgent(t, bin, "--exit-code=5")
	ready(a)
	a.write("/exit\r")
	if code := a.waitExit(); code != 5 {
		a.fail("exit code %d, want 5", code)
	}
	evs := a.events()
	if c := filter(evs, "command"); len(c) != 1 || c[0].str("text") != "/exit" {
		a.fail("command events %v", c)
	}
}

func testFastReturn(t *testing.T, bin string) {
	a := startAgent(t, bin, "--fast-return", "50ms", "--busy", "100ms")
	ready(a)
	a.write("x\r") // same read as the text: newline, not submit
	time.Sleep(100 * time.Millisecond)
	a.write("y")
	// The Enter must come in a read of its own, longer than --fast-return
	// after the "y": wait until the agent has drawn the "y" (it read it),
	// then let more than --fast-return pass.
	a.waitScreen("the y echoed", func(_ vt10x.Terminal, lines []string) bool {
		for _, l := range lines {
			if strings.TrimSpace(l) == "y" { // the draft's second line
				return true
			}
		}
		return false
	})
	time.Sleep(100 * time.Millisecond) // longer than --fast-return: submit
	a.write("\r")
	p := a.waitEvent("prompt", 1, nil)
	if p.str("text") != "x\ny" {
		a.fail("prompt = %q, want %q", p.str("text"), "x\ny")
	}
	evs := a.waitFor("reply", func(evs []event) bool { return len(filter(evs, "reply")) == 1 })
	if n := len(filter(evs, "prompt")); n != 1 {
		a.fail("%d prompts, want 1", n)
	}
}

func testResize(t *testing.T, bin string) {
	a := startAgent(t, bin, "--session-id", "abc", "--model=opus", "positional")
	ready(a)
	st := a.waitEvent("start", 1, nil)
	if st.num("cols") != 120 || st.num("rows") != 40 || st.num("pid") != a.cmd.Process.Pid {
		a.fail("start = %v", st)
	}
	args, _ := st["args"].([]any)
	want := []string{"--log", a.log, "--session-id", "abc", "--model=opus", "positional"}
	if len(args) != len(want) {
		a.fail("args = %v", args)
	}
	for i := range want {
		if args[i] != want[i] {
			a.fail("args = %v", args)
		}
	}
	if err := pty.Setsize(a.pty, &pty.Winsize{Rows: 30, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	a.waitEvent("resize", 1, func(e event) bool { return e.num("cols") == 100 && e.num("rows") == 30 })
}

func testScreen(t *testing.T, bin string) {
	a := startAgent(t, bin)
	ready(a)
	rule := strings.Repeat("─", 120)
	vt := a.waitScreen("idle prompt", func(vt vt10x.Terminal, lines []string) bool {
		return lines[36] == rule && lines[37] == "❯\u00a0" && lines[38] == rule &&
			lines[39] == "  ? for shortcuts" && vt.Title() == "✳ fakeagent"
	})
	if c := vt.Cell(2, 37); c.Char != ' ' || c.Mode&(1<<0) == 0 { // attrReverse
		t.Errorf("caret cell = %+v, want inverse space", c)
	}
	if cur := vt.Cursor(); cur.X != 2 || cur.Y != 37 {
		t.Errorf("cursor = %+v, want (2,37)", cur)
	}
	// Wide characters: the caret column is the true column (é=1, 日本=4).
	a.write("héllo 日本")
	vt = a.waitScreen("typed text", func(_ vt10x.Terminal, lines []string) bool {
		return strings.HasPrefix(lines[37], "❯\u00a0héllo 日")
	})
	if cur := vt.Cursor(); cur.X != 12 || cur.Y != 37 {
		t.Errorf("cursor = %+v, want (12,37)", cur)
	}
	if !strings.Contains(string(a.output()), "日\x1b[11G本\x1b[13G") {
		t.Errorf("no CHA after wide runes in %q", a.output())
	}
	// Esc with text shows the hint and keeps the text.
	a.write("\x1b")
	a.waitScreen("esc hint", func(_ vt10x.Terminal, lines []string) bool {
		return strings.Contains(lines[39], "Esc again to clear") && strings.HasPrefix(lines[37], "❯\u00a0héllo")
	})
	// Backspace, then Ctrl-U.
	a.write("\x7f\x7f\x7f")
	a.waitScreen("backspace", func(_ vt10x.Terminal, lines []string) bool {
		return lines[37] == "❯\u00a0héllo"
	})
	a.write("\x15")
	a.waitScreen("cleared", func(_ vt10x.Terminal, lines []string) bool { return lines[37] == "❯\u00a0" })
	// The slash menu replaces the footer; Esc closes it.
	a.write("/mo")
	a.waitScreen("slash menu", func(_ vt10x.Terminal, lines []string) bool { return strings.HasPrefix(lines[39], "  /model") })
	a.write("\x1b")
	a.waitScreen("menu closed", func(_ vt10x.Terminal, lines []string) bool {
		return strings.HasPrefix(lines[39], "  ? for shortcuts") && strings.HasPrefix(lines[37], "❯\u00a0/mo")
	})
	if n := len(filter(a.events(), "prompt")); n != 0 {
		t.Errorf("%d prompts, want 0", n)
	}
}

func testInterrupt(t *testing.T, bin string) {
	a := startAgent(t, bin, "--busy", "10s")
	ready(a)
	a.write("long task\r")
	a.waitEvent("prompt", 1, nil)
	a.write("follow-up\r")
	a.waitEvent("queued", 1, nil)
	a.write("\x1b")
	in := a.waitEvent("interrupt", 1, nil)
	if in.str("restored") != "long task\nfollow-up" {
		a.fail("interrupt = %v", in)
	}
	a.waitScreen("idle with restored text", func(vt vt10x.Terminal, lines []string) bool {
		return strings.HasPrefix(lines[39], "  ? for shortcuts") && vt.Title() == "✳ fakeagent" &&
			strings.HasPrefix(lines[36], "❯\u00a0long task") && strings.HasPrefix(lines[37], "  follow-up")
	})
	evs := a.events()
	if len(filter(evs, "reply")) != 0 || len(filter(evs, "prompt")) != 1 {
		a.fail("unexpected events")
	}
}

func testRecall(t *testing.T, bin string) {
	a := startAgent(t, bin, "--busy", "100ms")
	ready(a)
	a.write("first one\r")
	a.waitEvent("reply", 1, nil)
	a.write("second one\r")
	a.waitEvent("reply", 2, nil)
	a.write("\x1b[A")
	if e := a.waitEvent("recall", 1, nil); e.str("text") != "second one" {
		a.fail("first Up recalled %v", e)
	}
	a.write("\x1b[A")
	if e := a.waitEvent("recall", 2, nil); e.str("text") != "first one" {
		a.fail("second Up recalled %v", e)
	}
	a.waitScreen("recalled text in the input box", func(_ vt10x.Terminal, lines []string) bool {
		return strings.HasPrefix(lines[37], "❯\u00a0first one")
	})
	a.write("\x1bOB") // Down (SS3)
	if e := a.waitEvent("recall", 3, nil); e.str("text") != "second one" {
		a.fail("Down recalled %v", e)
	}
	a.write("\x1b[B")
	if e := a.waitEvent("recall", 4, nil); e.str("text") != "" {
		a.fail("Down past the newest gave %v", e)
	}
	// With typed text in the box Up does nothing.
	a.write("typed")
	a.write("\x1b[A")
	a.write("\r")
	if p := a.waitEvent("prompt", 3, nil); p.str("text") != "typed" {
		a.fail("prompt = %v", p)
	}
	if n := len(filter(a.events(), "recall")); n != 4 {
		a.fail("%d recall events, want 4", n)
	}
}

func testPermission(t *testing.T, bin string) {
	a := startAgent(t, bin, "--permission", "--busy", "100ms")
	ready(a)
	a.write("p1\r")
	a.waitEvent("prompt", 1, nil)
	a.waitScreen("dialog", func(_ vt10x.Terminal, lines []string) bool {
		s := strings.Join(lines, "\n")
		return strings.Contains(s, "Do you want to proceed?") && strings.Contains(s, "❯ 1. Yes") &&
			strings.Contains(s, "  2. No") && strings.Contains(s, "Esc to cancel")
	})
	a.write("2")
	a.waitEvent("permission", 1, func(e event) bool { return e.str("answer") == "no" })
	a.write("p2\r")
	a.waitEvent("prompt", 2, nil)
	a.write("\r")
	a.waitEvent("permission", 1, func(e event) bool { return e.str("answer") == "yes" })
	r := a.waitEvent("reply", 1, nil)
	if r.str("text") != "p2" {
		a.fail("reply = %v", r)
	}
}

func testStartup(t *testing.T, bin string) {
	a := startAgent(t, bin, "--startup", "500ms", "--busy", "100ms")
	a.waitScreen("banner", func(_ vt10x.Terminal, lines []string) bool { return lines[0] == "fakeagent starting…" })
	a.write("abc\r") // the text survives, the Enter is lost
	evs := a.waitFor("ready", func(evs []event) bool { return len(filter(evs, "ready")) == 1 })
	if len(filter(evs, "dropped")) != 1 {
		a.fail("want one dropped Enter before ready")
	}
	a.waitScreen("buffered text", func(_ vt10x.Terminal, lines []string) bool { return strings.HasPrefix(lines[37], "❯\u00a0abc") })
	a.write("\r")
	if p := a.waitEvent("prompt", 1, nil); p.str("text") != "abc" {
		a.fail("prompt = %v", p)
	}
}

func testCtrlC(t *testing.T, bin string) {
	a := startAgent(t, bin)
	ready(a)
	a.write("text\x03") // clears
	a.waitScreen("cleared", func(_ vt10x.Terminal, lines []string) bool { return lines[37] == "❯\u00a0" })
	a.write("\x03")
	a.waitScreen("hint", func(_ vt10x.Terminal, lines []string) bool {
		return strings.Contains(lines[39], "Press Ctrl-C again to exit")
	})
	a.write("\x03")
	if code := a.waitExit(); code != 0 {
		a.fail("exit code %d", code)
	}
	if ex := filter(a.events(), "exit"); len(ex) != 1 || ex[0].str("reason") != "ctrl-c" {
		a.fail("exit events %v", ex)
	}
}

func testSIGTERM(t *testing.T, bin string) {
	a := startAgent(t, bin)
	ready(a)
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := a.waitExit(); code != 128+int(syscall.SIGTERM) {
		a.fail("exit code %d", code)
	}
	ex := filter(a.events(), "exit")
	if len(ex) != 1 || ex[0].str("signal") != "SIGTERM" || ex[0].str("reason") != "signal" {
		a.fail("exit events %v", ex)
	}
}

func testHangup(t *testing.T, bin string) {
	a := startAgent(t, bin)
	ready(a)
	_ = a.pty.Close() // like office closing the session
	select {
	case <-a.done:
	case <-time.After(waitTimeout):
		a.fail("no exit after hangup")
	}
	ex := filter(a.events(), "exit")
	if len(ex) != 1 || ex[0].str("signal") != "SIGHUP" || ex[0].num("code") != 129 {
		a.fail("exit events %v", ex)
	}
}

// TestParserSplit feeds sequences one byte per read.
func TestParserSplit(t *testing.T) {
	var p parser
	now := time.Now()
	var keys []key
	for _, c := range []byte("h\x1b[200~a\r\nb\x1b[20x\x1b[201~\x1b[A\xe6\x97\xa5\r") {
		keys = append(keys, p.feed([]byte{c}, now)...)
	}
	var got []string
	for _, k := range keys {
		switch k.kind {
		case keyRune:
			got = append(got, "rune:"+string(k.r))
		case keyPaste:
			got = append(got, "paste:"+k.text)
		case keyUp:
			got = append(got, "up")
		case keyEnter:
			got = append(got, "enter")
		default:
			got = append(got, "other")
		}
	}
	want := []string{"rune:h", "paste:a\nb[20x", "up", "rune:日", "enter"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
	// A lone ESC needs the timeout; ESC ESC gives one Esc at once.
	if k := p.feed([]byte("\x1b"), now); len(k) != 0 || !p.pending() {
		t.Fatalf("lone ESC: %v pending=%v", k, p.pending())
	}
	if k := p.timeout(now); len(k) != 1 || k[0].kind != keyEsc {
		t.Fatalf("timeout: %v", k)
	}
	// Enter after text in the same read is flagged (for --fast-return).
	k := p.feed([]byte("x\r"), now)
	if len(k) != 2 || !k[1].afterPrintable {
		t.Fatalf("x\\r: %+v", k)
	}
}

// TestLayoutSizes draws every state at tiny and odd sizes: no panics, and
// every frame has exactly one row per screen row.
func TestLayoutSizes(t *testing.T) {
	states := map[string]func(a *app){
		"startup":    func(a *app) { a.starting = true },
		"idle":       func(a *app) {},
		"long input": func(a *app) { a.input = strings.Repeat("日本 abc\n", 30) + strings.Repeat("x", 300) },
		"busy queue": func(a *app) {
			a.busy = &turn{text: "t"}
			a.queue = []string{"q1", "q2\nmore"}
		},
		"menu":       func(a *app) { a.input = "/" },
		"picker":     func(a *app) { a.dialog = &dialog{kind: dialogPicker, sel: 2} },
		"permission": func(a *app) { a.dialog = &dialog{kind: dialogPermission} },
		"hints":      func(a *app) { a.input = "x"; a.escHint = true; a.ctrlCHint = true },
	}
	for name, set := range states {
		for _, size := range [][2]int{{1, 1}, {2, 2}, {3, 5}, {10, 3}, {40, 10}, {120, 40}} {
			var out bytes.Buffer
			a := &app{out: &out, log: &eventLog{}, model: modelOptions[0], cols: size[0], rows: size[1],
				transcript: []string{strings.Repeat("wide 🎉 ", 40), ""}}
			set(a)
			screen, cr, cc := a.layout()
			if len(screen) != size[1] {
				t.Fatalf("%s %v: %d rows", name, size, len(screen))
			}
			if cr < 0 || cr > size[1] || cc < 0 {
				t.Fatalf("%s %v: caret (%d,%d)", name, size, cr, cc)
			}
			a.draw(true)
			if out.Len() == 0 {
				t.Fatalf("%s %v: nothing drawn", name, size)
			}
		}
	}
}
