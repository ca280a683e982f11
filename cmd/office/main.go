// Command office runs an office of coding-agent CLIs side by side in one
// terminal, and is also the command line through which people and agents
// queue messages for them. `office` alone opens the office on its embedded
// default config; `office --help` lists the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"office/client"
	"office/engine"
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
	stopProfiles := startProfiles(os.Getenv, os.Stderr)
	code := run(ctx, e, os.Args[1:])
	stopProfiles()
	os.Exit(code)
}

// run executes one command line and returns the process exit code: 0
// success, 2 a usage or input error (the command wrote nothing), 1 anything
// else (see exitCode). Errors go to stderr, a usage error with the way to the
// command's help.
func run(ctx context.Context, e *env, args []string) int {
	root := newRoot(e)
	root.SetArgs(args)
	c, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	if c != nil && c.Annotations[neverFails] != "" {
		fmt.Fprintf(e.stderr, "office %s: %v (ignored)\n", c.Name(), err)
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		// A usage error names its command ("office send: ...").
		fmt.Fprintln(e.stderr, err)
		if c != nil {
			fmt.Fprintf(e.stderr, "usage: %s\nRun '%s --help' for more.\n", c.UseLine(), c.CommandPath())
		}
		return 2
	}
	fmt.Fprintf(e.stderr, "office: %v\n", err)
	if noServer(err) && (c == nil || c.Name() != "stop") {
		fmt.Fprintln(e.stderr, "office: start it with 'office start' (or 'office' to open the UI)")
	}
	return exitCode(err)
}

// noServer reports whether err says no office server runs on the state
// directory (the one-shot socket's or the client socket's words).
func noServer(err error) bool {
	return errors.Is(err, engine.ErrNoEngine) || errors.Is(err, client.ErrNoServer)
}

// callFailed is the error of an engine call made for `office OP WHAT`: the
// office's own answer already names the operation and what it was about
// ("engine: team add \"zz\": ..."), so it is said once, without the engine's
// package prefix; any other failure (no office running, a broken socket) is
// named "OP WHAT: ...".
func callFailed(op, what string, err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "engine: "+op); ok && (rest == "" || rest[0] == ' ' || rest[0] == ':') {
		return &restated{msg: strings.TrimPrefix(msg, "engine: "), err: err}
	}
	return fmt.Errorf("%s %s: %w", op, what, err)
}

// restated is err said in other words; errors.Is and As see err.
type restated struct {
	msg string
	err error
}

func (r *restated) Error() string { return r.msg }
func (r *restated) Unwrap() error { return r.err }
