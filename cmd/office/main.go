// Command office runs an office of coding-agent CLIs side by side in one
// terminal, and is also the command line through which people and agents
// queue messages for them. `office` alone opens the office on its embedded
// default config; `office help` lists the subcommands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// env is what a command may touch of the outside world; tests pass their own.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// environ is the office's own environment (for agents' allowlist).
	environ []string
	// bin is the absolute path of this binary.
	bin string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	bin, err := os.Executable()
	if err != nil {
		bin = os.Args[0]
	}
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ(), bin: bin}
	os.Exit(run(ctx, e, os.Args[1:]))
}

// run executes one command line and returns the process exit code: 0 success,
// 2 a usage or input error (the command wrote nothing), 1 anything else.
func run(ctx context.Context, e *env, args []string) int {
	err := dispatch(ctx, e, args)
	if err == nil {
		return 0
	}
	if errors.Is(err, errHelpShown) {
		return 0
	}
	fmt.Fprintf(e.stderr, "office: %v\n", err)
	var ue *usageError
	if errors.As(err, &ue) || isInputError(err) {
		return 2
	}
	return 1
}
