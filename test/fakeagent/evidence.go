package main

// Hook-style delivery evidence, like Claude Code's hooks (--hook-evidence):
// after a prompt is submitted the fake agent runs `$OFFICE_BIN hook
// UserPromptSubmit` with Claude's payload on stdin (session_id,
// transcript_path, cwd, hook_event_name, prompt), and after a prompt turn's
// reply `$OFFICE_BIN hook Stop` (with last_assistant_message), each
// synchronously, as Claude runs its hooks. Without OFFICE_BIN (not run by
// office) nothing runs.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"time"
)

// hookTimeout bounds one hook run (Claude's default hook timeout is far
// longer; a test must not hang on one).
const hookTimeout = 5 * time.Second

// sessionArg returns the value of --session-id or --resume in args (office's
// claude profile passes one), "" without.
func sessionArg(args []string) string {
	for i, a := range args {
		if (a == "--session-id" || a == "--resume") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// hook runs the office hook for event with Claude's common payload fields
// plus extra, and logs {"event":"hook","hook":EVENT,"ok":BOOL}.
func (a *app) hook(event string, extra map[string]any) {
	if !a.opts.hookEvidence {
		return
	}
	bin := os.Getenv("OFFICE_BIN")
	if bin == "" {
		return
	}
	cwd, _ := os.Getwd()
	p := map[string]any{
		"session_id":      sessionArg(os.Args[1:]),
		"transcript_path": "",
		"cwd":             cwd,
		"hook_event_name": event,
	}
	for k, v := range extra {
		p[k] = v
	}
	body, _ := json.Marshal(p)
	ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "hook", event)
	cmd.Stdin = bytes.NewReader(body)
	err := cmd.Run()
	a.log.event("hook", kv{"hook", event}, kv{"ok", err == nil})
}

// promptSubmitted is the UserPromptSubmit hook for a submitted prompt.
func (a *app) promptSubmitted(text string) {
	a.hook("UserPromptSubmit", map[string]any{"prompt": text, "permission_mode": "default"})
}

// turnStopped is the Stop hook after a prompt turn's reply.
func (a *app) turnStopped(reply string) {
	a.hook("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": reply})
}
