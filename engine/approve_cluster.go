package engine

// approve_cluster.go is `office approve AGENT OPTION` on a floor: an AGENT
// of another host gets the approval through the outbox (package cluster),
// and that host's engine answers it as its own `office approve` would,
// typed by its drain only while the dialog is still open.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"office/cluster"
	"office/drain"
	"office/server"
	"office/wire"
)

// RemoteApproveWait is how long `office approve` of an agent of another
// host waits for the outcome before it says the approval is stored (the
// outcome then comes as a notice). It is no longer than the op's own bound
// (server.OpTimeout), which stays below the command's call timeout (callTimeout),
// so the command hears "stored" rather than a timeout; a cross-host typing
// normally lands within a second or two (an outbox pass and the other
// drain's attempt).
const RemoteApproveWait = 4 * time.Second

// RemoteApproval is the "approve" call's answer for an agent of another
// host (Stored: the outcome was not known within RemoteApproveWait).
type RemoteApproval = wire.ApproveResult

// approveOnFloor wraps the "approve" call: an agent of this host is
// answered here (plain); one of another host through n.
func (e *Engine) approveOnFloor(n *cluster.Node, plain server.Handler) server.Handler {
	return func(ctx context.Context, req Request) (any, error) {
		var args wire.ApproveArgs
		if err := server.DecodeArgs(req, &args); err != nil {
			return nil, err
		}
		if _, ok := e.Agent(args.Agent); ok {
			return plain(ctx, req)
		}
		if _, err := cluster.Lookup(ctx, e.store, args.Agent); err != nil {
			return plain(ctx, req) // not on the floor: the one-host answer
		}
		wctx, cancel := context.WithTimeout(ctx, RemoteApproveWait)
		defer cancel()
		ap, err := n.Approve(wctx, args.Agent, args.Option, args.By)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		switch ap.Outcome {
		case cluster.OutcomeTyped:
			return RemoteApproval{Option: ap.Option, Host: ap.Host, ID: ap.ID}, nil
		case cluster.OutcomeStored:
			return RemoteApproval{Host: ap.Host, ID: ap.ID, Stored: true}, nil
		case cluster.OutcomeGone:
			return nil, fmt.Errorf("engine: approve %q on host %s: %s", args.Agent, ap.Host, ap.Detail)
		}
		return nil, fmt.Errorf("engine: approve %q: refused by host %s: %s", args.Agent, ap.Host, ap.Detail)
	}
}

// approveForFloor answers, for an approver of another host, a dialog of an
// agent of this host (cluster.Options.Approve).
func (e *Engine) approveForFloor(ctx context.Context, agent, option, by string, made time.Time) cluster.ApprovalOutcome {
	if gone := e.newerThanApproval(agent, made); gone != "" {
		return cluster.ApprovalOutcome{Outcome: cluster.OutcomeGone, Detail: gone}
	}
	num, err := e.Approve(ctx, agent, option, by)
	return outcomeOf(agent, num, err)
}

// newerThanApproval says why an approval made at made (the approver's
// host's clock) cannot be for agent's dialog now, or "": the agent's process
// started after it, or the dialog now open was first seen after it (the
// one the approver saw was answered or closed, and this is another). Clocks
// of the floor's hosts are assumed to agree to well under the seconds a
// person takes to approve; a skew only ever refuses (nothing typed).
func (e *Engine) newerThanApproval(agent string, made time.Time) string {
	if made.IsZero() {
		return ""
	}
	a, ok := e.Agent(agent)
	if !ok || a.Term == nil || e.inbox == nil {
		return "" // Approve says why
	}
	if a.Term.Spawned().After(made) {
		return "the agent restarted after the approval was made; nothing typed"
	}
	d, ok := e.inbox.dialogs.get(agent)
	switch {
	case !ok:
		// Not forwarded yet, so the approver cannot have seen it (or it
		// is not a dialog at all: Approve would say so).
		if isWaiting(a) {
			return "the dialog open now was not forwarded before the approval was made; nothing typed"
		}
	case d.seen.After(made):
		return "the dialog open now appeared after the approval was made; nothing typed"
	}
	return ""
}

// outcomeOf is the outcome of Approve(agent) that returned num, err.
func outcomeOf(agent, num string, err error) cluster.ApprovalOutcome {
	switch {
	case err == nil:
		return cluster.ApprovalOutcome{Outcome: cluster.OutcomeTyped, Option: num}
	case errors.Is(err, ErrNoDialog) || errors.Is(err, drain.ErrDialogGone):
		return cluster.ApprovalOutcome{Outcome: cluster.OutcomeGone, Detail: bare(err, agent)}
	}
	return cluster.ApprovalOutcome{Outcome: cluster.OutcomeRefused, Detail: bare(err, agent)}
}

// bare is err's message without the prefixes of this side (the approver's
// host says `approve "AGENT" on host H: ` itself).
func bare(err error, agent string) string {
	msg := err.Error()
	for _, p := range []string{"engine: ", "drain: ", "queue: ", "approve: ", fmt.Sprintf("approve %q: ", agent)} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}
