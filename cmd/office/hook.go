package main

// hook.go is `office hook EVENT`: run by a CLI's own hooks (Claude Code's,
// from the settings file office writes for each agent), it reads the hook's
// JSON payload on stdin and reports the event to the running office, which
// turns it into the agent's status (the strongest signal). It never fails
// the CLI: problems go to stderr and the exit code is 0.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"office/engine"
	"office/records"
)

// hookTimeout bounds the whole call: a hook must never stall the CLI.
const hookTimeout = 2 * time.Second

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
	payload := readStdin(ctx, e.stdin)
	hargs := engine.DecodeHookPayload(event, payload)
	dir, err := stateDir(g, e)
	if err != nil {
		fmt.Fprintln(e.stderr, "office hook:", err)
		return nil
	}
	recordHook(e, dir, agent, event, payload)
	req := engine.Request{Op: "hook", Agent: agent, Event: hargs.Event}
	if req.Args, err = json.Marshal(hargs); err == nil {
		err = engine.Call(ctx, dir, req, nil)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "office hook:", err)
	}
	return nil
}

// readStdin reads up to 1 MiB of stdin, giving up when ctx ends (a hook
// runner that never closes stdin must not hang the call).
func readStdin(ctx context.Context, r io.Reader) []byte {
	if r == nil {
		return nil
	}
	done := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, 1<<20))
		done <- b
	}()
	select {
	case b := <-done:
		return b
	case <-ctx.Done():
		return nil
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
