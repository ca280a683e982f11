package main

// wait.go is `office wait AGENT --until idle|drained|exited|delivered:ID`: it exits 0
// when that happens (at once if it already has), 1 on --timeout or when it
// can no longer happen (the message was dropped or removed, or the agent
// exited and its restart policy does not restart it), 2 on bad input.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"office/client"
	"office/engine"
	"office/wire"
)

// The conditions of `office wait --until`: the command's own words (a
// status is compared with wire's, never with these).
const (
	untilIdle    = "idle"
	untilDrained = "drained"
	untilExited  = "exited"
	untilNeeds   = "needs"
	// untilDelivered is followed by a message id.
	untilDelivered = "delivered:"
)

func newWaitCmd(e *env, g *globals) *cobra.Command {
	var until string
	var timeout time.Duration
	var rf remoteFlags
	c := &cobra.Command{
		Use:   "wait [AGENT] --until idle|drained|exited|delivered:ID|needs",
		Short: "wait until an agent is idle, drained or exited, a message is delivered, or something needs you",
		Long: `Wait until AGENT is idle, or drained (idle with nothing queued or in flight
for it: no queued message, no undelivered inbox item, no turn open or still
settling), or has exited, or message ID (as 'office send' printed it) was
delivered to it. Exit 0 when that happens (at once if it already has); 1 after
--timeout, or when it can no longer happen (the message was dropped, removed, or
typed but not submitted; or, for idle, drained and delivered:ID, the agent
exited and its restart policy does not restart it); 2 on bad input (an unknown
agent or message). --ssh HOST waits on the office on HOST through your ssh.
--until needs (AGENT optional) exits 0 once something waits on you (office needs).`,
		Args:              argsBetween(0, 1),
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			if until == "" {
				return usagef("office wait: --until is required (idle, drained, exited or delivered:ID)")
			}
			if c.Flags().Changed("timeout") && timeout <= 0 {
				return usagef("office wait: --timeout %v must be positive", timeout)
			}
			if until == untilNeeds {
				return runWaitNeeds(c.Context(), e, g, args, timeout, rf)
			}
			if len(args) != 1 {
				return usagef("office wait: --until %s needs one AGENT", until)
			}
			return runWait(c.Context(), e, g, args[0], until, timeout, rf)
		},
	}
	c.Flags().StringVar(&until, "until", "", "idle, drained, exited or delivered:ID")
	_ = c.RegisterFlagCompletionFunc("until", completeUntil(e, g))
	c.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (exit 1), e.g. 30s or 5m; default: wait forever")
	rf.add(c)
	return c
}

func runWait(ctx context.Context, e *env, g *globals, agent, until string, timeout time.Duration, rf remoteFlags) error {
	var msgID int64
	var err error
	switch {
	case until == untilIdle || until == untilDrained || until == untilExited:
	case strings.HasPrefix(until, untilDelivered):
		msgID, err = strconv.ParseInt(strings.TrimPrefix(until, untilDelivered), 10, 64)
		if err != nil || msgID <= 0 {
			return usagef("office wait: --until %q: want delivered:ID with a message id", until)
		}
	default:
		return usagef("office wait: --until %q: want idle, drained, exited or delivered:ID", until)
	}
	tr, err := rf.transport(g, e)
	if err != nil {
		return err
	}
	wctx, timedOut, stop := waitContext(ctx, timeout)
	defer stop()
	fate := func(conn *client.Conn) (bool, error) {
		f, err := conn.Message(wctx, msgID)
		if err != nil {
			return false, err
		}
		return fateDone(f, agent)
	}
	check := func(conn *client.Conn) (bool, error) {
		if msgID != 0 {
			return fate(conn)
		}
		for _, a := range conn.State().Agents {
			if a.Name != agent {
				continue
			}
			if until == untilIdle && a.Status == wire.StatusIdle || until == untilExited && (a.ExitCode != nil || a.Status == wire.StatusExited) {
				return true, nil
			}
			if until == untilDrained && a.Status == wire.StatusIdle && a.Queued == 0 && !a.Turn {
				return drained(wctx, conn, agent)
			}
		}
		if until == untilIdle || until == untilDrained {
			if err := staysExited(conn.State(), agent); err != nil {
				return true, err
			}
		}
		return false, nil
	}
	fn := func(conn *client.Conn, ev wire.Event) (bool, error) {
		if until == untilDrained && ev.Agent == agent {
			// An inbox item delivered or cancelled changes no state.
			return check(conn)
		}
		if msgID == 0 || ev.MsgID != msgID {
			return false, nil
		}
		switch {
		case ev.Type == wire.EventDelivery && (ev.State == wire.DeliverySubmitted || ev.State == wire.DeliveryVerified):
			return true, nil
		case ev.Type == wire.EventDelivery && (ev.State == wire.DeliveryDropped || ev.State == wire.DeliveryNotSubmitted),
			ev.Type == wire.EventQueue && (ev.Kind == "removed" || ev.Kind == "cleared"):
			return true, fmt.Errorf("wait: message %d will not be delivered: %s %s", msgID, ev.State+ev.Kind, ev.Detail)
		}
		return false, nil
	}
	// A delivered:ID wait asks the message's fate once per connection
	// (not on every state change), and again when the agent can no longer
	// take it (it may have taken it just before it exited); the events say
	// the rest.
	var lastConn *client.Conn
	chk := func(conn *client.Conn) (bool, error) {
		if msgID == 0 {
			return check(conn)
		}
		if conn != lastConn {
			lastConn = conn
			if done, err := fate(conn); done || err != nil {
				return done, err
			}
		}
		if err := staysExited(conn.State(), agent); err != nil {
			if done, ferr := fate(conn); done || ferr != nil {
				return done, ferr
			}
			return true, fmt.Errorf("%w; message %d will not be delivered", err, msgID)
		}
		return false, nil
	}
	result := followEvents(wctx, e, tr, []string{agent}, 0, false, fn, chk)
	if timedOut() {
		if msgID != 0 {
			return fmt.Errorf("wait: message %d was not delivered to %s within %v", msgID, agent, timeout)
		}
		return fmt.Errorf("wait: %s did not become %s within %v", agent, until, timeout)
	}
	return result
}

// drained reports whether agent, which conn's state shows idle with no
// queued message and no turn, also has no undelivered inbox item (the
// state does not count them: an item waits for its delivery to be queued).
func drained(ctx context.Context, conn *client.Conn, agent string) (bool, error) {
	team, err := client.Do(ctx, conn, wire.OpTeam, "", wire.None{})
	if err != nil {
		return false, err
	}
	for _, m := range team {
		if m.Name == agent {
			return m.Status == wire.StatusIdle && m.Queue == 0 && m.Inbox == 0, nil
		}
	}
	return false, nil
}

// staysExited says why agent, in st, can never become idle or take a
// message: its process exited (or never started), no restart is pending,
// and its restart policy does not restart it (engine.RestartsAfter). A
// person can still restart it (prefix R in the UI); a wait does not wait
// for that. An older server that sends no policy is never judged so.
func staysExited(st wire.State, agent string) error {
	for _, a := range st.Agents {
		if a.Name != agent {
			continue
		}
		if a.Restart == "" || !a.RestartAt.IsZero() {
			return nil
		}
		switch {
		case a.ExitCode != nil && !engine.RestartsAfter(a.Restart, *a.ExitCode):
			return fmt.Errorf("wait: %s exited with code %d and its restart policy is %s: it will not run again unless restarted (prefix R in the UI)", agent, *a.ExitCode, a.Restart)
		case a.ExitCode == nil && a.Error != "":
			return fmt.Errorf("wait: %s could not start (%s): it will not run unless restarted (prefix R in the UI)", agent, a.Error)
		}
	}
	return nil
}

// fateDone judges a message's fate for wait.
func fateDone(f wire.MessageFate, agent string) (bool, error) {
	switch {
	case f.State == wire.FateUnknown:
		return true, &inputError{fmt.Errorf("wait: no message %d", f.ID)}
	case f.Agent != "" && f.Agent != agent:
		return true, &inputError{fmt.Errorf("wait: message %d is for %s, not %s", f.ID, f.Agent, agent)}
	case f.Delivered():
		return true, nil
	case f.Settled():
		return true, fmt.Errorf("wait: message %d will not be delivered: %s %s", f.ID, f.State, f.Detail)
	}
	return false, nil
}

// completeUntil completes --until: idle, drained, exited, and delivered:ID for each
// message queued for the agent named (any agent's when none is yet).
func completeUntil(e *env, g *globals) cobra.CompletionFunc {
	ids := completeMessageID(e, g)
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range []string{untilIdle, untilDrained, untilExited} {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, v)
			}
		}
		const delivered = untilDelivered
		if !strings.HasPrefix(toComplete, delivered) {
			dir := cobra.ShellCompDirectiveNoFileComp
			if strings.HasPrefix(delivered, toComplete) {
				out = append(out, cobra.CompletionWithDesc(delivered, "a message id"))
				if len(out) == 1 { // the id follows at once
					dir |= cobra.ShellCompDirectiveNoSpace
				}
			}
			return out, dir
		}
		msgs, _ := ids(c, nil, strings.TrimPrefix(toComplete, delivered))
		for _, m := range msgs {
			id, desc, _ := strings.Cut(string(m), "\t")
			if len(args) > 0 && !strings.HasPrefix(desc, args[0]+": ") {
				continue
			}
			out = append(out, cobra.CompletionWithDesc(delivered+id, desc))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// waitContext is ctx cancelled after timeout (never, for 0), with whether
// it was the timeout that ended it; stop releases both, and must be called.
func waitContext(ctx context.Context, timeout time.Duration) (wctx context.Context, timedOut func() bool, stop func()) {
	wctx, cancel := context.WithCancel(ctx)
	var expired atomic.Bool
	if timeout <= 0 {
		return wctx, expired.Load, cancel
	}
	t := time.AfterFunc(timeout, func() { expired.Store(true); cancel() })
	return wctx, expired.Load, func() { t.Stop(); cancel() }
}
