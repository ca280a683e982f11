package main

// wait.go is `office wait AGENT --until idle|exited|delivered:ID`: it exits 0
// when that happens (at once if it already has), 1 on --timeout or when it
// can no longer happen (the message was dropped or removed), 2 on bad input.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"office/client"
	"office/wire"
)

func runWait(ctx context.Context, e *env, g *globals, args []string) error {
	const usage = "usage: office wait AGENT --until idle|exited|delivered:ID [--timeout D] [--ssh HOST]"
	args, rf, err := takeRemote(args)
	if err != nil {
		return err
	}
	args, until, ok, err := takeValue(args, "--until")
	if err != nil {
		return err
	}
	if !ok {
		return usagef("%s", usage)
	}
	args, tstr, hasTimeout, err := takeValue(args, "--timeout")
	if err != nil {
		return err
	}
	if err := rejectFlags("wait", args); err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("%s", usage)
	}
	agent := args[0]
	var msgID int64
	switch {
	case until == "idle" || until == "exited":
	case strings.HasPrefix(until, "delivered:"):
		msgID, err = strconv.ParseInt(strings.TrimPrefix(until, "delivered:"), 10, 64)
		if err != nil || msgID <= 0 {
			return usagef("office wait: --until %q: want delivered:ID with a message id", until)
		}
	default:
		return usagef("office wait: --until %q: want idle, exited or delivered:ID", until)
	}
	var timeout time.Duration
	if hasTimeout {
		if timeout, err = time.ParseDuration(tstr); err != nil || timeout <= 0 {
			return usagef("office wait: --timeout %q is not a duration (e.g. 30s, 5m)", tstr)
		}
	}
	tr, err := rf.transport(g, e)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timedOut atomic.Bool
	if timeout > 0 {
		t := time.AfterFunc(timeout, func() { timedOut.Store(true); cancel() })
		defer t.Stop()
	}
	var result error
	check := func(conn *client.Conn) (bool, error) {
		if msgID != 0 {
			f, err := conn.Message(wctx, msgID)
			if err != nil {
				return false, err
			}
			return fateDone(f, agent)
		}
		for _, a := range conn.State().Agents {
			if a.Name != agent {
				continue
			}
			if until == "idle" && a.Status == "idle" || until == "exited" && (a.ExitCode != nil || a.Status == "exited") {
				return true, nil
			}
		}
		return false, nil
	}
	fn := func(conn *client.Conn, ev wire.Event) (bool, error) {
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
	// A delivered:ID wait checks the message once per connection (not on
	// every state change); the events say the rest.
	var lastConn *client.Conn
	chk := func(conn *client.Conn) (bool, error) {
		if msgID != 0 {
			if conn == lastConn {
				return false, nil
			}
			lastConn = conn
		}
		return check(conn)
	}
	result = followEvents(wctx, e, tr, []string{agent}, 0, fn, chk)
	if timedOut.Load() {
		return fmt.Errorf("wait: %s did not become %s within %v", agent, until, timeout)
	}
	return result
}

// fateDone judges a message's fate for wait.
func fateDone(f wire.MessageFate, agent string) (bool, error) {
	switch {
	case f.State == "unknown":
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
