package main

// hook.go is `office hook EVENT`: run by a CLI's own hooks (Claude Code's,
// from the settings file office writes for each agent), it reads the hook's
// JSON payload on stdin and reports the event to the running office, which
// turns it into the agent's status (the strongest signal). A Stop's answer
// may hand the agent's queue head over (docs/channels.md): then it prints
// {"decision":"block","reason":TEXT} on stdout, and nothing otherwise. It
// never fails the CLI: problems go to stderr and the exit code is 0.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"office/engine"
	"office/records"
	"office/wire"
)

// hookTimeout bounds the whole call: a hook must never stall the CLI. It
// stays under the 5 s timeout Claude is given for each hook (the settings
// file engine/launch.go writes), and is what an office still starting has
// to begin listening before the report is given up (see runHook).
const hookTimeout = 4 * time.Second

func newHookCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "hook EVENT",
		Short: "called by a CLI's hooks (Claude Code) to report its state; never fails the CLI",
		Args:  exactArgs(1),
		// Claude Code takes a hook's exit code 2 as "block this prompt or
		// tool call": even a bad command line exits 0 here.
		Annotations: map[string]string{neverFails: "true"},
		RunE: func(c *cobra.Command, args []string) error {
			return runHook(c.Context(), e, g, args[0])
		},
	}
}

func runHook(ctx context.Context, e *env, g *globals, event string) error {
	agent := e.getenv("OFFICE_AGENT")
	if agent == "" {
		fmt.Fprintln(e.stderr, "office hook: OFFICE_AGENT is not set (not run by an office agent); ignored")
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	payload, whole := readStdin(ctx, e.stdin)
	hargs, _ := engine.DecodeHookPayload(event, payload)
	if !whole {
		hargs.Undecoded = true // cut at maxHookPayload, or read too late
	}
	dir, err := stateDir(g, e)
	if err != nil {
		fmt.Fprintln(e.stderr, "office hook:", err)
		return nil
	}
	recordHook(e, dir, agent, event, payload)
	// The office starts its agents before it listens (engine/early.go):
	// a hook they run then (SessionStart at boot, a prompt's first hooks)
	// finds no socket yet. While the office holds its lock it is coming,
	// so the call is tried again until the hook's own timeout.
	tick := time.NewTicker(startPoll)
	defer tick.Stop()
	for {
		res, err := engine.Do(ctx, dir, wire.OpHook, agent, hargs)
		if err == nil {
			return answerHook(e, res)
		}
		if !errors.Is(err, engine.ErrNoEngine) || !engine.Running(dir) {
			fmt.Fprintln(e.stderr, "office hook:", err)
			return nil
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(e.stderr, "office hook: the office on %s did not listen within %v: %v\n", dir, hookTimeout, err)
			return nil
		case <-tick.C:
		}
	}
}

// hookBlock is the answer of a turn-end hook that hands a message over:
// the CLI goes on with Reason as its next instruction (Claude Code's Stop
// hook; docs/channels.md).
type hookBlock struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// answerHook prints the server's answer for the CLI: {"decision":"block",
// "reason":TEXT} when it handed a message over, nothing otherwise.
func answerHook(e *env, res wire.HookResult) error {
	if res.Reason == "" {
		return nil
	}
	b, err := json.Marshal(hookBlock{Decision: "block", Reason: res.Reason})
	if err != nil {
		fmt.Fprintln(e.stderr, "office hook:", err)
		return nil
	}
	if _, err := fmt.Fprintf(e.stdout, "%s\n", b); err != nil {
		fmt.Fprintln(e.stderr, "office hook: writing the answer:", err)
	}
	return nil
}

// maxHookPayload bounds how much of a hook's payload is read: the fields
// office uses are a few ids and one reply, and a CLI's last reply beyond
// this is not worth the memory of each hook call.
const maxHookPayload = 1 << 20

// readStdin reads up to maxHookPayload of stdin, giving up when ctx ends (a
// hook runner that never closes stdin must not hang the call). whole is
// false when it gave up or the payload was longer (the rest is not read).
func readStdin(ctx context.Context, r io.Reader) (b []byte, whole bool) {
	if r == nil {
		return nil, true
	}
	done := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, maxHookPayload+1))
		done <- b
	}()
	select {
	case b := <-done:
		if len(b) > maxHookPayload {
			return b[:maxHookPayload], false
		}
		return b, true
	case <-ctx.Done():
		return nil, false
	}
}

// recordHook keeps the evidence a hook payload carries (the prompt Claude
// received, its last reply) in the agent's hook log, durably and before the
// engine is told: it must survive an engine that is down or killed.
func recordHook(e *env, dir, agent, event string, payload []byte) {
	rec, ok := records.HookFromPayload(event, payload, time.Now())
	if !ok {
		return
	}
	path, err := engine.HookLogPath(dir, agent)
	if err == nil {
		err = records.AppendHook(path, rec)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "office hook:", err)
	}
}
