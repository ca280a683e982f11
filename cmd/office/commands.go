package main

// commands.go is the table of subcommands: each declares its name, usage and
// one run function; usage errors and --help come from the table.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"office/configs"
	"office/engine"
	"office/queue"
)

// command is one subcommand.
type command struct {
	name  string
	usage string // arguments after the name
	short string // one line for `office help`
	run   func(ctx context.Context, e *env, g *globals, args []string) error
}

// commands returns the table, in the order `office help` lists it.
func commands() []command {
	return []command{
		{"run", "", "open the office with its UI (the default)", runUI},
		{"serve", "", "run the office's engine without a UI", runServe},
		{"send", "AGENT TEXT... | AGENT -", "queue a message for an agent (TEXT, or stdin with -); prints its id", runSend},
		{"queue", "[AGENT] [--json] | release ID | rm ID | clear AGENT", "list queued messages with why each is held, or edit the queue", runQueue},
		{"pause", "AGENT | --all", "pause automatic delivery to an agent, or the whole floor", runPause},
		{"resume", "AGENT | --all", "resume automatic delivery (--all clears the floor pause and every agent's)", runResume},
		{"status", "[AGENT] [--json] [--explain]", "each agent's status and the signal that decided it (needs a running office)", runStatus},
		{"mail", "send|reply|ls|show|cancel ...", "mail between agents and the person (run 'office mail' for its subcommands)", runMail},
		{"inbox", "[AGENT|--person] [--json] | show ID", "undelivered inbox items of an agent or the person", runInbox},
		{"report", "success|partial|failed|blocked [SUMMARY]", "an agent reports the outcome of its turn to its parent", runReport},
		{"approve", "AGENT OPTION", "answer an agent's permission dialog (an option number or label)", runApprove},
		{"team", "[--json] | add NAME --profile P ... | rm NAME", "the roster; add or remove agents while the office runs", runTeam},
		{"hook", "EVENT", "called by a CLI's hooks (Claude Code) to report its state", runHook},
		{"config", "show [--json]", "every setting with its value, source (default or FILE:LINE) and the rule it comes from", runConfig},
		{"help", "", "show this help", nil},
	}
}

// globals are the flags every command takes.
type globals struct {
	config string
	state  string
}

// usageError is a command line that does not parse; exit code 2.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// errHelpShown stops a command after it printed its help.
var errHelpShown = errors.New("help shown")

// inputError marks bad input from the person (unknown agent, blank text):
// exit code 2, nothing written.
type inputError struct{ err error }

func (i *inputError) Error() string { return i.err.Error() }
func (i *inputError) Unwrap() error { return i.err }

func isInputError(err error) bool {
	var ie *inputError
	var le *engine.LockedError
	return errors.As(err, &ie) || errors.As(err, &le) ||
		errors.Is(err, queue.ErrBlank) || errors.Is(err, queue.ErrUnknownAgent) || errors.Is(err, queue.ErrNotFound)
}

// dispatch finds the command and runs it with its flags parsed.
func dispatch(ctx context.Context, e *env, args []string) error {
	name := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if name == "help" || name == "-h" || name == "--help" {
		printHelp(e.stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name != name || c.run == nil {
			continue
		}
		g, rest, err := parseGlobals(c, args, e.stderr)
		if err != nil {
			return err
		}
		return c.run(ctx, e, g, rest)
	}
	return usagef("unknown command %q (see 'office help')", name)
}

// parseGlobals takes --config and --state from anywhere in args and returns
// the other arguments in order. Command-specific flags (--json, --all) stay in
// the rest for the command to read.
func parseGlobals(c command, args []string, stderr io.Writer) (*globals, []string, error) {
	g := &globals{}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprintf(stderr, "usage: office %s %s\n  %s\nflags: --config FILE  --state DIR\n", c.name, c.usage, c.short)
			return nil, nil, errHelpShown
		case a == "--config" || a == "--state":
			if i+1 >= len(args) {
				return nil, nil, usagef("office %s: %s needs a value", c.name, a)
			}
			if a == "--config" {
				g.config = args[i+1]
			} else {
				g.state = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "--config="):
			g.config = strings.TrimPrefix(a, "--config=")
		case strings.HasPrefix(a, "--state="):
			g.state = strings.TrimPrefix(a, "--state=")
		case a == "--":
			rest = append(rest, args[i+1:]...)
			return g, rest, nil
		default:
			rest = append(rest, a)
		}
	}
	return g, rest, nil
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "office: an office of coding-agent CLIs in one terminal")
	fmt.Fprintln(w, "\nusage: office [COMMAND] [--config FILE] [--state DIR] [ARGS]")
	fmt.Fprintln(w, "\ncommands:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.name, c.usage, c.short)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nWithout --config, office runs its embedded default: one pane per agent CLI on PATH")
	fmt.Fprintln(w, "(claude, codex, gemini), or your shell. Without --state it uses $OFFICE_STATE,")
	fmt.Fprintln(w, "else $XDG_STATE_HOME/office, else ~/.local/state/office.")
}

// loadConfig reads --config, or the embedded default resolved against PATH.
// The notice (may be "") says which default agents were left out.
func loadConfig(g *globals, e *env) (*configs.Config, string, error) {
	if g.config != "" {
		c, err := configs.Load(g.config)
		if err != nil {
			return nil, "", &inputError{err}
		}
		return c, "", nil
	}
	c, err := configs.Default()
	if err != nil {
		return nil, "", err
	}
	rc, notice, err := c.Resolve(lookPathIn(e.getenv("PATH")))
	if err != nil {
		return nil, "", err
	}
	return rc, notice, nil
}

// stateDir resolves --state / OFFICE_STATE / XDG.
func stateDir(g *globals, e *env) (string, error) {
	return engine.StateDir(g.state, e.getenv)
}

// takeFlag removes a boolean flag from args and reports whether it was there.
func takeFlag(args []string, name string) ([]string, bool) {
	out := args[:0:0]
	found := false
	for _, a := range args {
		if a == name {
			found = true
			continue
		}
		out = append(out, a)
	}
	return out, found
}

// rejectFlags returns a usage error for any argument that looks like a flag.
func rejectFlags(cmd string, args []string) error {
	for _, a := range args {
		if strings.HasPrefix(a, "--") {
			return usagef("office %s: unknown flag %s", cmd, a)
		}
	}
	return nil
}

// agentNames lists a config's agent names, sorted.
func agentNames(c *configs.Config) []string {
	var names []string
	for _, a := range c.Agents {
		names = append(names, a.Name)
	}
	sort.Strings(names)
	return names
}
