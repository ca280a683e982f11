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
	"path/filepath"
	"time"

	"office/records"
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
// plus extra, logs {"event":"hook","hook":EVENT,"ok":BOOL}, and returns
// what the hook printed (its answer: a Stop's block, stophook.go).
func (a *app) hook(event string, extra map[string]any) []byte {
	if !a.opts.hookEvidence {
		return nil
	}
	bin := os.Getenv("OFFICE_BIN")
	if bin == "" {
		a.hookDirect(event, extra)
		return nil
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
	out, err := cmd.Output()
	a.log.event("hook", kv{"hook", event}, kv{"ok", err == nil})
	return out
}

// promptSubmitted is the UserPromptSubmit hook for a submitted prompt.
func (a *app) promptSubmitted(text string) {
	a.inOrder(a.opts.hookDelay, a.opts.hookGate, func() {
		a.hook("UserPromptSubmit", map[string]any{"prompt": text, "permission_mode": "default"})
	})
}

// turnStopped is the Stop hook after a prompt turn's reply. It reports
// whether the hook's answer blocked the turn's end: then t goes on with the
// answer's reason, as Claude's does (stophook.go). Hooks run late
// (--hook-delay, --hook-gate) answer after the turn ended: their answer is
// not read (a test of late records hands nothing over).
func (a *app) turnStopped(t *turn, reply string) bool {
	payload := map[string]any{"prompt_id": t.promptID, "stop_hook_active": t.blocks > 0,
		"last_assistant_message": reply, "transcript_path": a.transcriptPath()}
	if a.opts.hookDelay > 0 || a.opts.hookGate != "" {
		a.inOrder(0, "", func() { a.hook("Stop", payload) })
		return false
	}
	return a.blocked(t, blockReason(a.hook("Stop", payload)))
}

// maxLateHooks bounds the hooks --hook-delay keeps waiting (the UI loop
// blocks past it, as a CLI blocked on its hooks does).
const maxLateHooks = 64

// maxHookGate bounds how long a hook waits for its --hook-gate file.
const maxHookGate = time.Minute

// inOrder runs hook now, or with --hook-delay or --hook-gate on one
// goroutine that runs the hooks in the order they came, each delay after
// its turn came and, with a gate, once the gate file exists (a CLI whose
// record of a prompt is written late under load: the screen shows the
// submit and the turn while the record follows seconds later; the Stop
// record still comes after its prompt's). Called on the UI loop only.
func (a *app) inOrder(delay time.Duration, gate string, hook func()) {
	if a.opts.hookDelay <= 0 && a.opts.hookGate == "" {
		hook()
		return
	}
	if a.lateHooks == nil {
		a.lateHooks = make(chan func(), maxLateHooks)
		go func() {
			for f := range a.lateHooks {
				f()
			}
		}()
	}
	a.lateHooks <- func() {
		time.Sleep(delay)
		for end := time.Now().Add(maxHookGate); gate != "" && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(gate); err == nil {
				break
			}
		}
		hook()
	}
}

// hookDirect is the hook without an office binary (OFFICE_BIN unset: an
// engine test runs no office executable): the record `office hook` would
// append, appended to the agent's hook log under $OFFICE_STATE itself.
func (a *app) hookDirect(event string, extra map[string]any) {
	state, agent := os.Getenv("OFFICE_STATE"), os.Getenv("OFFICE_AGENT")
	if state == "" || agent == "" {
		return
	}
	r := records.HookRecord{Event: event, At: time.Now().UTC(), Session: sessionArg(os.Args[1:])}
	r.Prompt, _ = extra["prompt"].(string)
	r.Reply, _ = extra["last_assistant_message"].(string)
	err := records.AppendHook(filepath.Join(state, "agents", agent, records.HookLogFile), r)
	a.log.event("hook", kv{"hook", event}, kv{"ok", err == nil})
}
