package main

// root.go builds the command line on cobra (github.com/spf13/cobra, the
// library gh and kubectl use): `--help` at every level, `--version`,
// `office completion bash|zsh|fish`, flags anywhere among the arguments,
// unknown flags refused, `--` ending flags.
//
// Adding a command is one file with one constructor, listed once in
// subcommands below:
//
//	// frob.go is `office frob AGENT [--json]`: what it does.
//	func newFrobCmd(e *env, g *globals) *cobra.Command {
//		var asJSON bool
//		c := &cobra.Command{
//			Use:   "frob AGENT",
//			Short: "one line for `office --help`",
//			Args:  exactArgs(1), // a wrong count is a usage error (exit 2)
//			RunE: func(c *cobra.Command, args []string) error {
//				return frob(c.Context(), e, g, args[0], asJSON)
//			},
//		}
//		c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
//		return c
//	}
//
// A command with subcommands (mail, queue, team) adds them with
// c.AddCommand in its own constructor; one that only groups them uses
// groupCmd. Every command must set Args (an arguments helper below), so a
// wrong count is a usage error. e is the outside world (stdin, stdout,
// environment: tests pass their own); g holds the global flags (--config,
// --state, --prefix), parsed before RunE runs. Return usagef(...) for a bad
// command line and &inputError{err} for bad input (exit 2: nothing was
// written); any other error exits 1.
//
// Porting a command written for the old hand-parsed table ({name, usage,
// short, run(ctx, e, g, args)}): declare its flags on c.Flags() instead of
// takeFlag/parseFlags/rejectFlags (gone), its argument count in Args, and
// call its body from RunE with c.Context(). caller(e) became sender(ctx, e,
// store) (it refuses an OFFICE_AGENT that is not an agent of the office) or
// senderOf(ctx, e, g) for commands that do not open the store; oneLine
// became cell (it also escapes control characters); a body from arguments
// or stdin comes from bodyArg (size, UTF-8 and blank checks).

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"office/configs"
	"office/engine"
	"office/queue"
	"office/ui"
)

// subcommands returns the constructors of office's commands, in the order
// `office --help` lists them.
func subcommands() []func(*env, *globals) *cobra.Command {
	return []func(*env, *globals) *cobra.Command{
		newRunCmd,
		newServeCmd,
		newStartCmd,
		newStopCmd,
		newAttachCmd,
		newEventsCmd,
		newWaitCmd,
		newSendCmd,
		newQueueCmd,
		newPauseCmd,
		newResumeCmd,
		newStatusCmd,
		newNeedsCmd,
		newMailCmd,
		newInboxCmd,
		newReportCmd,
		newApproveCmd,
		newWebCmd,
		newTeamCmd,
		newHookCmd,
		newHistoryCmd,
		newConfigCmd,
	}
}

// globals are the flags every command takes.
type globals struct {
	config string
	state  string
	// prefix is --prefix as given ("" when absent); the UI reads it.
	prefix string
}

// newRoot builds the whole command tree on e. `office` alone runs the UI.
func newRoot(e *env) *cobra.Command {
	g := &globals{}
	var uf uiFlags
	root := &cobra.Command{
		Use:   "office",
		Short: "an office of coding-agent CLIs in one terminal",
		Long: `office runs coding-agent CLIs (Claude Code, Codex, Gemini CLI, shells, any command)
side by side in one terminal, and queues messages for them that are typed in only
when safe: never into your half-written prompt, never twice, never lost.

Without a command, office opens the office's UI (as 'office run'): a client of
the office's server, which holds the agents and is started in the background
when none runs, so closing the window (or prefix d) only detaches.
Without --config it runs its embedded default: one pane per agent CLI on PATH
(claude, codex, gemini), or your shell. Without --state it uses $OFFICE_STATE,
else $XDG_STATE_HOME/office, else ~/.local/state/office.

Exit codes: 0 done; 2 a bad command line or bad input (nothing was written);
1 anything else.`,
		Version:       version(),
		Args:          noArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(c *cobra.Command, args []string) error {
			return runUI(c.Context(), e, g, uf, remoteFlags{})
		},
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			if g.prefix != "" {
				if _, err := ui.ParsePrefix(g.prefix); err != nil {
					return usagef("office: --prefix: %v", err)
				}
			}
			return nil
		},
	}
	root.SetVersionTemplate("office {{.Version}}\n")
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{msg: fmt.Sprintf("%s: %v", c.CommandPath(), err)}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&g.config, "config", "", "the office file (default: the one the state directory last ran, else the embedded default office)")
	pf.StringVar(&g.state, "state", "", "the state directory (default $OFFICE_STATE, else $XDG_STATE_HOME/office, else ~/.local/state/office)")
	pf.StringVar(&g.prefix, "prefix", "", "the UI's prefix key, C-] or C-a (default $OFFICE_PREFIX, else the config's, else C-])")
	uf.add(root)
	for _, mk := range subcommands() {
		root.AddCommand(mk(e, g))
	}
	return root
}

// version is the module version and the VCS revision this binary was built
// from, as the Go toolchain recorded them.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(no build info)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified, at string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		case "vcs.time":
			at = ", " + s.Value
		}
	}
	if rev == "" {
		return v + " (no VCS revision recorded; " + bi.GoVersion + ")"
	}
	return fmt.Sprintf("%s (revision %s%s%s; %s)", v, rev, modified, at, bi.GoVersion)
}

// groupCmd makes c a command that only groups its subcommands: without one,
// or with an unknown one, it is a usage error naming them.
func groupCmd(c *cobra.Command) *cobra.Command {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		var names []string
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		if len(args) == 0 {
			return usagef("%s: which one? (%s)", c.CommandPath(), strings.Join(names, ", "))
		}
		return usagef("%s: unknown subcommand %q (%s)", c.CommandPath(), args[0], strings.Join(names, ", "))
	}
	return c
}

// ---- positional arguments ----

// optionalArg is the one optional argument of a command whose Args is
// argsBetween(0, 1), such as an AGENT: "" when absent.
func optionalArg(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return ""
}

// argsBetween accepts from min to max positional arguments (max < 0: no
// upper bound); any other count is a usage error.
func argsBetween(min, max int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		n := len(args)
		if n >= min && (max < 0 || n <= max) {
			return nil
		}
		var want string
		switch {
		case min == max:
			want = fmt.Sprintf("%d argument(s)", min)
		case max < 0:
			want = fmt.Sprintf("at least %d argument(s)", min)
		default:
			want = fmt.Sprintf("%d to %d arguments", min, max)
		}
		return usagef("%s: wants %s, got %d", c.CommandPath(), want, n)
	}
}

func exactArgs(n int) cobra.PositionalArgs { return argsBetween(n, n) }
func minArgs(n int) cobra.PositionalArgs   { return argsBetween(n, -1) }

// noArgs refuses any positional argument; on the root, an unknown command.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if !c.HasParent() {
		return usagef("office: unknown command %q", args[0])
	}
	return usagef("%s: takes no arguments, got %q", c.CommandPath(), args[0])
}

// ---- errors and exit codes ----

// neverFails is the annotation of a command whose every error is reported on
// stderr and exits 0 (hook: a CLI runs it and must never be failed by it).
const neverFails = "office/never-fails"

// usageError is a command line that does not parse; exit code 2. Its
// message starts with the command ("office send: ...").
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// inputError marks bad input from the person (unknown agent, blank text):
// exit code 2, nothing written.
type inputError struct{ err error }

func (i *inputError) Error() string { return i.err.Error() }
func (i *inputError) Unwrap() error { return i.err }

// isInputError reports whether err is bad input (exit 2).
func isInputError(err error) bool {
	var ie *inputError
	if errors.As(err, &ie) {
		return true
	}
	for _, s := range []error{queue.ErrBlank, queue.ErrUnknownAgent, queue.ErrNotFound, queue.ErrTooLarge,
		queue.ErrInvalidUTF8, queue.ErrKeyConflict, queue.ErrBadKey, engine.ErrUnsafeStateDir, engine.ErrBadInput} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// exitCode maps a command's error to the process exit code: 0 success, 2 a
// usage or input error (the command wrote nothing), 1 anything else.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue) || isInputError(err):
		return 2
	}
	return 1
}

// ---- shared helpers ----

// loadConfig reads --config; without it, the office file the state
// directory's server last ran (lastfile.go), else the embedded default
// resolved against PATH. The notice (may be "") says which file was taken
// from the state directory, or which default agents were left out.
func loadConfig(g *globals, e *env) (*configs.Config, string, error) {
	cfg, notice, _, err := loadOfficeFile(g, e)
	return cfg, notice, err
}

// loadOfficeFile is loadConfig, also returning the path of the file loaded
// ("" for the embedded default), resolved once. An error in a file taken
// from the state directory's record says so (exit 2).
func loadOfficeFile(g *globals, e *env) (*configs.Config, string, string, error) {
	path, record, remembered, err := rememberedFile(g, e)
	if err != nil {
		return nil, "", "", err
	}
	if path != "" {
		c, err := configs.Load(path)
		if err != nil {
			if record != "" {
				return nil, "", "", rememberedError(path, record, err)
			}
			return nil, "", "", &inputError{err}
		}
		return c, remembered, path, nil
	}
	c, err := configs.Default()
	if err != nil {
		return nil, "", "", err
	}
	rc, notice, err := c.Resolve(lookPathIn(e.getenv("PATH")))
	if err != nil {
		return nil, "", "", err
	}
	return rc, joinNotices(remembered, notice), "", nil
}

// joinNotices joins the notices that are not empty.
func joinNotices(ns ...string) string {
	var out []string
	for _, n := range ns {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// stateDir resolves --state / OFFICE_STATE / XDG, creates a missing state
// directory (0700) and refuses an unsafe one (engine.OpenStateDir): every
// command that uses a state directory gets it here.
func stateDir(g *globals, e *env) (string, error) {
	return engine.OpenStateDir(g.state, e.getenv)
}

// clientStateDir is stateDir for a command that only talks to the running
// server over its socket (the UI, attach, status, events): the directory and
// its own entries are checked, not each agent's folder, which the server
// checked before it listened and which the command never opens
// (engine.OpenClientStateDir). Before it opens anything more of the
// directory or starts a server, a command checks it all (stateDir).
func clientStateDir(g *globals, e *env) (string, error) {
	return engine.OpenClientStateDir(g.state, e.getenv)
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

// printJSON writes v indented.
func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// completeAgent completes the first positional argument with the config's
// agent names (the shell's Tab; it reads the config, never the store).
func completeAgent(e *env, g *globals) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		cfg, _, err := loadConfig(g, e)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, n := range agentNames(cfg) {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
