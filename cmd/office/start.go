package main

// start.go is `office start` (also `office serve --background`): the server
// detached from the terminal, in its own session with no controlling
// terminal, its stdin /dev/null and its output in the state dir's log, so a
// SIGHUP or the death of the terminal that started it never reaches it.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"office/configs"
	"office/engine"
	"office/wire"
)

// startWait bounds how long start waits for the new server to answer.
const startWait = configs.StartWait

// startPoll is how often start looks whether the server answers yet.
const startPoll = 50 * time.Millisecond

func newStartCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "start",
		Short: "start the office's server in the background (detached from this terminal)",
		Long: `Start the office's server detached from this terminal: its own session, no
controlling terminal, stdin /dev/null and its output in the state directory's
office.log, so closing the terminal never stops the agents. Returns once the
server answers. Already running: says so, exit 0. 'office stop' stops it.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return startBackground(c.Context(), e, g)
		},
	}
}

// startBackground starts `office serve` detached and returns once it
// answers on its socket.
func startBackground(ctx context.Context, e *env, g *globals) error {
	return startServer(ctx, e, g, e.stderr)
}

// startServer is startBackground saying what it did on say.
func startServer(ctx context.Context, e *env, g *globals, say io.Writer) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	if err := engine.EnsureStateDir(dir); err != nil {
		return err
	}
	if engine.Running(dir) {
		fmt.Fprintf(say, "office: %s\n", runningServer(dir))
		return nil
	}
	// A bad office file is said here, with its file and line (exit 2), not
	// in the log of a server that exits at once; over ssh (attach --stdio
	// --start) this is the only place the person sees it.
	cfg, remembered, path, err := loadOfficeFile(g, e)
	if err != nil {
		return err
	}
	if n := joinNotices(remembered, waitingNotice(ctx, dir, cfg)); n != "" {
		fmt.Fprintln(say, "office:", n)
	}
	args := []string{"serve", "--state", dir}
	if path != "" {
		cfg, err := filepath.Abs(path)
		if err != nil {
			return fmt.Errorf("start: config %q: %w", path, err)
		}
		args = append(args, "--config", cfg)
	}
	logPath := filepath.Join(dir, engine.LogFile)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("start: open log: %w", err)
	}
	defer logf.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer null.Close()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = e.environ
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, logf, logf
	// Setsid: a new session and process group, no controlling terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start: run %s: %w", e.bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.NewTimer(startWait)
	defer deadline.Stop()
	tick := time.NewTicker(startPoll)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("start: the server exited at once (%v); see %s", err, logPath)
		case <-deadline.C:
			return fmt.Errorf("start: the server (pid %d) did not answer within %v; see %s", cmd.Process.Pid, startWait, logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := engine.Do(cctx, dir, wire.OpStatus, "", wire.None{})
		cancel()
		if err == nil {
			fmt.Fprintf(say, "office: started (pid %d); state in %s\n", cmd.Process.Pid, dir)
			return nil
		}
		if !errors.Is(err, engine.ErrNoEngine) {
			return fmt.Errorf("start: %w", err)
		}
	}
}
