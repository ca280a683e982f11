package main

// status.go is `office status`: the live engine's view of each agent.

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"office/drain"
	"office/engine"
)

func runStatus(ctx context.Context, e *env, g *globals, args []string) error {
	args, asJSON := takeFlag(args, "--json")
	args, explain := takeFlag(args, "--explain")
	if err := rejectFlags("status", args); err != nil {
		return err
	}
	if len(args) > 1 {
		return usagef("usage: office status [AGENT] [--json] [--explain]")
	}
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	req := engine.Request{Op: "status"}
	if len(args) == 1 {
		req.Agent = args[0]
	}
	if explain {
		return runExplain(ctx, e, dir, req, asJSON)
	}
	var st []engine.AgentStatus
	if err := engine.Call(ctx, dir, req, &st); err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tPROFILE\tSTATUS\tSIGNAL\tDRAFT\tHELD")
	for _, s := range st {
		status := s.Status
		if s.ExitCode != nil {
			status = fmt.Sprintf("exited (%d)", *s.ExitCode)
		}
		draft := ""
		if s.Draft {
			draft = string(drain.HoldDraft)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Profile, status, s.Signal, draft, s.Hold)
	}
	return tw.Flush()
}

// runExplain prints, per agent, its status, the signal that decided it and
// every signal office reads, strongest first.
func runExplain(ctx context.Context, e *env, dir string, req engine.Request, asJSON bool) error {
	req.Op = "explain"
	var xs []engine.Explanation
	if err := engine.Call(ctx, dir, req, &xs); err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(xs)
	}
	for i, x := range xs {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintf(e.stdout, "%s (%s): %s, decided by %s\n", x.Name, x.Profile, x.Status, x.Signal)
		if x.Error != "" {
			fmt.Fprintf(e.stdout, "  error: %s\n", x.Error)
		}
		if x.Hold != "" {
			fmt.Fprintf(e.stdout, "  held: %s\n", x.Hold)
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		for _, st := range x.Steps {
			mark := " "
			if st.Decides {
				mark = "*"
			}
			says := st.Says
			if says == "" {
				says = "-"
			}
			fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", mark, st.Signal, says, st.Detail)
		}
		tw.Flush()
		if x.PromptOK {
			fmt.Fprintf(e.stdout, "  prompt row: %q\n", x.Prompt)
		} else {
			fmt.Fprintln(e.stdout, "  prompt row: not found")
		}
		if x.Block != "" {
			fmt.Fprintf(e.stdout, "  gate: %s\n", x.Block)
		}
	}
	return nil
}
