package main

// events.go is `office events`: the server's event stream (status changes,
// holds, deliveries, mail, notices) as lines, JSON with --json (the schema is
// in docs/protocol.md, "Events"). It reconnects when the connection drops
// (an ssh killed, a server restarted) and resumes after the last stored event
// it printed, so none of those is lost or printed twice.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"office/client"
	"office/wire"
)

// remoteFlags are the flags that choose the server: the local state dir, or
// --ssh HOST with the user's ssh.
type remoteFlags struct {
	host       string
	sshCommand string
	office     string // the office command on the far side
	start      bool   // the far side starts its server when none runs (the UI)
}

// add declares the flags on c.
func (r *remoteFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&r.host, "ssh", "", "reach the office on HOST through ssh (runs 'office attach --stdio' there)")
	c.Flags().StringVar(&r.sshCommand, "ssh-command", "", "the ssh command line (default $OFFICE_SSH_COMMAND, else ssh)")
	c.Flags().StringVar(&r.office, "remote-office", "", "the office command on the far side (default office)")
}

// transport returns how to reach the server: ssh when --ssh is given (its
// command from --ssh-command, else OFFICE_SSH_COMMAND, else ssh), else the
// local state directory.
func (r remoteFlags) transport(g *globals, e *env) (client.Transport, error) {
	if r.host == "" {
		dir, err := clientStateDir(g, e)
		if err != nil {
			return nil, err
		}
		return client.Local(dir), nil
	}
	cmd := r.sshCommand
	if cmd == "" {
		cmd = e.getenv("OFFICE_SSH_COMMAND")
	}
	sr := client.SSHRemote{Command: client.SSHCommand(cmd), Host: r.host, Office: r.office, State: g.state, Start: r.start}
	if r.start {
		sr.Config = g.config // the file the far side's server starts with
	}
	return client.SSHTo(sr), nil
}

func newEventsCmd(e *env, g *globals) *cobra.Command {
	var asJSON bool
	var since int64
	var rf remoteFlags
	c := &cobra.Command{
		Use:   "events [AGENT...]",
		Short: "stream status changes, holds, deliveries, mail and notices (--json: JSON lines)",
		Long: `Stream the office's events as they happen: status changes, holds, deliveries
(typing, submitted, verified, typed but not submitted, dropped), queue edits,
mail state changes and notices; of the AGENTs given, else of all. --json prints
one JSON object per line (the schema is in docs/protocol.md, "Events").
--since SEQ first replays the stored events after SEQ (--since 0: every stored
event, from the start of the log). A dropped connection is
dialled again and the stream resumes where it stopped. --ssh HOST reads the
office on HOST through your ssh. Needs a running office (exit 1 without one).`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			if since < 0 {
				return usagef("office events: --since %d is not an event seq", since)
			}
			return runEvents(c.Context(), e, g, args, asJSON, since, c.Flags().Changed("since") && since == 0, rf)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON lines")
	c.Flags().Int64Var(&since, "since", 0, "replay the stored events after this seq first (0: from the start)")
	rf.add(c)
	return c
}

// runEvents prints the events of agents (all when none) after since, or
// every stored one first when fromStart.
func runEvents(ctx context.Context, e *env, g *globals, agents []string, asJSON bool, since int64, fromStart bool, rf remoteFlags) error {
	tr, err := rf.transport(g, e)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(e.stdout)
	return followEvents(ctx, e, tr, agents, since, fromStart, func(_ *client.Conn, ev wire.Event) (bool, error) {
		if ev.Type == "" {
			return false, nil
		}
		ev.T = ""
		if asJSON {
			return false, enc.Encode(ev)
		}
		_, err := fmt.Fprintln(e.stdout, eventLine(ev))
		return false, err
	}, nil)
}

// followEvents streams events from the server to fn until fn says done, ctx
// ends or the server stops (Bye). A dropped connection is dialled again,
// resuming after the last stored event seen. The stream starts after since
// (0: now), or at the store log's first event when fromStart. check, if set,
// runs on every (re)connect and on every state change, and may end the
// stream too.
func followEvents(ctx context.Context, e *env, tr client.Transport, agents []string, since int64, fromStart bool,
	fn func(*client.Conn, wire.Event) (bool, error), check func(*client.Conn) (bool, error)) error {
	wait := client.RedialMin
	first := true
	for {
		// From the start until a stored event was seen; after it, resumed.
		conn, err := client.Dial(ctx, tr, client.Options{Client: "office events", Events: true, Agents: agents, Since: since,
			FromStart: fromStart && since == 0})
		if err != nil {
			var rf *wire.Refused
			if first || errors.As(err, &rf) || ctx.Err() != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			fmt.Fprintf(e.stderr, "office: %v; trying again in %v\n", err, wait)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
			wait = min(wait*2, client.RedialMax)
			continue
		}
		if first {
			for _, a := range agents {
				if !inRoster(conn, a) {
					conn.Close()
					return &inputError{fmt.Errorf("unknown agent %q", a)}
				}
			}
		}
		if since == 0 && !fromStart {
			since = conn.Welcome().Seq
		}
		first, wait = false, client.RedialMin
		done, err := streamConn(ctx, conn, &since, fn, check)
		conn.Close()
		if done || err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		var bye *client.ByeError
		if errors.As(conn.Err(), &bye) {
			fmt.Fprintf(e.stderr, "office: %v\n", bye)
			return nil
		}
		fmt.Fprintf(e.stderr, "office: connection lost (%v); reconnecting\n", conn.Err())
	}
}

// streamConn feeds one connection's events to fn.
func streamConn(ctx context.Context, conn *client.Conn, since *int64,
	fn func(*client.Conn, wire.Event) (bool, error), check func(*client.Conn) (bool, error)) (bool, error) {
	if check != nil {
		if done, err := check(conn); done || err != nil {
			return done, err
		}
	}
	evs := conn.Events()
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case ev, ok := <-evs:
			if !ok {
				return false, nil
			}
			if ev.Seq > *since {
				*since = ev.Seq
			}
			if done, err := fn(conn, ev); done || err != nil {
				return done, err
			}
		case <-conn.Changed():
			if check != nil {
				if done, err := check(conn); done || err != nil {
					return done, err
				}
			}
		}
	}
}

func inRoster(conn *client.Conn, name string) bool {
	// The roster arrives right after the welcome.
	deadline := time.After(5 * time.Second)
	for {
		for _, a := range conn.Roster() {
			if a.Name == name {
				return true
			}
		}
		if len(conn.Roster()) > 0 {
			return false
		}
		select {
		case <-conn.Changed():
		case <-conn.Done():
			return false
		case <-deadline:
			return false
		}
	}
}

// eventLine is one event for a person to read.
func eventLine(ev wire.Event) string {
	var b strings.Builder
	b.WriteString(ev.At.Local().Format("15:04:05.000"))
	b.WriteString(" ")
	if ev.Agent != "" {
		b.WriteString(ev.Agent + " ")
	}
	b.WriteString(ev.Type)
	for _, s := range []string{ev.State, ev.Status, ev.Kind} {
		if s != "" && s != ev.Type {
			b.WriteString(" " + s)
		}
	}
	if ev.Type == wire.EventHold {
		if ev.Hold == "" {
			b.WriteString(" cleared")
		} else {
			b.WriteString(" " + ev.Hold)
		}
	}
	if ev.MsgID != 0 {
		fmt.Fprintf(&b, " msg %d", ev.MsgID)
	}
	if ev.Code != nil {
		fmt.Fprintf(&b, " code %d", *ev.Code)
	}
	if ev.Lost > 0 {
		fmt.Fprintf(&b, " %d events lost", ev.Lost)
	}
	for _, s := range []string{ev.Signal, ev.Detail, ev.Text} {
		if s != "" {
			b.WriteString(": " + cell(s, 100))
		}
	}
	return b.String()
}
