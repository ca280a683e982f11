package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"office/automation"
	"office/configs"
)

// launchEngine is an Engine with just enough for launch (no agents started).
func launchEngine(t *testing.T, bin string) *Engine {
	t.Helper()
	return &Engine{opts: Options{StateDir: t.TempDir(), Bin: bin, HostEnv: []string{"HOME=" + t.TempDir()}},
		log: slog.New(slog.DiscardHandler)}
}

func builtin(t *testing.T, name string) configs.Profile {
	t.Helper()
	ps, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	return ps[name]
}

func TestLaunchClaudeStartsUnderAnIDAndResumesItOnceStored(t *testing.T) {
	t.Parallel()
	e := launchEngine(t, "/opt/office/bin/office")
	home := t.TempDir()
	p := builtin(t, "claude")
	a := &Agent{Config: configs.Agent{Name: "cl", Env: map[string]string{"HOME": home}}, Profile: p}
	argv, _, _, err := e.launch(a, []string{"claude"}, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if len(argv) < 3 || argv[1] != "--session-id" || len(argv[2]) != 36 {
		t.Fatalf("first start argv %q: want claude --session-id UUID ...", argv)
	}
	id := argv[2]
	i := slices.Index(argv, "--settings")
	if i < 0 || i+1 >= len(argv) {
		t.Fatalf("argv %q has no --settings FILE", argv)
	}
	var settings struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	b, err := os.ReadFile(argv[i+1])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"UserPromptSubmit", "PreToolUse", "Stop", "Notification"} {
		if len(settings.Hooks[ev]) == 0 || !strings.Contains(settings.Hooks[ev][0].Hooks[0].Command, "'/opt/office/bin/office' hook ") {
			t.Errorf("hook %s: %+v", ev, settings.Hooks[ev])
		}
	}
	// Restart before any turn: no transcript, so the same id starts again.
	argv, _, _, _ = e.launch(a, []string{"claude"}, "/w")
	if argv[1] != "--session-id" || argv[2] != id {
		t.Fatalf("restart without a transcript: argv %q, want --session-id %s", argv, id)
	}
	// Once the transcript exists, a restart resumes it.
	proj := filepath.Join(home, ".claude", "projects", "-w")
	os.MkdirAll(proj, 0o700)
	os.WriteFile(filepath.Join(proj, id+".jsonl"), []byte("{}\n"), 0o600)
	argv, _, _, _ = e.launch(a, []string{"claude"}, "/w")
	if argv[1] != "--resume" || argv[2] != id {
		t.Fatalf("restart with a transcript: argv %q, want --resume %s", argv, id)
	}
}

func TestLaunchCodexResumesLastAfterTheFirstStart(t *testing.T) {
	t.Parallel()
	e := launchEngine(t, "")
	p := builtin(t, "codex")
	a := &Agent{Config: configs.Agent{Name: "cx"}, Profile: p}
	base := append([]string{"/bin/codex"}, p.Args...)
	argv, _, _, err := e.launch(a, slices.Clone(base), "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(argv, base) {
		t.Fatalf("first start argv %q, want %q", argv, base)
	}
	argv, _, _, _ = e.launch(a, slices.Clone(base), "")
	want := append([]string{"/bin/codex", "resume", "--last"}, p.Args...)
	if !slices.Equal(argv, want) {
		t.Fatalf("restart argv %q, want %q", argv, want)
	}
}

func TestLaunchGeminiResumesByIDOnceTheSessionFileExists(t *testing.T) {
	t.Parallel()
	e := launchEngine(t, "")
	home := t.TempDir()
	a := &Agent{Config: configs.Agent{Name: "gm", Env: map[string]string{"HOME": home}}, Profile: builtin(t, "gemini")}
	argv, env, _, _ := e.launch(a, []string{"gemini"}, "")
	if argv[1] != "--session-id" {
		t.Fatalf("argv %q", argv)
	}
	// The auto-updater is turned off through a per-agent system defaults file.
	if len(env) != 1 || !strings.HasPrefix(env[0], "GEMINI_CLI_SYSTEM_DEFAULTS_PATH=") {
		t.Fatalf("env %q", env)
	}
	var defaults struct {
		General struct {
			EnableAutoUpdate *bool `json:"enableAutoUpdate"`
		} `json:"general"`
	}
	b, err := os.ReadFile(strings.TrimPrefix(env[0], "GEMINI_CLI_SYSTEM_DEFAULTS_PATH="))
	if err != nil || json.Unmarshal(b, &defaults) != nil || defaults.General.EnableAutoUpdate == nil || *defaults.General.EnableAutoUpdate {
		t.Fatalf("system defaults %s (%v): want general.enableAutoUpdate false", b, err)
	}
	id := argv[2]
	chats := filepath.Join(home, ".gemini", "tmp", "proj", "chats")
	os.MkdirAll(chats, 0o700)
	os.WriteFile(filepath.Join(chats, "session-2026-11-30T00-00-"+id[:8]+".jsonl"), nil, 0o600)
	argv, _, _, _ = e.launch(a, []string{"gemini"}, "")
	if !slices.Equal(argv, []string{"gemini", "--resume", id}) {
		t.Fatalf("argv %q, want gemini --resume %s", argv, id)
	}
}

func TestLaunchWorktreeIsCreatedOnItsBranchAndReused(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command(git, append([]string{"-C", repo}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	e := launchEngine(t, "")
	a := &Agent{Config: configs.Agent{Name: "wt", Worktree: true}, Profile: builtin(t, "shell")}
	_, _, dir, err := e.launch(a, []string{"bash"}, repo)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(e.opts.StateDir, "worktrees", "wt"); dir != want {
		t.Fatalf("dir %q, want %q", dir, want)
	}
	out, err := exec.Command(git, "-C", dir, "rev-parse", "--abbrev-ref", "HEAD").Output()
	if err != nil || strings.TrimSpace(string(out)) != "office/wt" {
		t.Fatalf("worktree branch %q, %v", out, err)
	}
	os.WriteFile(filepath.Join(dir, "work.txt"), []byte("kept"), 0o644)
	_, _, dir2, err := e.launch(a, []string{"bash"}, repo)
	if err != nil || dir2 != dir {
		t.Fatalf("second launch: %q, %v; want the same worktree", dir2, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "work.txt")); string(b) != "kept" {
		t.Fatal("the worktree's work was not kept")
	}
}

func TestHookEventsMapToStatuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args HookArgs
		want automation.Status
		none bool
		ok   bool
	}{
		{HookArgs{Event: "UserPromptSubmit"}, automation.StatusBusy, false, true},
		{HookArgs{Event: "PreToolUse"}, automation.StatusBusy, false, true},
		{HookArgs{Event: "Stop"}, automation.StatusIdle, false, true},
		{HookArgs{Event: "Notification:permission"}, automation.StatusWaiting, false, true},
		{HookArgs{Event: "Notification", NotificationType: "permission_prompt"}, automation.StatusWaiting, false, true},
		{HookArgs{Event: "Notification", NotificationType: "idle_prompt"}, automation.StatusIdle, false, true},
		{HookArgs{Event: "SessionStart"}, automation.StatusStarting, true, true},
		{HookArgs{Event: "StopFailure", Error: "rate_limit"}, automation.StatusIdle, false, true},
		{HookArgs{Event: "SubagentStop"}, 0, false, false},
	} {
		s, none, ok := hookStatus(tc.args)
		if ok != tc.ok || (ok && (s != tc.want || none != tc.none)) {
			t.Errorf("%+v: %v none=%v ok=%v; want %v none=%v ok=%v", tc.args, s, none, ok, tc.want, tc.none, tc.ok)
		}
	}
	a, ok := DecodeHookPayload("Notification", []byte(`{"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`))
	if !ok || a.Undecoded || a.NotificationType != "permission_prompt" || a.Event != "Notification" {
		t.Fatalf("decoded %+v", a)
	}
	// StopFailure's payload as Claude Code 2.1.332 declares it.
	for _, bad := range []string{"", "not json", `{"hook_event_name":"Stop","prompt_id":"p1"`} {
		if a, ok := DecodeHookPayload("Stop", []byte(bad)); ok || !a.Undecoded || a.Event != "Stop" {
			t.Errorf("payload %q decoded %+v, ok %v; want not ok, Undecoded, the event kept", bad, a, ok)
		}
	}
	a, _ = DecodeHookPayload("StopFailure", []byte(`{"hook_event_name":"StopFailure","error":"overloaded",`+
		`"error_details":"529 overloaded_error","last_assistant_message":"API Error: 529 Overloaded"}`))
	if a.Error != "overloaded" || a.ErrorDetails != "529 overloaded_error" || a.LastMessage != "API Error: 529 Overloaded" {
		t.Fatalf("decoded %+v", a)
	}
	if got := failureText(a); got != "API Error: 529 Overloaded" {
		t.Errorf("failure %q", got)
	}
	if got := failureText(HookArgs{Event: "StopFailure", Error: "server_error"}); got != "StopFailure: server_error" {
		t.Errorf("failure with no message %q", got)
	}
	// office registers the hook in the settings it gives Claude.
	file, err := writeClaudeHooks(t.TempDir(), "/bin/office")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	if h := set.Hooks["StopFailure"]; len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Command != "'/bin/office' hook StopFailure" {
		t.Errorf("StopFailure hook %+v in\n%s", h, b)
	}
}

func TestScheduledCompactionQueuesTheVerbOnceAndOnlyAfterActivity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := `brief = false
[profile.custom]
compact = ["/compact"]
[[agent]]
name = "c"
command = ["bash", "-c", "echo hi; exec cat"]
compact_every = "1h"
[[agent]]
name = "s"
profile = "shell"
compact_every = "1h"
`
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Options{Config: c, StateDir: filepath.Join(dir, "state"), HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a, _ := e.Agent("c")
	deadline := time.Now().Add(5 * time.Second)
	for a.Term.LastOutput().IsZero() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	start := a.Term.LastOutput().Add(-time.Minute)
	s := &scheduler{e: e, agents: map[string]*compactSchedule{}}
	ctx := context.Background()
	if q := s.check(ctx, start); len(q) != 0 {
		t.Fatalf("queued at start: %v", q)
	}
	if q := s.check(ctx, start.Add(30*time.Minute)); len(q) != 0 {
		t.Fatalf("queued before it was due: %v", q)
	}
	if q := s.check(ctx, start.Add(61*time.Minute)); !slices.Equal(q, []string{"c"}) {
		t.Fatalf("queued %v at 61 min, want [c] (the shell profile has no compact verb)", q)
	}
	// Due again, but no output since: skipped.
	if q := s.check(ctx, start.Add(3*time.Hour)); len(q) != 0 {
		t.Fatalf("queued with no activity since the last one: %v", q)
	}
	msgs, err := e.Store().List(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Text != "/compact" || msgs[0].Source != "schedule" {
		t.Fatalf("queue %+v, want one /compact from the schedule", msgs)
	}
}

func TestEmptyWorktreeIsRemovedAndOneWithWorkKept(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo)
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-C", dir}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(repo, "init", "-q", "-b", "main")
	run(repo, "commit", "-q", "--allow-empty", "-m", "init")
	e := launchEngine(t, "")
	launch := func(name string) string {
		a := &Agent{Config: configs.Agent{Name: name, Worktree: true}, Profile: builtin(t, "shell")}
		_, _, dir, err := e.launch(a, []string{"bash"}, repo)
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	empty, dirty, committed := launch("empty"), launch("dirty"), launch("committed")
	os.WriteFile(filepath.Join(dirty, "draft.txt"), []byte("uncommitted"), 0o644)
	os.WriteFile(filepath.Join(committed, "done.txt"), []byte("work"), 0o644)
	run(committed, "add", "done.txt")
	run(committed, "commit", "-q", "-m", "work")

	if !e.pruneWorktree("empty") {
		t.Fatal("an empty worktree was kept")
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Fatalf("empty worktree still on disk: %v", err)
	}
	if branches := run(repo, "branch", "--list", "office/empty"); branches != "" {
		t.Fatalf("branch of the empty worktree kept: %q", branches)
	}
	for _, name := range []string{"dirty", "committed"} {
		if e.pruneWorktree(name) {
			t.Fatalf("worktree %s with work was removed", name)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dirty, "draft.txt")); string(b) != "uncommitted" {
		t.Fatal("uncommitted work lost")
	}
	// The next start makes a fresh worktree for the pruned agent.
	if dir := launch("empty"); dir != empty {
		t.Fatalf("relaunch dir %q", dir)
	}
}

// Codex's Stop hook is one -c override whose definition depends on the
// office binary alone (the agent is named by OFFICE_AGENT), so the trust the
// person gives it holds across starts and agents; it is valid TOML for
// Codex's -c (a quoted command line inside a basic string).
func TestCodexStopHookIsOneFixedDefinition(t *testing.T) {
	t.Parallel()
	got := codexStopHook("/opt/my office/office")
	want := `hooks.Stop=[{hooks=[{type="command",command="'/opt/my office/office' hook Stop"}]}]`
	if got != want {
		t.Fatalf("codexStopHook = %s\nwant %s", got, want)
	}
	if tomlBasic(`a"b\c`) != `"a\"b\\c"` {
		t.Errorf("tomlBasic = %s", tomlBasic(`a"b\c`))
	}
}
