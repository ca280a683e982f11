package main

// history.go is `office history AGENT [--lines N] [--ansi] [--since D]`: the
// lines that scrolled off the agent's pane, followed by its current screen.
// With an office running the screen comes from it (and the history file is
// brought up to the screen's first row first); with none, the history file
// alone is printed, and stderr says so.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"office/engine"
	"office/history"
	"office/pool"
	"office/wire"
)

func newHistoryCmd(e *env, g *globals) *cobra.Command {
	var o historyOpts
	c := &cobra.Command{
		Use:   "history AGENT",
		Short: "print what scrolled off an agent's pane, then its current screen",
		Long: `Print the agent's pane history (the lines that scrolled off the top of its
screen, kept in the state directory, history = 10000 lines by default) followed by
its current screen, as plain text (trailing spaces trimmed), or with SGR colours
with --ansi. The current screen needs a running office; without one the history
file alone is printed and stderr says so.`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			if o.lines < 0 {
				return usagef("office history: --lines %d: give a count of 0 (all) or more", o.lines)
			}
			if o.since < 0 {
				return usagef("office history: --since %v: give a positive duration", o.since)
			}
			return runHistory(c.Context(), e, g, args[0], o)
		},
	}
	c.Flags().IntVar(&o.lines, "lines", 0, "at most the last N lines of history (0: all that is kept); the screen always follows")
	c.Flags().BoolVar(&o.ansi, "ansi", false, "keep colours and attributes as SGR sequences")
	c.Flags().DurationVar(&o.since, "since", 0, "only history lines that scrolled off within this long (e.g. 10m)")
	return c
}

// historyOpts are the flags of office history.
type historyOpts struct {
	lines int
	ansi  bool
	since time.Duration
}

func runHistory(ctx context.Context, e *env, g *globals, agent string, o historyOpts) error {
	s, dir, err := openRegistry(ctx, e, g)
	if err != nil {
		return err
	}
	if _, err = s.Agent(ctx, agent); err != nil {
		err = agentErr(ctx, s, "history "+agent, agent, err)
	}
	s.Close()
	if err != nil {
		return err
	}
	live := true
	rep, err := engine.Do(ctx, dir, wire.OpHistory, agent, wire.HistoryArgs{})
	switch {
	case errors.Is(err, engine.ErrNoEngine):
		live = false
		fmt.Fprintf(e.stderr, "office history: no office is running on %s: the persisted history of %s alone, without its current screen\n", dir, agent)
	case err != nil:
		// A running office that does not run the agent (removed from
		// the team), or did not answer: the file is still the history.
		live = false
		fmt.Fprintf(e.stderr, "office history: %v: the persisted history of %s alone, without its current screen\n", err, agent)
	}
	recs, err := history.Read(engine.AgentDir(dir, agent), 0)
	if err != nil {
		return fmt.Errorf("history of %s: %w", agent, err)
	}
	if live {
		// Lines after the screen's first row are on the screen itself.
		for len(recs) > 0 && recs[len(recs)-1].Seq >= rep.Total {
			recs = recs[:len(recs)-1]
		}
	}
	if o.since > 0 {
		cut := time.Now().Add(-o.since).UnixMilli()
		k := 0
		for k < len(recs) && recs[k].At < cut {
			k++
		}
		recs = recs[k:]
	}
	if o.lines > 0 && len(recs) > o.lines {
		recs = recs[len(recs)-o.lines:]
	}
	w := bufio.NewWriter(e.stdout)
	var cells []pool.Cell
	var line []byte
	put := func(rec []byte) {
		cells, _ = pool.DecodeLine(rec, cells[:0])
		if o.ansi {
			line = pool.AppendANSI(line[:0], cells)
		} else {
			line = pool.AppendText(line[:0], cells)
		}
		line = append(line, '\n')
		_, _ = w.Write(line)
	}
	for _, r := range recs {
		put(r.Line)
	}
	if live && rep.Live {
		rows := rep.Screen
		for len(rows) > 0 && len(rows[len(rows)-1]) == 0 {
			rows = rows[:len(rows)-1] // blank rows below the last text
		}
		for _, r := range rows {
			put(r)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}
