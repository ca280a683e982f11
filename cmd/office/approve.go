package main

// approve.go is `office approve AGENT OPTION`: answer an agent's permission
// or question dialog with an option number or label. It is an explicit act
// of the person (or of the parent agent, named by OFFICE_AGENT), logged with
// who did it; the running engine types the choice. Needs a running office.
// On a floor, an agent of another host is answered by that host's engine:
// the approval crosses through the outbox and its outcome comes back.

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"office/engine"
	"office/wire"
)

func newApproveCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:               "approve AGENT OPTION",
		Short:             "answer an agent's permission dialog (an option number or its label)",
		Args:              minArgs(2),
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			return runApprove(c.Context(), e, g, args)
		},
	}
}

func runApprove(ctx context.Context, e *env, g *globals, args []string) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	by, err := senderOf(ctx, e, g)
	if err != nil {
		return err
	}
	// An agent of another host of the floor answers with Host and ID set.
	out, err := engine.Do(ctx, dir, wire.OpApprove, "", wire.ApproveArgs{Agent: args[0], Option: strings.Join(args[1:], " "), By: by})
	if err != nil {
		return callFailed("approve", args[0], err)
	}
	switch {
	case out.Host == "":
		fmt.Fprintf(e.stdout, "answered %s's dialog with option %s\n", args[0], out.Option)
	case out.Stored:
		fmt.Fprintf(e.stdout, "%s\napproval of %s's dialog stored for host %s: its outcome comes as a notice\n", out.ID, args[0], out.Host)
	default:
		fmt.Fprintf(e.stdout, "answered %s's dialog on host %s with option %s\n", args[0], out.Host, out.Option)
	}
	return nil
}
