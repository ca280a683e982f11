package realcli

// The recorder of the replay fixtures: with OFFICE_REALCLI_RECORD=1,
// TestRecordFixtures runs each pinned CLI in a bare PTY (no office) against
// the fake model server, walks it through its key states and writes the raw
// PTY stream to testdata/CLI.raw with the byte offset of each state in
// testdata/CLI.json. replay_test.go feeds those bytes through pool's screen
// and checks each profile's rules still read them right.
//
//	OFFICE_REALCLI_RECORD=1 go test -count=1 -run TestRecordFixtures ./test/realcli/
//
// OFFICE_REALCLI_DUMP=DIR also writes the model requests there (to see a
// CLI's tools and prompt layout after an update).

import (
	"encoding/json"
	"fmt"
	"office/automation"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"office/configs"
	"office/pool"
	"office/test/fakemodel"
)

// fixtureState is one recorded state: the stream prefix [0, Offset) shows it.
type fixtureState struct {
	Name   string `json:"name"`
	Offset int    `json:"offset"`
	// Status is what the profile's screen rules must read ("idle", "busy",
	// "waiting"); "not-waiting" accepts idle or busy.
	Status string `json:"status"`
	// Prompt, when set, must be contained in the prompt row; PromptEmpty:
	// the prompt row must be found and empty.
	Prompt      string `json:"prompt,omitempty"`
	PromptEmpty bool   `json:"prompt_empty,omitempty"`
	// Ready: every ready marker is on screen.
	Ready bool `json:"ready,omitempty"`
}

// fixtureIndex is testdata/CLI.json.
type fixtureIndex struct {
	CLI     string         `json:"cli"`
	Version string         `json:"version"`
	Cols    int            `json:"cols"`
	Rows    int            `json:"rows"`
	States  []fixtureState `json:"states"`
}

// recorder is one CLI in a PTY with its raw stream kept.
type recorder struct {
	t      *testing.T
	cmd    *exec.Cmd
	f      *os.File
	screen *pool.Screen
	mu     sync.Mutex
	raw    []byte
	done   chan struct{}
}

func startRecorder(t *testing.T, argv, env []string, dir string) *recorder {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{t: t, cmd: cmd, f: f, done: make(chan struct{})}
	r.screen = pool.NewScreen(120, 40, func(p []byte) {
		b := append([]byte(nil), p...)
		go f.Write(b)
	})
	go func() {
		defer close(r.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				r.mu.Lock()
				r.raw = append(r.raw, buf[:n]...)
				r.screen.Feed(buf[:n])
				r.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return r
}

func (r *recorder) stop() {
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGHUP)
	select {
	case <-r.done:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	}
	r.cmd.Wait()
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	r.f.Close()
}

func (r *recorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.screen.Text()
}

func (r *recorder) offset() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.raw)
}

func (r *recorder) write(s string) {
	if _, err := r.f.Write([]byte(s)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *recorder) waitText(d time.Duration, what string, cond func(string) bool) {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for !cond(r.text()) {
		if time.Now().After(deadline) {
			r.t.Fatalf("recorder: timed out waiting for %s\n%s", what, r.text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRecordFixtures(t *testing.T) {
	if os.Getenv("OFFICE_REALCLI_RECORD") == "" {
		t.Skip("set OFFICE_REALCLI_RECORD=1 to re-record testdata/*.raw from the pinned CLIs")
	}
	profiles, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, cli := range []string{"claude", "codex", "gemini"} {
		t.Run(cli, func(t *testing.T) { recordCLI(t, cli, profiles[cli]) })
	}
}

func recordCLI(t *testing.T, cli string, p configs.Profile) {
	bin := needCLI(t, cli)
	srv, err := fakemodel.New(fakemodel.Options{Delay: 500 * time.Millisecond, Reply: "Fake reply done."})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sb, err := NewSandbox(t.TempDir(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{bin}, p.Args...)
	if cli == "codex" {
		// Ask before any command that is not known to be safe, so the
		// fixture has a command approval dialog.
		argv = append(argv, "-a", "on-request", "-s", "read-only")
	}
	env := sb.HostEnv()
	for k, v := range p.Env {
		env = append(env, k+"="+v)
	}
	r := startRecorder(t, argv, env, sb.Project)
	defer r.stop()
	idx := fixtureIndex{CLI: cli, Version: map[string]string{"claude": ClaudeVersion, "codex": CodexVersion, "gemini": GeminiVersion}[cli], Cols: 120, Rows: 40}
	mark := func(s fixtureState) {
		s.Offset = r.offset()
		idx.States = append(idx.States, s)
		t.Logf("%s: %s at %d", cli, s.Name, s.Offset)
	}
	allMarkers := func(txt string) bool {
		for _, m := range p.ReadyMarkers {
			if !automation.MarkerShown(automation.TextRows(txt), m) {
				return false
			}
		}
		return true
	}
	// ready
	r.waitText(40*time.Second, "ready markers", allMarkers)
	if cli == "gemini" {
		r.waitText(20*time.Second, "the auth banner", func(s string) bool { return strings.Contains(s, "Authenticated with") })
	}
	time.Sleep(1500 * time.Millisecond)
	mark(fixtureState{Name: "ready", Status: "idle", PromptEmpty: true, Ready: true})
	// typing
	r.write("hello fixture")
	r.waitText(5*time.Second, "typed text", func(s string) bool { return strings.Contains(s, "hello fixture") })
	time.Sleep(500 * time.Millisecond)
	mark(fixtureState{Name: "typing", Status: "idle", Prompt: "hello fixture"})
	r.write("\x15") // Ctrl-U: the recorder clears its own text
	r.waitText(5*time.Second, "cleared prompt", func(s string) bool { return !strings.Contains(s, "hello fixture") })
	time.Sleep(500 * time.Millisecond)
	// picker
	r.write("/model")
	time.Sleep(400 * time.Millisecond)
	r.write("\r")
	r.waitText(10*time.Second, "the model picker", func(s string) bool {
		return strings.Contains(strings.ToLower(s), "select model") || strings.Contains(s, "Esc to") || strings.Contains(s, "esc back")
	})
	time.Sleep(800 * time.Millisecond)
	mark(fixtureState{Name: "picker", Status: "not-waiting"})
	r.write("\x1b")
	time.Sleep(1500 * time.Millisecond)
	// busy
	srv.Hold()
	r.write("please work")
	time.Sleep(400 * time.Millisecond)
	if cli == "gemini" {
		time.Sleep(400 * time.Millisecond)
	}
	r.write("\r")
	deadline := time.Now().Add(15 * time.Second)
	for len(srv.Prompts()) == 0 || !strings.Contains(srv.Prompts()[len(srv.Prompts())-1], "please work") {
		if time.Now().After(deadline) {
			t.Fatalf("the model never got the prompt\n%s", r.text())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)
	mark(fixtureState{Name: "busy", Status: "busy"})
	srv.Release()
	if d := os.Getenv("OFFICE_REALCLI_DUMP"); d != "" {
		for i, q := range srv.Turns() {
			os.WriteFile(filepath.Join(d, fmt.Sprintf("%s-request-%d.json", cli, i)), q.Body, 0o644)
		}
	}
	r.waitText(15*time.Second, "the reply", func(s string) bool { return strings.Contains(s, "Fake reply done") })
	time.Sleep(2 * time.Second)
	mark(fixtureState{Name: "done", Status: "idle", PromptEmpty: true})
	// waiting: a tool call that needs the person's permission
	srv.ToolCall("touch office-fixture.txt")
	r.write("make the file")
	time.Sleep(800 * time.Millisecond)
	r.write("\r")
	r.waitText(20*time.Second, "a permission dialog", func(s string) bool {
		return strings.Contains(s, "touch office-fixture.txt") && (containsAny(s, p.Waiting) || strings.Contains(s, "Yes"))
	})
	time.Sleep(1500 * time.Millisecond)
	mark(fixtureState{Name: "waiting", Status: "waiting"})
	t.Logf("%s waiting screen:\n%s", cli, r.text())

	dir := filepath.Join("testdata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	raw := append([]byte(nil), r.raw...)
	r.mu.Unlock()
	if err := os.WriteFile(filepath.Join(dir, cli+".raw"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(idx, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, cli+".json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "recorded %s: %d bytes, %d states\n", cli, len(raw), len(idx.States))
}

func containsAny(s string, pats []string) bool {
	for _, p := range pats {
		if p != "" && strings.Contains(s, p) {
			return true
		}
	}
	return false
}
