package main

// report.go is `office report`: an agent records the outcome of its current
// turn (success, partial, failed, blocked) with an optional summary; its
// parent's notice for the turn carries it. Store-only.

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"office/engine"
	"office/inbox"
)

func newReportCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:       "report success|partial|failed|blocked [SUMMARY...|-]",
		Short:     "an agent reports the outcome of its turn to its parent (run by the agent: OFFICE_AGENT)",
		Args:      minArgs(1),
		ValidArgs: []cobra.Completion{"success", "partial", "failed", "blocked"},
		RunE: func(c *cobra.Command, args []string) error {
			if !inbox.ValidReport(args[0]) {
				return usagef("office report: %q is not an outcome (success, partial, failed, blocked)", args[0])
			}
			return runReport(c.Context(), e, g, args[0], args[1:])
		},
	}
}

func runReport(ctx context.Context, e *env, g *globals, outcome string, args []string) error {
	if strings.TrimSpace(e.getenv("OFFICE_AGENT")) == "" {
		return usagef("office report: run it from an agent of the office (OFFICE_AGENT is not set)")
	}
	// The summary is optional: blank is none.
	summary, err := readText(e, "summary", args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(summary) != "" {
		if err := checkBody("summary", summary); err != nil {
			return err
		}
	}
	svc, s, _, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	agent, err := sender(ctx, e, s)
	if err != nil {
		return err
	}
	// No server op reports: engine.Report is its one body.
	if err := engine.Report(ctx, svc, agent, outcome, summary); err != nil {
		return inboxErr(err)
	}
	fmt.Fprintf(e.stdout, "reported %s for %s\n", outcome, agent)
	return nil
}
