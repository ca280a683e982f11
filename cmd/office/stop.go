package main

// stop.go is `office stop`: the server stops its agents (their process groups
// get SIGHUP, then SIGKILL) and exits; queue, inbox and mail stay in the
// store for the next start.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"office/client"
	"office/engine"
	"office/wire"
)

// stopWait bounds how long stop waits for the server to be gone.
const stopWait = 30 * time.Second

func newStopCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "stop the server and its agents (queue, inbox and mail are kept)",
		Long: `Stop the office's server: every agent's process group gets SIGHUP (SIGKILL
after 2 s), attached clients are told, and the server exits; queue, inbox and
mail stay in the store for the next start. With no server running: exit 1.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runStop(c.Context(), e, g)
		},
	}
}

func runStop(ctx context.Context, e *env, g *globals) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	if !engine.Running(dir) {
		return fmt.Errorf("stop: no office is running on state directory %s", dir)
	}
	if _, err := engine.Do(ctx, dir, wire.OpStop, "", wire.None{}); err != nil && !client.Stopping(err) {
		if errors.Is(err, engine.ErrNoEngine) {
			return fmt.Errorf("stop: no office is running on state directory %s", dir)
		}
		return fmt.Errorf("stop: %w", err)
	}
	deadline := time.Now().Add(stopWait)
	for engine.Running(dir) {
		if time.Now().After(deadline) {
			return fmt.Errorf("stop: the office on %s is still running after %v", dir, stopWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(startPoll):
		}
	}
	fmt.Fprintf(e.stderr, "office: stopped; queue, inbox and mail are kept in %s\n", dir)
	return nil
}
