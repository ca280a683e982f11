package main

// pause.go is `office pause` and `office resume`: automatic delivery off and
// on again, for one agent or (--all) the whole floor, in the store; resume
// also ends a usage-limit hold early in a running office.

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"office/engine"
	"office/wire"
)

func newPauseCmd(e *env, g *globals) *cobra.Command  { return pauseCmd(e, g, true) }
func newResumeCmd(e *env, g *globals) *cobra.Command { return pauseCmd(e, g, false) }

// pauseCmd builds pause (paused true) or resume.
func pauseCmd(e *env, g *globals, paused bool) *cobra.Command {
	verb, short, allHelp := "pause", "pause automatic delivery to an agent, or the whole floor (--all)", "pause the whole floor"
	if !paused {
		verb, short, allHelp = "resume", "resume automatic delivery, and end a usage-limit hold early (--all clears the floor pause and every agent's)", "clear the floor pause and every agent's, and every usage-limit hold"
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
			agent := optionalArg(args)
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
	// The server's "pause" and "resume" do the same (engine.SetPause).
	if err := engine.SetPause(ctx, s, agent, paused); err != nil {
		if agent == "" {
			return fmt.Errorf("%s --all: %w", verb, err)
		}
		return agentErr(ctx, s, verb+" "+agent, agent, err)
	}
	if !paused {
		releaseLimit(ctx, dir, agent)
	}
	engine.Poke(dir)
	return nil
}

// releaseLimit ends the usage-limit hold of agent's account ("": every
// account) in a running office (docs/limits.md); with none running there
// is no hold to end.
func releaseLimit(ctx context.Context, dir, agent string) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, _ = engine.Do(ctx, dir, wire.OpLimitRelease, agent, wire.None{})
}
