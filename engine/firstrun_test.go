package engine_test

// Claude Code 2.1.332's first-run offers, drawn by the fake agent, under the
// real drain: a queued message is never typed into them (the Enter would
// answer "Yes" and write the person's settings), whatever the boot grace
// says; `office approve` answers them, and the message goes once the prompt
// shows.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/configs"
	"office/engine"
	"office/queue"
)

func TestFirstRunOffersHoldDeliveryAndKeepTheSettings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		offer string
		hold  string // the drain's hold while the offer shows
		no    string // the option `office approve` answers with ("" : none)
	}{
		// Known by its text (the claude profile's waiting patterns).
		{"fullscreen", "waiting", "2"},
		{"automode", "waiting", "No, keep"},
		// Known only by its shape: the screen gate holds it.
		{"novel", "unknown screen", "No thanks"},
	}
	for _, c := range cases {
		t.Run(c.offer, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			logPath := filepath.Join(dir, "a.jsonl")
			settings := filepath.Join(dir, "settings.json")
			const mine = `{"theme": "mine"}` + "\n"
			if err := os.WriteFile(settings, []byte(mine), 0o600); err != nil {
				t.Fatal(err)
			}
			// A short boot grace: before the screen gate, its end typed
			// the message into the offer.
			src := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"a\"\nprofile = \"claude\"\nboot_grace = \"1s\"\ncommand = %s\n",
				tomlList([]string{fakeAgentBin, "--log", logPath, "--busy", "10ms", "--first-run", c.offer, "--settings", settings}))
			cfg, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			e := open(t, cfg, state)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go e.Run(ctx)
			if _, err := e.Store().Enqueue(ctx, "a", "hello model", queue.EnqueueOptions{}); err != nil {
				t.Fatal(err)
			}
			e.Wake()
			waitCond(t, 30*time.Second, "the hold "+c.hold, func() bool { return holdOf(e, "a") == c.hold })
			// Well past the boot grace: still held, nothing typed.
			time.Sleep(2 * time.Second)
			if h := holdOf(e, "a"); h != c.hold {
				t.Fatalf("hold %q after the grace, want %q", h, c.hold)
			}
			if p := promptsIn(t, logPath); len(p) != 0 {
				t.Fatalf("the agent got prompts %q through its first-run offer", p)
			}
			if ev := eventsIn(t, logPath, "first-run"); len(ev) != 0 {
				t.Fatalf("the offer was answered by office: %v", ev)
			}
			if b, _ := os.ReadFile(settings); string(b) != mine {
				t.Fatalf("the person's settings changed: %q", b)
			}
			if c.no == "" {
				return
			}
			if _, err := e.Approve(ctx, "a", c.no, ""); err != nil {
				t.Fatalf("approve %q: %v", c.no, err)
			}
			waitCond(t, 30*time.Second, "the message after the offer", func() bool { return len(promptsIn(t, logPath)) == 1 })
			if ev := eventsIn(t, logPath, "first-run"); len(ev) != 1 || !strings.Contains(ev[0], `"answer":"no"`) {
				t.Fatalf("first-run answers %v, want one no", ev)
			}
			if b, _ := os.ReadFile(settings); string(b) != mine {
				t.Fatalf("the person's settings changed: %q", b)
			}
		})
	}
}

// holdOf is the drain's hold of agent's head message.
func holdOf(e *engine.Engine, agent string) string {
	for _, s := range e.Status() {
		if s.Name == agent {
			return s.Hold
		}
	}
	return ""
}

// eventsIn returns the fake agent's log lines of event kind.
func eventsIn(t *testing.T, logPath, kind string) []string {
	t.Helper()
	b, _ := os.ReadFile(logPath)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		var l struct{ Event string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Event == kind {
			out = append(out, line)
		}
	}
	return out
}
