package main

// The Stop hooks of the --settings file, run as Claude Code 2.1.332 runs
// them (--stop-hook; docs/channels.md): at a prompt turn's end each Stop
// hook's command runs under sh with Claude's payload on stdin (session_id,
// transcript_path, cwd, hook_event_name, prompt_id, stop_hook_active,
// last_assistant_message). --hook-evidence's own Stop (`$OFFICE_BIN hook
// Stop`) is answered the same way. An answer {"decision":"block","reason":R}
// continues the same turn (the same prompt_id, no UserPromptSubmit) with R
// as its next input: the transcript gets Claude's meta line for it (a
// "user" line with isMeta, rowSource "hook", hookText, content "Stop hook
// feedback:\n" + R), the screen shows "Stop hook reported a problem" and
// R, the log {"event":"handed","text":R}. The 9th block in a row ends the
// turn anyway with Claude's notice (its transcript line is still written,
// as Claude's is). A hook that fails or answers nothing ends the turn.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// stopHookCap is Claude Code 2.1.332's cap: the 9th block in a row ends the
// turn.
const stopHookCap = 8

// claudeHookLabel starts the content of Claude's meta line for a block.
const claudeHookLabel = "Stop hook feedback:\n"

// stopHookCommands returns the commands of the Stop hooks in the settings
// file (none: no file, or no Stop hook).
func (a *app) stopHookCommands() []string {
	if a.opts.settings == "" {
		return nil
	}
	b, err := os.ReadFile(a.opts.settings)
	if err != nil {
		return nil
	}
	var f struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(b, &f) != nil {
		return nil
	}
	var out []string
	for _, g := range f.Hooks["Stop"] {
		for _, h := range g.Hooks {
			if h.Type == "command" && h.Command != "" {
				out = append(out, h.Command)
			}
		}
	}
	return out
}

// stopHooks runs the Stop hooks at the end of t (its reply given) and
// reports whether one blocked: then t goes on with the reason. Called on
// the UI loop only (Claude waits for its Stop hooks too).
func (a *app) stopHooks(t *turn, reply string) bool {
	cwd, _ := os.Getwd()
	p, _ := json.Marshal(map[string]any{
		"session_id":             sessionArg(os.Args[1:]),
		"transcript_path":        a.transcriptPath(),
		"cwd":                    cwd,
		"hook_event_name":        "Stop",
		"prompt_id":              t.promptID,
		"stop_hook_active":       t.blocks > 0,
		"last_assistant_message": reply,
	})
	reason := ""
	for _, c := range a.stopHookCommands() {
		ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
		cmd := exec.CommandContext(ctx, "sh", "-c", c)
		cmd.Stdin = bytes.NewReader(p)
		out, err := cmd.Output()
		cancel()
		a.log.event("hook", kv{"hook", "Stop"}, kv{"ok", err == nil})
		if r := blockReason(out); err == nil && reason == "" {
			reason = r
		}
	}
	return a.blocked(t, reason)
}

// blockReason is the reason of a Stop hook's block answer ("" for none).
func blockReason(out []byte) string {
	var ans struct{ Decision, Reason string }
	if json.Unmarshal(bytes.TrimSpace(out), &ans) != nil || ans.Decision != "block" {
		return ""
	}
	return ans.Reason
}

// blocked goes on with t when a Stop hook blocked its end with reason ("":
// none), as Claude does; it reports whether t goes on.
func (a *app) blocked(t *turn, reason string) bool {
	if reason == "" {
		return false
	}
	a.metaLine(reason)
	if t.blocks >= stopHookCap {
		a.addLine("  ⎿ A hook blocked the turn from ending 9 consecutive times—overriding and ending turn")
		a.log.event("stop-hook-cap", kv{"text", reason})
		return false
	}
	a.log.event("handed", kv{"text", reason})
	a.addLine("● Ran stop hooks")
	a.addLine("  ⎿ Stop hook reported a problem")
	a.addLine("    " + strings.ReplaceAll(reason, "\n", " "))
	blocks := t.blocks + 1
	a.startTurnAs(reason, t.promptID, blocks)
	return true
}

// startTurnAs starts a turn continued by a Stop hook (the same prompt_id).
func (a *app) startTurnAs(text, promptID string, blocks int) {
	a.startTurn(text, false)
	a.prompts--
	a.busy.promptID, a.busy.blocks = promptID, blocks
}

// transcriptPath is where Claude keeps the session's transcript:
// $HOME/.claude/projects/SLUG/SESSION.jsonl ("" without a session id).
func (a *app) transcriptPath() string {
	home, session := os.Getenv("HOME"), sessionArg(os.Args[1:])
	if home == "" || session == "" {
		return ""
	}
	cwd, _ := os.Getwd()
	slug := strings.Map(func(r rune) rune {
		if r == '/' || r == '.' || r == '_' {
			return '-'
		}
		return r
	}, cwd)
	return filepath.Join(home, ".claude", "projects", slug, session+".jsonl")
}

// metaLine appends Claude's transcript line for a Stop hook's block.
func (a *app) metaLine(reason string) {
	path := a.transcriptPath()
	if path == "" {
		return
	}
	b, _ := json.Marshal(map[string]any{
		"type":      "user",
		"message":   map[string]any{"role": "user", "content": claudeHookLabel + reason},
		"isMeta":    true,
		"rowSource": "hook",
		"hookText":  true,
		"timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
	})
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}
