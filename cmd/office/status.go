package main

// status.go is `office status`: the live engine's view of each agent.

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"office/engine"
)

func runStatus(ctx context.Context, e *env, g *globals, args []string) error {
	args, asJSON := takeFlag(args, "--json")
	args, _ = takeFlag(args, "--explain")
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
			draft = "your draft"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Profile, status, s.Signal, draft, s.Hold)
	}
	return tw.Flush()
}
