package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"office/configs"
	"office/drain"
	"office/engine"
)

func TestVersionNewer(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"2.1.333 (Claude Code)", "2.1.332", true},
		{"2.2.0", "2.1.332", true},
		{"codex-cli 0.171.0", "0.171.0", false},
		{"0.60.9", "0.61.0", false},
		{"2.1.332.1", "2.1.332", true},
		{"no version", "1.0", false},
	} {
		if got := engine.VersionNewer(c.a, c.b); got != c.want {
			t.Errorf("VersionNewer(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// A CLI newer than its profile's checked version is told once (a notice and
// a log line), read with its version command, not a turn; one not newer is
// not told.
func TestANewerCLIIsToldOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		version string
		told    bool
	}{{"2.9.0 (Claude Code)", true}, {"2.1.332 (Claude Code)", false}} {
		t.Run(c.version, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cli := filepath.Join(dir, "claude")
			script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = --version ]; then echo '%s'; exit 0; fi\nexec %s \"$@\"\n", c.version, fakeAgentBin)
			if err := os.WriteFile(cli, []byte(script), 0o700); err != nil {
				t.Fatal(err)
			}
			src := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"a\"\nprofile = \"claude\"\ncommand = [%q, \"--log\", %q]\n\n"+
				"[[agent]]\nname = \"b\"\nprofile = \"claude\"\ncommand = [%q, \"--log\", %q]\n",
				cli, filepath.Join(dir, "a.jsonl"), cli, filepath.Join(dir, "b.jsonl"))
			cfg, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var told []drain.Notice
			e, err := engine.Open(engine.Options{Config: cfg, StateDir: filepath.Join(dir, "state"), HostEnv: hostEnv(),
				OnNotice: func(n drain.Notice) {
					mu.Lock()
					defer mu.Unlock()
					if n.Kind == engine.NoticeCLINewer {
						told = append(told, n)
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go e.Run(ctx)
			count := func() int { mu.Lock(); defer mu.Unlock(); return len(told) }
			if c.told {
				waitCond(t, 10*time.Second, "the notice", func() bool { return count() > 0 })
			}
			time.Sleep(time.Second) // a second notice would come now
			mu.Lock()
			defer mu.Unlock()
			switch {
			case !c.told && len(told) != 0:
				t.Fatalf("told %+v for a CLI not newer", told)
			case c.told && (len(told) != 1 || !strings.Contains(told[0].Text, "2.9.0") || !strings.Contains(told[0].Text, "2.1.332")):
				t.Fatalf("notices %+v, want one naming both versions (two agents, one CLI)", told)
			}
			if p := eventsIn(t, filepath.Join(dir, "a.jsonl"), "prompt"); len(p) != 0 {
				t.Fatalf("reading the version ran a turn: %v", p)
			}
		})
	}
}
