package engine_test

// Following the CLI's session: Claude Code 2.1.332 may start a new session
// (after a first-run offer) and its hooks report it; office records it and
// a restart resumes that one, not the empty conversation it started under.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/engine"
)

func TestASessionSwitchIsFollowedAcrossARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	home := filepath.Join(dir, "home")
	c := fakeConfig(t, dir, 1, "--busy", "10ms")
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8"}
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: env})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	logPath := filepath.Join(dir, "a0.jsonl")
	waitCond(t, 30*time.Second, "the agent started", func() bool { return len(startArgs(t, logPath)) == 1 })
	first := sessionOf(t, state)
	if first == "" || !strings.Contains(strings.Join(startArgs(t, logPath)[0], " "), "--session-id "+first) {
		t.Fatalf("started with %q, launch.json session %q", startArgs(t, logPath), first)
	}

	// The CLI's hook names another session (what `office hook` sends).
	const moved = "0b9d4c8e-51a7-4f0e-9e5b-2f3f6c1d7a10"
	args, _ := json.Marshal(engine.HookArgs{Event: "SessionStart", Session: moved})
	if err := engine.Call(ctx, state, engine.Request{Op: "hook", Agent: "a0", Args: args}, nil); err != nil {
		t.Fatal(err)
	}
	if got := sessionOf(t, state); got != moved {
		t.Fatalf("launch.json session %q after the switch, want %q", got, moved)
	}
	// The new session has a transcript (it had turns): a restart resumes it.
	tr := filepath.Join(home, ".claude", "projects", "-proj", moved+".jsonl")
	if err := os.MkdirAll(filepath.Dir(tr), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := e.RestartAgent("a0"); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 30*time.Second, "the restarted agent", func() bool { return len(startArgs(t, logPath)) == 2 })
	if got := strings.Join(startArgs(t, logPath)[1], " "); !strings.Contains(got, "--resume "+moved) {
		t.Fatalf("restarted with %q, want --resume %s", got, moved)
	}
	// A bogus id from a hook is not taken.
	args, _ = json.Marshal(engine.HookArgs{Event: "Stop", Session: "../../etc"})
	_ = engine.Call(ctx, state, engine.Request{Op: "hook", Agent: "a0", Args: args}, nil)
	if got := sessionOf(t, state); got != moved {
		t.Fatalf("a bad session id was recorded: %q", got)
	}
}

// sessionOf reads a0's launch.json session id.
func sessionOf(t *testing.T, state string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(engine.AgentDir(state, "a0"), "launch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal(b, &r)
	return r.SessionID
}

// startArgs returns the argv of every start the fake agent logged.
func startArgs(t *testing.T, logPath string) [][]string {
	t.Helper()
	var out [][]string
	for _, line := range eventsIn(t, logPath, "start") {
		var l struct{ Args []string }
		if json.Unmarshal([]byte(line), &l) == nil {
			out = append(out, l.Args)
		}
	}
	return out
}
