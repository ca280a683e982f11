package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"office/configs"
	"office/engine"
	"office/inbox"
	"office/queue"

	"office/test/testbin"
)

// fakeAgentBin is the fake agent TUI, built once.
var fakeAgentBin string

// shortParallel is how many of the engine's parallel tests run at once in
// -short mode, the quick loop (docs/development.md): they mostly wait on
// fake agents' PTYs, sockets and real timers, so one per core (testing's
// default) leaves the cores idle; on 2 cores this takes `go test -short
// ./engine/` from about 80 s to about 25 s. The full run (CI, -race) keeps
// the default, whose timing the slower tests were written against.
const shortParallel = 8

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		testbin.Parallel(shortParallel)
	}
	testbin.Main(func(bins map[string]string) int {
		fakeAgentBin = bins["fakeagent"]
		return m.Run()
	}, "office/test/fakeagent")
}

// fakeConfig is an office of n fake agents (a0, a1, ...) logging under dir.
func fakeConfig(t testing.TB, dir string, n int, args ...string) *configs.Config {
	t.Helper()
	var b strings.Builder
	b.WriteString("brief = false\n\n") // the tests count prompts
	for i := 0; i < n; i++ {
		argv := append([]string{fakeAgentBin, "--log", filepath.Join(dir, fmt.Sprintf("a%d.jsonl", i))}, args...)
		fmt.Fprintf(&b, "[[agent]]\nname = \"a%d\"\nprofile = \"claude\"\ncommand = %s\n\n", i, tomlList(argv))
	}
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func tomlList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func hostEnv() []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + os.TempDir(), "LANG=C.UTF-8", "SECRET_TOKEN=do-not-leak"}
}

// storeBeforeOpen makes a new state directory (in dir) and its store with
// agents, as an office left it before a later open there: a test writes the
// state it wants and closes s before it opens the office.
func storeBeforeOpen(t *testing.T, agents ...string) (dir, state string, s *queue.Store) {
	t.Helper()
	dir = t.TempDir()
	state = filepath.Join(dir, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := queue.Open(filepath.Join(state, engine.StoreFile), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureAgents(context.Background(), agents); err != nil {
		t.Fatal(err)
	}
	return dir, state, s
}

func open(t testing.TB, c *configs.Config, state string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestOneEnginePerStateDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	c := fakeConfig(t, dir, 1)
	e := open(t, c, state)
	if !engine.Running(state) {
		t.Fatal("Running() is false while an engine holds the lock")
	}
	_, err := engine.Open(engine.Options{Config: c, StateDir: state})
	var le *engine.LockedError
	if !errors.As(err, &le) || le.Pid != os.Getpid() {
		t.Fatalf("second Open: %v, want LockedError naming pid %d", err, os.Getpid())
	}
	for path, want := range map[string]os.FileMode{state: 0o700, filepath.Join(state, engine.ClientSocketFile): 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
	e.Close()
	if engine.Running(state) {
		t.Fatal("Running() is true after Close")
	}
	if _, err := os.Stat(filepath.Join(state, engine.ClientSocketFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
	e2 := open(t, c, state) // the lock is free again
	e2.Close()
}

func TestSocketAnswersStatusAndRefusesUnknownCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	open(t, fakeConfig(t, dir, 2), state)
	ctx := context.Background()
	var st []engine.AgentStatus
	if err := engine.Call(ctx, state, engine.Request{Op: "status"}, &st); err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || st[0].Name != "a0" || st[1].Name != "a1" || st[0].Pid == 0 {
		t.Fatalf("status = %+v", st)
	}
	if err := engine.Call(ctx, state, engine.Request{Op: "no-such-call"}, nil); err == nil || !strings.Contains(err.Error(), "unknown request") {
		t.Fatalf("unknown call: %v", err)
	}
	if err := engine.Call(ctx, filepath.Join(dir, "elsewhere"), engine.Request{Op: "status"}, nil); !errors.Is(err, engine.ErrNoEngine) {
		t.Fatalf("call with no engine: %v, want ErrNoEngine", err)
	}
}

func TestAgentEnvironmentIsBuiltNotInherited(t *testing.T) {
	t.Parallel()
	p := configs.Profile{Name: "claude", Env: map[string]string{"DISABLE_AUTOUPDATER": "1"}, PassEnv: []string{"ANTHROPIC_API_KEY"}}
	a := configs.Agent{Name: "x", Env: map[string]string{"MY_VAR": "mine"}}
	host := append(hostEnv(), "ANTHROPIC_API_KEY=k", "TERM=screen")
	env := engine.AgentEnv(host, p, a, "/state", "/opt/office/bin/office")
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	want := map[string]string{
		"OFFICE_AGENT": "x", "OFFICE_STATE": "/state", "OFFICE_BIN": "/opt/office/bin/office",
		"DISABLE_AUTOUPDATER": "1", "ANTHROPIC_API_KEY": "k", "MY_VAR": "mine", "TERM": "xterm-256color",
		"PATH": "/opt/office/bin:/usr/local/bin:/usr/bin:/bin",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, leaked := got["SECRET_TOKEN"]; leaked {
		t.Error("a host variable outside the allowlist reached the agent")
	}
}

// SSH_AUTH_SOCK reaches an agent unless the office file drops it, for the
// office or for one agent.
func TestSSHAgentSocketKeptUnlessTheConfigDropsIt(t *testing.T) {
	t.Parallel()
	src := `ssh_agent = false
[[agent]]
name = "plain"
command = ["cat"]
[[agent]]
name = "pusher"
command = ["cat"]
ssh_agent = true
`
	c, err := configs.Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	host := append(hostEnv(), "SSH_AUTH_SOCK=/run/user/1/ssh.sock")
	has := func(a configs.Agent) bool {
		ssh := c.SSHAgentFor(a)
		a.SSHAgent = &ssh
		for _, kv := range engine.AgentEnv(host, configs.Profile{}, a, "/state", "") {
			if kv == "SSH_AUTH_SOCK=/run/user/1/ssh.sock" {
				return true
			}
		}
		return false
	}
	if has(c.Agents[0]) {
		t.Error("ssh_agent = false for the office: SSH_AUTH_SOCK still reached the agent")
	}
	if !has(c.Agents[1]) {
		t.Error("ssh_agent = true for the agent: SSH_AUTH_SOCK did not reach it")
	}
	if a := (configs.Agent{Name: "x"}); !strings.Contains(strings.Join(engine.AgentEnv(host, configs.Profile{}, a, "/s", ""), "\n"), "SSH_AUTH_SOCK=") {
		t.Error("by default SSH_AUTH_SOCK must reach the agent")
	}
}

func TestAgentThatCannotStartHoldsItsMessagesAsExited(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	c, err := configs.Parse("office.toml", []byte("[[agent]]\nname = \"ghost\"\ncommand = [\"/nonexistent/agent-cli\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := open(t, c, state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	a, ok := e.Agent("ghost")
	if !ok || a.Term != nil || a.SpawnErr == nil || !strings.Contains(a.SpawnErr.Error(), "agent-cli") {
		t.Fatalf("agent %+v: want a recorded spawn error naming the program", a)
	}
	id, err := e.Store().Enqueue(ctx, "ghost", "hello", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 10*time.Second, "held: exited", func() bool { return e.Holds()["ghost"] == "exited" })
	m, err := e.Store().Get(ctx, id)
	if err != nil || m.Attempts != 0 {
		t.Fatalf("message %+v (%v): want it queued with no attempt", m, err)
	}
}

// A stop leaves deliveries in flight. One that never began writing is
// provably not typed and goes again on its own; one whose Enter was being
// written, and that the CLI's records do not show, is set aside with a
// notice to the person, never retyped on its own and never holding the rest
// of the queue.
func TestDeliveryInterruptedByAStopIsSettledFromEvidence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The state a crash between stamping attempts and recording their
	// outcome leaves behind.
	dir, state, s := storeBeforeOpen(t, "a0")
	typed, _ := s.Enqueue(ctx, "a0", "was being typed", queue.EnqueueOptions{})
	stamped, _ := s.Enqueue(ctx, "a0", "stamped only", queue.EnqueueOptions{})
	behind, _ := s.Enqueue(ctx, "a0", "queued behind", queue.EnqueueOptions{})
	for _, id := range []int64{typed, stamped} {
		if _, err := s.Attempt(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Writing(ctx, typed); err != nil {
		t.Fatal(err)
	}
	if err := s.Entering(ctx, typed); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// A Claude-like agent whose records (its hooks, no transcript) show
	// nothing of what was typed before the stop; they confirm what is
	// typed now (a CLI that keeps records confirms every delivery).
	e := open(t, fakeConfig(t, dir, 1, "--busy", "10ms", "--hook-evidence"), state)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go e.Run(rctx)
	log := filepath.Join(dir, "a0.jsonl")
	waitCond(t, 30*time.Second, "the rest of the queue delivered", func() bool { return len(promptsIn(t, log)) == 2 })
	if p := promptsIn(t, log); p[0] != "stamped only" || p[1] != "queued behind" {
		t.Fatalf("prompts %q", p)
	}
	m, err := e.Store().Get(ctx, typed)
	if err != nil || !m.SetAside || !m.Interrupted || m.Evidence == "" {
		t.Fatalf("the typed message: %+v, %v; want set aside with its evidence", m, err)
	}
	items, err := e.Inbox().Items(ctx, inbox.Person)
	if err != nil {
		t.Fatal(err)
	}
	noticed := false
	for _, it := range items {
		noticed = noticed || strings.Contains(it.Body, fmt.Sprintf("Message %d for a0 was set aside", typed))
	}
	if !noticed {
		t.Fatalf("no notice to the person names the set-aside message: %+v", items)
	}
	_ = behind
	// The person decides: send now.
	if err := e.Store().Release(ctx, typed); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "delivered once after release", func() bool { return len(promptsIn(t, log)) == 3 })
	if p := promptsIn(t, log); p[2] != "was being typed" {
		t.Fatalf("prompts %q", p)
	}
}

func waitCond(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func promptsIn(t *testing.T, logPath string) []string {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		var l struct{ Event, Text string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Event == "prompt" {
			out = append(out, l.Text)
		}
	}
	return out
}

func TestRestartOnFailureStartsANewProcessThatGetsTheNextMessage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	logPath := filepath.Join(dir, "a.jsonl")
	src := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"a\"\nprofile = \"claude\"\nrestart = \"on-failure\"\ncommand = %s\n",
		tomlList([]string{fakeAgentBin, "--log", logPath, "--busy", "10ms", "--exit-after", "1", "--exit-code", "3"}))
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := open(t, c, state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	first, _ := e.Agent("a")
	if _, err := e.Store().Enqueue(ctx, "a", "one", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "a new process after the exit with code 3", func() bool {
		a, _ := e.Agent("a")
		return a != first && a.Term != nil && a.Term.Pid() != first.Term.Pid()
	})
	if _, err := e.Store().Enqueue(ctx, "a", "two", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the second message in the new process", func() bool {
		return len(promptsIn(t, logPath)) == 2
	})
	if got := promptsIn(t, logPath); got[0] != "one" || got[1] != "two" {
		t.Fatalf("prompts %q", got)
	}
}

func TestRestartNeverLeavesTheAgentExited(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte("[[agent]]\nname = \"a\"\ncommand = [\"sh\", \"-c\", \"exit 4\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv(),
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	first, _ := e.Agent("a")
	waitCond(t, 10*time.Second, "the restart decision", func() bool { return strings.Contains(log.String(), "not restarted") })
	if _, code := first.Term.Exited(); code != 4 {
		t.Fatalf("exit code %d", code)
	}
	if a, _ := e.Agent("a"); a != first || strings.Contains(log.String(), "restarting") {
		t.Fatal("an agent with restart = never was restarted")
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestOpeningBriefReachesModelAgentsNotShells(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	logPath := filepath.Join(dir, "a.jsonl")
	src := fmt.Sprintf("[[agent]]\nname = \"a\"\nprofile = \"claude\"\nrole = \"reviewer\"\ncommand = %s\n\n"+
		"[[agent]]\nname = \"sh\"\nprofile = \"shell\"\ncommand = [\"sh\"]\n",
		tomlList([]string{fakeAgentBin, "--log", logPath, "--busy", "10ms"}))
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := open(t, c, state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	waitCond(t, 30*time.Second, "the brief", func() bool { return len(promptsIn(t, logPath)) == 1 })
	brief := promptsIn(t, logPath)[0]
	for _, want := range []string{`You are "a"`, "Your role: reviewer", "office mail send"} {
		if !strings.Contains(brief, want) {
			t.Errorf("brief lacks %q:\n%s", want, brief)
		}
	}
	evs, err := e.Store().Events(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Agent == "sh" && ev.Kind == queue.EventEnqueued {
			t.Fatalf("the shell agent got a brief queued: %+v", ev)
		}
	}
}
