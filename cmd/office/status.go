package main

// status.go is `office status`: the live engine's view of each agent.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"office/drain"
	"office/engine"
	"office/queue"
)

func newStatusCmd(e *env, g *globals) *cobra.Command {
	var asJSON, explain bool
	c := &cobra.Command{
		Use:   "status [AGENT]",
		Short: "each agent's status and the signal that decided it (needs a running office)",
		Long: `Each agent's live status (starting, idle, busy, waiting, exited), the signal
that decided it, whether your draft is on its prompt and why delivery is held.
--explain prints the status judge's steps: every signal it reads, what each
found and said, and which one decided (*).
An unknown AGENT is exit 2.`,
		Args:              argsBetween(0, 1),
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			agent := ""
			if len(args) == 1 {
				agent = args[0]
			}
			return runStatus(c.Context(), e, g, agent, asJSON, explain)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&explain, "explain", false, "print the status judge's steps: every signal, what it found and which one decided")
	return c
}

func runStatus(ctx context.Context, e *env, g *globals, agent string, asJSON, explain bool) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	var st []engine.AgentStatus
	if err := engine.Call(ctx, dir, engine.Request{Op: "status"}, &st); err != nil {
		return err
	}
	if agent != "" {
		st, err = oneAgent(st, agent)
		if err != nil {
			return err
		}
	}
	req := engine.Request{Op: "status", Agent: agent}
	if explain {
		return runExplain(ctx, e, dir, req, asJSON)
	}
	if asJSON {
		return printJSON(e, st)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(s.Name, 0), cell(s.Profile, 0), status, cell(s.Signal, 0), draft, cell(s.Hold, 0))
	}
	if err := tw.Flush(); err != nil || agent != "" {
		return err
	}
	return printFloor(ctx, e, dir)
}

// oneAgent picks agent's row out of the running office's statuses; an agent
// the office does not run is an inputError (exit 2) naming the ones it runs.
func oneAgent(st []engine.AgentStatus, agent string) ([]engine.AgentStatus, error) {
	var names []string
	for _, s := range st {
		if s.Name == agent {
			return []engine.AgentStatus{s}, nil
		}
		names = append(names, s.Name)
	}
	return nil, &inputError{fmt.Errorf("status: %w %q (the office runs: %s)", queue.ErrUnknownAgent, agent, strings.Join(names, ", "))}
}

// runExplain prints, per agent, its status, the signal that decided it and
// the status judge's steps as the engine reports them (engine.Explanation):
// nothing is re-derived here.
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
		if x.Judged != "" && (x.Judged != x.Status || x.JudgedSignal != x.Signal) {
			fmt.Fprintf(e.stdout, "  judged now: %s by %s (the status follows after the debounce)\n", x.Judged, x.JudgedSignal)
		}
		if x.BootOverdue {
			fmt.Fprintln(e.stdout, "  never showed the profile's ready signal within the boot grace")
		}
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
