package main

// team.go is `office team`: the roster of the running office (name, role,
// profile, parent, status, queue and inbox depth), and `team add` / `team
// rm`, which start or stop an agent in it. All three need a running office.

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"office/engine"
)

const teamUsage = `usage:
  office team [--json]
  office team add NAME --profile P [--cwd DIR] [--role R] [--parent A] [--task T] [--command "PROG ARGS"] [--env K=V]...
  office team rm NAME`

func runTeam(ctx context.Context, e *env, g *globals, args []string) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	if len(args) > 0 && args[0] == "add" {
		return teamAdd(ctx, e, dir, args[1:])
	}
	if len(args) > 0 && args[0] == "rm" {
		if len(args) != 2 {
			return usagef("%s", teamUsage)
		}
		raw, _ := json.Marshal(map[string]string{"name": args[1], "by": caller(e)})
		if err := engine.Call(ctx, dir, engine.Request{Op: "team.rm", Args: raw}, nil); err != nil {
			return fmt.Errorf("team rm %s: %w", args[1], err)
		}
		fmt.Fprintf(e.stdout, "removed %s (its queue and inbox are kept until purged)\n", args[1])
		return nil
	}
	fs, rest, err := parseFlags("team", args, nil, []string{"--json"})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("%s", teamUsage)
	}
	var members []engine.TeamMember
	if err := engine.Call(ctx, dir, engine.Request{Op: "team"}, &members); err != nil {
		return err
	}
	if fs.bools["--json"] {
		if members == nil {
			members = []engine.TeamMember{}
		}
		return printJSON(e, members)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROLE\tPROFILE\tPARENT\tSTATUS\tQUEUE\tINBOX")
	for _, m := range members {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", m.Name, m.Role, m.Profile, m.Parent, m.Status, m.Queue, m.Inbox)
	}
	return tw.Flush()
}

func teamAdd(ctx context.Context, e *env, dir string, args []string) error {
	// --env may repeat: collect it first.
	env := map[string]string{}
	var other []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--env" && i+1 < len(args):
			k, v, ok := strings.Cut(args[i+1], "=")
			if !ok || k == "" {
				return usagef("office team add: --env wants KEY=VALUE, got %q", args[i+1])
			}
			env[k] = v
			i++
		case strings.HasPrefix(a, "--env="):
			k, v, ok := strings.Cut(strings.TrimPrefix(a, "--env="), "=")
			if !ok || k == "" {
				return usagef("office team add: --env wants KEY=VALUE, got %q", a)
			}
			env[k] = v
		default:
			other = append(other, a)
		}
	}
	fs, rest, err := parseFlags("team add", other, []string{"--profile", "--cwd", "--role", "--parent", "--task", "--command"}, nil)
	if err != nil {
		return err
	}
	if len(rest) != 1 || (fs.values["--profile"] == "" && fs.values["--command"] == "") {
		return usagef("%s", teamUsage)
	}
	spec := engine.TeamSpec{Name: rest[0], Profile: fs.values["--profile"], Role: fs.values["--role"],
		Parent: fs.values["--parent"], Task: fs.values["--task"], Command: strings.Fields(fs.values["--command"])}
	if len(env) > 0 {
		spec.Env = env
	}
	if c := fs.values["--cwd"]; c != "" {
		abs, err := filepath.Abs(c)
		if err != nil {
			return fmt.Errorf("team add: cwd: %w", err)
		}
		spec.Cwd = abs
	}
	raw, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		return err
	}
	var out map[string]string
	if err := engine.Call(ctx, dir, engine.Request{Op: "team.add", Args: raw}, &out); err != nil {
		return fmt.Errorf("team add %s: %w", spec.Name, err)
	}
	fmt.Fprintf(e.stdout, "added %s (profile %s)\n", out["name"], out["profile"])
	return nil
}
