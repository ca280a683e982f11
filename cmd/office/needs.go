package main

// needs.go is `office needs`: the needs-you list (docs/needs.md), every agent
// or item waiting on the person, oldest first.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"office/engine"
	"office/wire"
)

func newNeedsCmd(e *env, g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "needs [AGENT]",
		Short: "what waits on you: dialogs, held messages, requests, failed agents, finished turns",
		Long: `The needs-you list: every agent or item waiting on you, oldest first, with
why and a short excerpt: a permission or trust dialog (with its options, for
'office approve AGENT NUMBER'), the usage-limit menu, a message held for your
decision, a request mail to you, an agent that failed, stalled or exited and
will not restart by itself, a turn finished by an agent with no parent, an item
another host refused. --json prints one JSON object per line (agent, host,
reason, since, excerpt, options, ref). Of AGENT only when given (exit 2 for an
unknown one). Needs a running office (exit 1 without one).`,
		Args:              argsBetween(0, 1),
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			agent := optionalArg(args)
			return runNeeds(c.Context(), e, g, agent, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per line")
	return c
}

func runNeeds(ctx context.Context, e *env, g *globals, agent string, asJSON bool) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	needs, err := engine.Do(ctx, dir, wire.OpNeeds, agent, wire.None{})
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, n := range needs {
			if err := enc.Encode(n); err != nil {
				return err
			}
		}
		return nil
	}
	return printNeeds(e.stdout, needs, time.Now())
}

// printNeeds prints the list as a table, a dialog's options under it.
func printNeeds(w io.Writer, needs []wire.Need, now time.Time) error {
	if len(needs) == 0 {
		_, err := fmt.Fprintln(w, "nothing waits on you")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SINCE\tAGENT\tREASON\tWHAT")
	for _, n := range needs {
		who := n.Agent
		if n.Host != "" {
			who += "@" + n.Host
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", age(max(now.Sub(n.Since), 0)), who, n.Reason, n.Excerpt)
		if len(n.Options) > 0 {
			fmt.Fprintf(tw, "\t\t\t%s\n", strings.Join(n.Options, "  "))
		}
	}
	return tw.Flush()
}
