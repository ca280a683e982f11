package main

// team.go is `office team`: the roster of the running office (name, role,
// profile, parent, status, queue and inbox depth; in a clustered office
// every agent of the floor with its host), and `team add` / `team rm`,
// which start or stop an agent in it. All three need a running office.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"office/engine"
	"office/wire"
)

func newTeamCmd(e *env, g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "team",
		Short: "the roster; add or remove agents while the office runs (add, rm)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return listTeam(c.Context(), e, g, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.AddCommand(newTeamAddCmd(e, g), &cobra.Command{
		Use:   "rm NAME",
		Short: "stop an agent and remove it from the team (its queue and inbox are kept until purged)",
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return teamRm(c.Context(), e, g, args[0])
		},
	})
	return c
}

func listTeam(ctx context.Context, e *env, g *globals, asJSON bool) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	members, err := engine.Do(ctx, dir, wire.OpTeam, "", wire.None{})
	if err != nil {
		return err
	}
	if asJSON {
		if members == nil {
			members = []engine.TeamMember{}
		}
		return printJSON(e, members)
	}
	if err := printTeam(e.stdout, members, time.Now()); err != nil {
		return err
	}
	places := make([]engine.Placement, len(members))
	for i, m := range members {
		places[i] = m.Placement
	}
	return printHosts(ctx, e, dir, places)
}

// printTeam prints the roster table; in a clustered office (rows carry their
// host) with a HOST column, and an agent of another host with no queue or
// inbox depth here ("-") and, when its host is unreachable, its last-known
// status marked so.
func printTeam(w io.Writer, members []engine.TeamMember, now time.Time) error {
	clustered := len(members) > 0 && members[0].Host != ""
	tw := newTable(w)
	if clustered {
		fmt.Fprintln(tw, "NAME\tHOST\tROLE\tPROFILE\tPARENT\tSTATUS\tQUEUE\tINBOX")
	} else {
		fmt.Fprintln(tw, "NAME\tROLE\tPROFILE\tPARENT\tSTATUS\tQUEUE\tINBOX")
	}
	for _, m := range members {
		if clustered {
			fmt.Fprintf(tw, "%s\t%s\t", cell(m.Name, 0), cell(m.Host, 0))
		} else {
			fmt.Fprintf(tw, "%s\t", cell(m.Name, 0))
		}
		queued, inbox := fmt.Sprint(m.Queue), fmt.Sprint(m.Inbox)
		if m.Remote {
			queued, inbox = "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(m.Role, 40), cell(m.Profile, 0), cell(m.Parent, 0), floorStatus(m.Status, m.Placement, now), queued, inbox)
	}
	return tw.Flush()
}

func teamRm(ctx context.Context, e *env, g *globals, name string) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	by, err := senderOf(ctx, e, g)
	if err != nil {
		return err
	}
	if _, err := engine.Do(ctx, dir, wire.OpTeamRemove, "", wire.TeamRmArgs{Name: name, By: by}); err != nil {
		return callFailed("team rm", name, err)
	}
	fmt.Fprintf(e.stdout, "removed %s (its queue and inbox are kept until purged)\n", name)
	return nil
}

// teamAddFlags are `office team add`'s flags.
type teamAddFlags struct {
	profile, cwd, role, parent, task string
	command, env                     []string
}

func newTeamAddCmd(e *env, g *globals) *cobra.Command {
	var f teamAddFlags
	c := &cobra.Command{
		Use:   "add NAME (--profile P | --command ARG... | -- PROG ARGS...)",
		Short: "start a new agent in the running office",
		Long: `Start a new agent in the running office. Its command is a real argv, never split
on spaces: repeat --command for each word, or put the whole command after "--".`,
		Example: `  office team add reviewer --profile claude --role "reviews diffs" --parent planner
  office team add tests --command bash --command -lc --command "make watch"
  office team add tests --env CI=1 -- bash -lc "make watch"`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			name := args[0]
			command := f.command
			if dash := c.ArgsLenAtDash(); dash >= 0 {
				if dash != 1 {
					return usagef("office team add: give NAME before \"--\" and the command after it")
				}
				if len(command) > 0 {
					return usagef("office team add: give the command with --command or after \"--\", not both")
				}
				command = args[1:]
			} else if len(args) > 1 {
				return usagef("office team add: unexpected argument %q (a command goes after \"--\" or in --command)", args[1])
			}
			if f.profile == "" && len(command) == 0 {
				return usagef("office team add: give --profile or a command")
			}
			return teamAdd(c.Context(), e, g, name, command, f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.profile, "profile", "", "the profile: claude, codex, gemini, shell, custom or one of the config's")
	fl.StringVar(&f.cwd, "cwd", "", "its working directory")
	fl.StringVar(&f.role, "role", "", "its role, shown in the roster and its brief")
	fl.StringVar(&f.parent, "parent", "", "the agent its notices go to")
	fl.StringVar(&f.task, "task", "", "its first task")
	fl.StringArrayVar(&f.command, "command", nil, "one word of its command (repeat for each word)")
	fl.StringArrayVar(&f.env, "env", nil, "KEY=VALUE for its environment (repeatable)")
	return c
}

func teamAdd(ctx context.Context, e *env, g *globals, name string, command []string, f teamAddFlags) error {
	spec := engine.TeamSpec{Name: name, Profile: f.profile, Role: f.role, Parent: f.parent, Task: f.task, Command: command}
	for _, kv := range f.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("office team add: --env wants KEY=VALUE, got %q", kv)
		}
		if spec.Env == nil {
			spec.Env = map[string]string{}
		}
		spec.Env[k] = v
	}
	if f.cwd != "" {
		abs, err := filepath.Abs(f.cwd)
		if err != nil {
			return fmt.Errorf("team add: cwd: %w", err)
		}
		spec.Cwd = abs
	}
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	if _, err := senderOf(ctx, e, g); err != nil {
		return err
	}
	out, err := engine.Do(ctx, dir, wire.OpTeamAdd, "", wire.TeamAddArgs{Spec: spec})
	if err != nil {
		// A name in use (here or on another host of the floor) is bad
		// input: the engine's answer wraps engine.ErrBadInput.
		return callFailed("team add", spec.Name, err)
	}
	fmt.Fprintf(e.stdout, "added %s (profile %s)\n", out.Name, out.Profile)
	return nil
}
