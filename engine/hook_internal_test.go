package engine

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"office/automation"
	"office/configs"
	"office/pool"
)

// Claude's UserPromptSubmit hook starts a turn whose cause is the hook; a
// hook event that is no prompt (Stop) starts none.
func TestUserPromptSubmitHookStartsATurn(t *testing.T) {
	dir := t.TempDir()
	src := "brief = false\n\n[[agent]]\nname = \"dev\"\ncommand = [\"sh\", \"-c\", \"exec sleep 600\"]\n"
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	turns := make(chan automation.TurnEvent, 16)
	e, err := Open(Options{Config: c, StateDir: filepath.Join(dir, "state"), HostEnv: []string{"PATH=/usr/bin:/bin"},
		OnTerminal: func(ev pool.Event) {
			if ev.Kind == pool.EventTurnStart {
				turns <- ev.Turn
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.handle(Request{Op: "hook", Agent: "dev", Args: []byte(`{"event":"Stop"}`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-turns:
		t.Fatalf("a Stop hook started a turn: %+v", ev)
	default:
	}
	if _, err := e.handle(Request{Op: "hook", Agent: "dev", Args: []byte(`{"event":"UserPromptSubmit"}`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-turns:
		if ev.Kind != automation.TurnStarted || !slices.Contains(ev.Causes, automation.HookPrompt()) {
			t.Fatalf("turn event %+v (causes %s): want a started turn caused by the hook", ev, causeList(ev))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no turn started after the UserPromptSubmit hook")
	}
}
