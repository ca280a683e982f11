package pool_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/automation"
	"office/pool"

	"office/test/testbin"
)

// fakeAgentBin is the fake agent TUI built once for this package's tests.
var fakeAgentBin string

func TestMain(m *testing.M) {
	testbin.Main(func(bins map[string]string) int {
		fakeAgentBin = bins["fakeagent"]
		return m.Run()
	}, "office/test/fakeagent")
}

// claudeLike is how the fake agent's screen reads: it mimics Claude Code.
var claudeLike = pool.Behavior{
	Prompt: pool.PromptSpec{Marker: "❯", Column: 0, BetweenRules: true},
	Status: automation.StatusRules{
		TitleBraille: true, TitleIdle: "✳",
		Busy: []string{"esc to interrupt"}, Idle: []string{"? for shortcuts"},
		Waiting: []string{"Do you want to proceed?"},
	},
	ReadyMarkers: []string{"? for shortcuts"},
	ReadySettle:  automation.ClaudeReadySettle,
}

func testEnv() []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "TERM=xterm-256color", "LANG=C.UTF-8", "HOME=" + os.TempDir()}
}

// startFake starts the fake agent with args and returns it with its log path.
func startFake(t *testing.T, args ...string) (*pool.Terminal, string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "agent.jsonl")
	argv := append([]string{fakeAgentBin, "--log", logPath}, args...)
	term, err := pool.Start(pool.Options{Name: "fake", Argv: argv, Env: testEnv(), Cols: 120, Rows: 40, Behavior: claudeLike})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	waitFor(t, 15*time.Second, "fake agent ready and idle", func() bool {
		return term.Ready(time.Now()) && term.Status() == automation.StatusIdle
	})
	return term, logPath
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// logLine is one line of the fake agent's JSON log.
type logLine struct {
	Event string `json:"event"`
	Text  string `json:"text"`
	How   string `json:"how"`
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
}

func readLog(t *testing.T, path string) []logLine {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("bad log line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func prompts(t *testing.T, path string) []string {
	var out []string
	for _, l := range readLog(t, path) {
		if l.Event == "prompt" {
			out = append(out, l.Text)
		}
	}
	return out
}

func input(t *testing.T, term *pool.Terminal, s string) {
	t.Helper()
	if err := term.Input([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

func promptIs(term *pool.Terminal, want string) func() bool {
	return func() bool {
		got, ok := term.Prompt()
		return ok && got == want
	}
}

func TestTypedDraftBadgeCtrlUAndSubmit(t *testing.T) {
	t.Parallel()
	term, logPath := startFake(t)
	input(t, term, "hello")
	if !term.HasDraft() {
		t.Fatal("typed hello: no draft badge")
	}
	if b := term.Block(time.Now()); b != automation.BlockDraft {
		t.Fatalf("typed hello: block %v, want your draft", b)
	}
	waitFor(t, 5*time.Second, "hello on the prompt row", promptIs(term, "hello"))

	input(t, term, "\x15") // Ctrl-U
	if term.HasDraft() {
		t.Fatal("Ctrl-U did not clear the draft")
	}
	waitFor(t, 5*time.Second, "empty prompt row after Ctrl-U", promptIs(term, ""))

	input(t, term, "hello")
	input(t, term, "\r")
	if term.HasDraft() {
		t.Fatal("draft still set after Enter")
	}
	waitFor(t, 5*time.Second, "the prompt in the agent's log", func() bool { return len(prompts(t, logPath)) == 1 })
	if got := prompts(t, logPath); got[0] != "hello" {
		t.Fatalf("agent received %q, want exactly %q", got[0], "hello")
	}
	waitFor(t, 5*time.Second, "busy after submit", func() bool { return term.Status() == automation.StatusBusy })
	waitFor(t, 10*time.Second, "idle after the turn", func() bool { return term.Status() == automation.StatusIdle })
}

func TestBareModelLatchesPickerAndEscReleasesWithSettling(t *testing.T) {
	t.Parallel()
	term, logPath := startFake(t)
	input(t, term, "/model")
	input(t, term, "\r")
	if b := term.Block(time.Now()); b != automation.BlockPicker {
		t.Fatalf("after /model + Enter: block %v, want picker open", b)
	}
	waitFor(t, 5*time.Second, "the model picker on screen", func() bool { return strings.Contains(term.Text(), "Select model") })
	// The picker stays latched however long the screen shows it (30 min window).
	if b := term.Block(time.Now().Add(10 * time.Minute)); b != automation.BlockPicker {
		t.Fatalf("picker block 10 min later: %v", b)
	}
	before := time.Now()
	input(t, term, "\x1b")
	after := time.Now()
	if b := term.Block(before.Add(automation.PickerCloseSettle - time.Millisecond)); b != automation.BlockSettling {
		t.Fatalf("just after Esc: block %v, want settling", b)
	}
	if b := term.Block(after.Add(automation.PickerCloseSettle)); b != automation.BlockNone {
		p, ok := term.Prompt()
		t.Fatalf("500 ms after Esc: block %v, want none (prompt %q %v, state %+v)", b, p, ok, term.AutomationState())
	}
	waitFor(t, 5*time.Second, "picker closed by Esc in the agent's log", func() bool {
		for _, l := range readLog(t, logPath) {
			if l.Event == "picker" && l.How == "esc" {
				return true
			}
		}
		return false
	})
	if p := prompts(t, logPath); len(p) != 0 {
		t.Fatalf("/model reached the agent as a prompt: %q", p)
	}
}

func TestPastedMultiLineTextIsADraftAndOnePrompt(t *testing.T) {
	t.Parallel()
	term, logPath := startFake(t)
	input(t, term, "\x1b[200~line one\nline two\x1b[201~")
	if !term.HasDraft() {
		t.Fatal("pasted text is not a draft")
	}
	waitFor(t, 5*time.Second, "pasted text on screen", func() bool { return strings.Contains(term.Text(), "line two") })
	if p := prompts(t, logPath); len(p) != 0 {
		t.Fatalf("the paste's newline submitted: %q", p)
	}
	input(t, term, "\r")
	waitFor(t, 5*time.Second, "the pasted prompt", func() bool { return len(prompts(t, logPath)) == 1 })
	if got := prompts(t, logPath)[0]; got != "line one\nline two" {
		t.Fatalf("agent received %q", got)
	}
}

func TestWriteToExitedAgentFails(t *testing.T) {
	t.Parallel()
	term, err := pool.Start(pool.Options{Name: "short", Argv: []string{"sh", "-c", "exit 3"}, Env: testEnv()})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	select {
	case <-term.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("sh did not exit")
	}
	if exited, code := term.Exited(); !exited || code != 3 {
		t.Fatalf("Exited() = %v, %d; want true, 3", exited, code)
	}
	if err := term.Write(context.Background(), []byte("hello\r")); !errors.Is(err, pool.ErrExited) {
		t.Fatalf("Write to a dead PTY: %v, want ErrExited", err)
	}
	if err := term.Input([]byte("x")); !errors.Is(err, pool.ErrExited) {
		t.Fatalf("Input to a dead PTY: %v, want ErrExited", err)
	}
	if b := term.Block(time.Now()); b != automation.BlockExited {
		t.Fatalf("block %v, want exited", b)
	}
	term.Close()
	if err := term.Write(context.Background(), []byte("x")); !errors.Is(err, pool.ErrClosed) {
		t.Fatalf("Write after Close: %v, want ErrClosed", err)
	}
}

func TestStartErrorNamesAgent(t *testing.T) {
	t.Parallel()
	_, err := pool.Start(pool.Options{Name: "ghost", Argv: []string{"no-such-agent-cli"}, Env: testEnv()})
	var se *pool.SpawnError
	if !errors.As(err, &se) || se.Agent != "ghost" || !strings.Contains(err.Error(), "no-such-agent-cli") {
		t.Fatalf("err = %v, want a SpawnError naming ghost and the program", err)
	}
}

func TestChineseAndEmojiLandAtTrueColumns(t *testing.T) {
	t.Parallel()
	term, _ := startFake(t)
	input(t, term, "中文X🎉y")
	waitFor(t, 5*time.Second, "CJK echo", promptIs(term, "中文X🎉y"))
	var snap pool.Snapshot
	term.Snapshot(&snap)
	row := -1
	for y := 0; y < snap.Rows; y++ {
		if snap.Cell(0, y).Rune == '❯' && strings.Contains(snap.RowText(y), "中文") {
			row = y
		}
	}
	if row < 0 {
		t.Fatalf("prompt row not found:\n%s", snap.Text())
	}
	// ❯ at 0, NBSP at 1, then 中 (2-3) 文 (4-5) X (6) 🎉 (7-8) y (9).
	want := []struct {
		x     int
		r     rune
		width uint8
	}{{2, '中', 2}, {4, '文', 2}, {6, 'X', 1}, {7, '🎉', 2}, {9, 'y', 1}}
	for _, w := range want {
		c := snap.Cell(w.x, row)
		if c.Rune != w.r || c.Width != w.width {
			t.Errorf("cell %d: %q width %d, want %q width %d (row %q)", w.x, c.Rune, c.Width, w.r, w.width, snap.RowText(row))
		}
	}
}

func TestAbsolutelyPositionedChinese(t *testing.T) {
	t.Parallel()
	term, err := pool.Start(pool.Options{Name: "printf", Env: testEnv(), Cols: 40, Rows: 5,
		Argv: []string{"sh", "-c", `printf '\033[2J\033[1;10H中文\033[1;14HX'; sleep 30`}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	var snap pool.Snapshot
	waitFor(t, 5*time.Second, "X on screen", func() bool {
		term.Snapshot(&snap)
		return snap.Cell(13, 0).Rune == 'X'
	})
	if c := snap.Cell(9, 0); c.Rune != '中' || c.Width != 2 {
		t.Fatalf("col 9: %q w%d", c.Rune, c.Width)
	}
	if c := snap.Cell(11, 0); c.Rune != '文' || c.Width != 2 {
		t.Fatalf("col 11: %q w%d", c.Rune, c.Width)
	}
}

func TestSplitUTF8ReadLosesNothing(t *testing.T) {
	t.Parallel()
	// The child writes the bytes of ╭ and 中 in separate writes, so the PTY
	// reads end inside each rune.
	script := `printf 'a\342'; sleep 0.2; printf '\225\255b\344'; sleep 0.2; printf '\270'; sleep 0.2; printf '\255c'; sleep 30`
	term, err := pool.Start(pool.Options{Name: "split", Env: testEnv(), Cols: 20, Rows: 3, Argv: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 5*time.Second, "all runes on screen", func() bool { return strings.HasPrefix(term.Text(), "a╭b中c") })
}

func TestResizeReachesTheAgent(t *testing.T) {
	t.Parallel()
	term, logPath := startFake(t)
	if err := term.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the agent to see 100x30", func() bool {
		for _, l := range readLog(t, logPath) {
			if l.Event == "resize" && l.Cols == 100 && l.Rows == 30 {
				return true
			}
		}
		return false
	})
	if c, r := term.Size(); c != 100 || r != 30 {
		t.Fatalf("screen size %dx%d", c, r)
	}
}

func TestCloseTakesTheWholeProcessGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// The shell ignores HUP, so Close must escalate to SIGKILL; its
	// background child must die with the group.
	script := fmt.Sprintf(`trap '' HUP; sleep 100 & echo $! > %s; wait`, pidFile)
	term, err := pool.Start(pool.Options{Name: "group", Env: testEnv(), Argv: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	var childPid int
	waitFor(t, 5*time.Second, "child pid", func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		_, err = fmt.Sscan(string(b), &childPid)
		return err == nil && childPid > 0
	})
	start := time.Now()
	term.Close()
	if d := time.Since(start); d < 2*time.Second { // hangup_grace
		t.Fatalf("Close returned after %v, before the hang-up grace: HUP was not ignored?", d)
	}
	for _, pid := range []int{term.Pid(), childPid} {
		// SIGKILL is sent; the kernel finishes the process shortly after. A
		// zombie left for init to reap counts as gone.
		waitFor(t, 2*time.Second, fmt.Sprintf("pid %d gone", pid), func() bool {
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				return true
			}
			st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			return strings.Contains(string(st), ") Z")
		})
	}
}

func TestWriteDeadlineBoundsAWriteIntoAHungChild(t *testing.T) {
	t.Parallel()
	// The child puts its terminal in raw mode and never reads: writes block
	// once the PTY's input buffer is full.
	term, err := pool.Start(pool.Options{Name: "hung", Env: testEnv(),
		Argv: []string{"sh", "-c", "stty raw -echo; echo ready; exec sleep 60"}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 5*time.Second, "raw mode", func() bool { return strings.Contains(term.Text(), "ready") })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = term.Write(ctx, make([]byte, 256*1024))
	if !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Write into a hung child: %v, want a deadline error", err)
	}
	// The writer is free again: a write with time left still completes or
	// times out, never hangs the terminal (Close below must return).
}

func TestTurnEventsAndTheBusyHoldAfterThePersonsEnter(t *testing.T) {
	t.Parallel()
	events := make(chan pool.EventKind, 64)
	logPath := filepath.Join(t.TempDir(), "agent.jsonl")
	term, err := pool.Start(pool.Options{Name: "fake", Argv: []string{fakeAgentBin, "--log", logPath, "--busy", "300ms"},
		Env: testEnv(), Cols: 120, Rows: 40, Behavior: claudeLike,
		Notify: func(e pool.Event) {
			if e.Kind == pool.EventTurnStart || e.Kind == pool.EventTurnEnd {
				events <- e.Kind
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 15*time.Second, "idle", func() bool { return term.Ready(time.Now()) && term.Status() == automation.StatusIdle })
	input(t, term, "do it\r")
	// From the person's Enter on, the agent reads busy, whatever its screen
	// has drawn yet.
	if st, sig := term.StatusSignal(); st != automation.StatusBusy {
		t.Fatalf("right after the person's Enter: %v (%s), want busy", st, sig)
	}
	for _, want := range []pool.EventKind{pool.EventTurnStart, pool.EventTurnEnd} {
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("event %v, want %v", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event %v", want)
		}
	}
	waitFor(t, time.Second, "idle after the turn", func() bool { return term.Status() == automation.StatusIdle })
}
