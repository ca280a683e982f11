package main

// status.go is `office status`: the live engine's view of each agent and,
// in a clustered office, of every agent of the floor with its host.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"office/drain"
	"office/engine"
	"office/queue"
	"office/wire"
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
			agent := optionalArg(args)
			return runStatus(c.Context(), e, g, agent, asJSON, explain)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&explain, "explain", false, "print the status judge's steps: every signal, what it found and which one decided")
	return c
}

func runStatus(ctx context.Context, e *env, g *globals, agent string, asJSON, explain bool) error {
	dir, err := clientStateDir(g, e)
	if err != nil {
		return err
	}
	st, err := engine.Do(ctx, dir, wire.OpStatus, "", wire.None{})
	if err != nil {
		return err
	}
	if agent != "" {
		st, err = oneAgent(st, agent)
		if err != nil {
			return err
		}
	}
	if explain && agent != "" && st[0].Remote {
		return &inputError{fmt.Errorf("status --explain %s: it runs on host %s; its status judge's steps are there", agent, st[0].Host)}
	}
	if explain {
		return runExplain(ctx, e, dir, agent, asJSON)
	}
	if asJSON {
		return printJSON(e, st)
	}
	if err := printStatus(e.stdout, st, time.Now()); err != nil || agent != "" {
		return err
	}
	places := make([]engine.Placement, len(st))
	for i, s := range st {
		places[i] = s.Placement
	}
	return printHosts(ctx, e, dir, places)
}

// printStatus prints the status table; in a clustered office (rows carry
// their host) with a HOST column, an agent of an unreachable host with its
// last-known status marked so.
func printStatus(w io.Writer, st []engine.AgentStatus, now time.Time) error {
	clustered := len(st) > 0 && st[0].Host != ""
	tw := newTable(w)
	if clustered {
		fmt.Fprintln(tw, "AGENT\tHOST\tPROFILE\tSTATUS\tSIGNAL\tDRAFT\tHELD")
	} else {
		fmt.Fprintln(tw, "AGENT\tPROFILE\tSTATUS\tSIGNAL\tDRAFT\tHELD")
	}
	for _, s := range st {
		status := floorStatus(s.Status, s.Placement, now)
		if s.ExitCode != nil {
			status = fmt.Sprintf("exited (%d)", *s.ExitCode)
			if !s.RestartAt.IsZero() {
				status += ", restarting in " + max(s.RestartAt.Sub(now), 0).Round(time.Second).String()
			}
		}
		draft := ""
		if s.Draft {
			draft = string(drain.HoldDraft)
		}
		if clustered {
			fmt.Fprintf(tw, "%s\t%s\t", cell(s.Name, 0), cell(s.Host, 0))
		} else {
			fmt.Fprintf(tw, "%s\t", cell(s.Name, 0))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cell(s.Profile, 0), status, cell(s.Signal, 0), draft, cell(s.Hold, 0))
	}
	return tw.Flush()
}

// floorStatus is an agent's status as a table shows it: an agent of an
// unreachable host says its status is the last one known, and since when.
func floorStatus(status string, p engine.Placement, now time.Time) string {
	status = cell(status, 0)
	if !p.LastKnown {
		return status
	}
	if status == "" {
		status = "?"
	}
	return status + " (last known; host " + cell(p.Host, 0) + " unreachable" + lastSeen(p.HostLastSeen, now) + ")"
}

// lastSeen says when a host was last seen, for a table (", last seen 12s
// ago"; "" when never).
func lastSeen(t, now time.Time) string {
	if t.IsZero() {
		return ", never seen"
	}
	return ", last seen " + now.Sub(t).Round(time.Second).String() + " ago"
}

// printHosts prints, for a clustered office (rows carry their host), the
// floor's other hosts: reachable or not, when last seen, and how many items
// wait for each in this host's outbox. It prints nothing without a cluster.
func printHosts(ctx context.Context, e *env, dir string, rows []engine.Placement) error {
	if len(rows) == 0 || rows[0].Host == "" {
		return nil
	}
	f, err := engine.Do(ctx, dir, wire.OpClusterFloor, "", wire.None{})
	if err != nil {
		return err
	}
	for i, h := range f.Hosts {
		// Not read since this server started: the rows have when it last
		// stored a change of that host.
		for _, r := range rows {
			if h.LastSeen.IsZero() && r.Host == h.Host {
				f.Hosts[i].LastSeen = r.HostLastSeen
			}
		}
	}
	return printFloorHosts(e.stdout, f, time.Now())
}

// printFloorHosts prints f's other hosts as a table (nothing when there are
// none).
func printFloorHosts(w io.Writer, f engine.Floor, now time.Time) error {
	fmt.Fprintf(w, "\nfloor %s, this host %s", cell(f.Name, 0), cell(f.Host, 0))
	if len(f.Hosts) == 0 {
		fmt.Fprintln(w, "; no other host seen yet")
		return nil
	}
	fmt.Fprintln(w)
	tw := newTable(w)
	fmt.Fprintln(tw, "HOST\tREACHABLE\tLAST SEEN\tOUTBOX")
	for _, h := range f.Hosts {
		reach, seen := "reachable", "never"
		if !h.Reachable {
			reach = "unreachable"
		}
		if !h.LastSeen.IsZero() {
			seen = now.Sub(h.LastSeen).Round(time.Second).String() + " ago"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", cell(h.Host, 0), reach, seen, h.Outbox)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range f.Clashes {
		fmt.Fprintf(w, "name clash: agent %s is on host %s and on host %s (host %s's joined later); names are unique on the floor: remove one (office team rm)\n",
			cell(c.Agent, 0), cell(f.Host, 0), cell(c.Host, 0), cell(c.Later, 0))
	}
	return nil
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
func runExplain(ctx context.Context, e *env, dir, agent string, asJSON bool) error {
	xs, err := engine.Do(ctx, dir, wire.OpExplain, agent, wire.None{})
	if err != nil {
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
		if x.Delivery != "" {
			fmt.Fprintf(e.stdout, "  delivery: %s", x.Delivery)
			if x.LastMsgID != 0 {
				fmt.Fprintf(e.stdout, " (last delivered: message %d, %s)", x.LastMsgID, x.LastChannel)
			}
			fmt.Fprintln(e.stdout)
		}
	}
	return nil
}
