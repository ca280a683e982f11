package main

// pause.go is `office pause` and `office resume`: automatic delivery off and
// on again, for one agent or (--all) the whole floor. Store-only.

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"office/engine"
)

func newPauseCmd(e *env, g *globals) *cobra.Command  { return pauseCmd(e, g, true) }
func newResumeCmd(e *env, g *globals) *cobra.Command { return pauseCmd(e, g, false) }

// pauseCmd builds pause (paused true) or resume.
func pauseCmd(e *env, g *globals, paused bool) *cobra.Command {
	verb, short, allHelp := "pause", "pause automatic delivery to an agent, or the whole floor (--all)", "pause the whole floor"
	if !paused {
		verb, short, allHelp = "resume", "resume automatic delivery (--all clears the floor pause and every agent's)", "clear the floor pause and every agent's"
	}
	var all bool
	c := &cobra.Command{
		Use:               verb + " AGENT | --all",
		Short:             short,
		Args:              argsBetween(0, 1),
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return usagef("office %s: give AGENT or --all (one of them)", verb)
			}
			agent := ""
			if len(args) == 1 {
				agent = args[0]
			}
			return setPause(c.Context(), e, g, verb, agent, paused)
		},
	}
	c.Flags().BoolVar(&all, "all", false, allHelp)
	return c
}

// setPause sets agent's pause flag, or the floor's for agent "".
func setPause(ctx context.Context, e *env, g *globals, verb, agent string, paused bool) error {
	s, dir, err := openStore(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	switch {
	case agent == "" && paused:
		err = s.SetFloorPaused(ctx, true)
	case agent == "":
		err = s.ResumeAll(ctx)
	default:
		err = s.SetPaused(ctx, agent, paused)
	}
	if err != nil {
		if agent == "" {
			return fmt.Errorf("%s --all: %w", verb, err)
		}
		return agentErr(ctx, s, verb+" "+agent, agent, err)
	}
	engine.Poke(dir)
	return nil
}
