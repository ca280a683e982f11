package engine

// turns.go reacts to the end of an agent's turn (docs/design.md §4). The turn
// and its causes come from the agent's turn machine (automation.Turn, run by
// its terminal); the inbox's TurnLedger joins them with what became of the
// inbox deliveries among those causes, and says when each ended turn may be
// settled; inbox.SettleTurn then settles mail, tells the parent and checks
// the journal.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"office/automation"
	"office/inbox"
	"office/wire"
)

// deliveryChanged follows a committed change to an inbox delivery (runInbox
// only): it may let ended turns settle, and an acknowledged one may leave
// more items to deliver.
func (e *Engine) deliveryChanged(ctx context.Context, d inbox.DeliveryEvent) {
	for _, t := range e.inbox.ledger.Delivery(d) {
		e.settleTurn(ctx, t)
	}
	if d.Kind == inbox.DeliveryAcked {
		e.inboxKick(ctx)
	}
}

// turnEnded follows the end of an agent's turn (runInbox only).
func (e *Engine) turnEnded(ctx context.Context, name string, turn automation.TurnEvent) {
	e.log.Debug("turn ended", "agent", name, "causes", causeList(turn), "took", turn.At.Sub(turn.Start))
	e.channelTurnEnded(name)
	for _, t := range e.inbox.ledger.TurnEnded(name, turn) {
		e.settleTurn(ctx, t)
	}
}

// settleTurn does what the end of turn t drives.
func (e *Engine) settleTurn(ctx context.Context, t inbox.EndedTurn) {
	a, ok := e.Agent(t.Agent)
	if !ok {
		return
	}
	end := inbox.TurnEnd{EndedTurn: t, Parent: a.Config.Parent, Desc: desc(a.Config),
		Task: a.Config.Task, ReadOnly: a.Config.ReadOnly}
	if end.Task != "" {
		end.Journal = inbox.JournalPath(e.opts.StateDir, end.Task)
	}
	end.Result = e.lastReply(a, t.Turn.Start) // the CLI's recorded reply, else the screen's reply region
	// Claude's StopFailure hook (limits_hook.go), else the screen's API error.
	var rateLimited bool
	end.Failed, rateLimited = e.limits.hookFailed(t.Agent, t.Turn.Start)
	if a.Term != nil && end.Failed == "" {
		end.Failed = turnFailure(a.Term.Text(), a.Profile) // an API error (apierror.go)
	}
	if e.limits.takeProbe(t.Agent) {
		if end.Failed != "" {
			e.probeSettled(ctx, a, t.Turn, end.Result, rateLimited) // a refused probe goes back to the queue (limits.go)
		}
		e.dropProbe(t.Agent) // settled: a restart has nothing to resolve (limits_probe.go)
	}
	r, err := e.inbox.svc.SettleTurn(ctx, end, e.inbox.clock.Now())
	if s := e.serve.srv.Load(); s != nil {
		ev := wire.Event{Type: wire.EventTurn, At: time.Now(), Agent: t.Agent, Kind: wire.TurnEnded, Detail: causeList(t.Turn), Text: end.Result}
		if ids := t.Turn.Delivered(); len(ids) > 0 {
			ev.MsgID = ids[0]
		}
		s.AddLive(ev)
	}
	if err != nil && ctx.Err() == nil {
		e.log.Error("settling a turn end (the deadline ticker settles its mail)", "agent", t.Agent, "err", err)
	}
	for _, o := range r.Mail {
		e.log.Info("mail settled at turn end", "agent", t.Agent, "mail", o.Mail.ID, "state", o.State, "reason", o.Reason)
	}
	switch {
	case r.Journal.Continued:
		e.log.Info("journal incomplete; continuation queued", "agent", t.Agent, "try", r.Journal.Try)
	case r.Journal.GaveUp:
		e.log.Warn("journal still incomplete after the last continuation; parent told", "agent", t.Agent)
	}
	if r.Changed() {
		e.inboxKick(ctx)
	}
}

// agentExited settles the agent's working mail (its turn is over) and, for
// a non-zero exit, tells its parent it failed (runInbox only).
func (e *Engine) agentExited(ctx context.Context, name string) {
	e.inbox.ledger.Exited(name)
	e.inbox.dialogs.closed(name)
	a, ok := e.Agent(name)
	if !ok || a.Term == nil {
		return
	}
	if _, err := e.inbox.svc.TurnEnded(ctx, name); err != nil {
		e.log.Error("settling mail of an exited agent", "agent", name, "err", err)
	}
	_, code := a.Term.Exited()
	if code != 0 && a.Config.Parent != "" {
		n := inbox.Notice{Kind: inbox.NoticeFailed, Desc: desc(a.Config), Agent: name,
			Error:  fmt.Sprintf("the process exited with status %d", code),
			Result: inbox.LastLines(ReplyRegion(a.Term.Text(), a.Profile), inbox.ResultLines, inbox.ResultBytes)}
		if _, err := e.inbox.svc.NotifyParent(ctx, a.Config.Parent, n, fmt.Sprintf("exit:%s:%d", name, a.Term.Pid())); err != nil {
			e.log.Error("notifying the parent", "agent", name, "err", err)
		}
	}
	e.inboxKick(ctx)
}

// causeList names a turn's causes for the log ("person", "delivery 7").
func causeList(t automation.TurnEvent) string {
	var b strings.Builder
	for i, c := range t.Causes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Kind.String())
		if c.Kind == automation.CauseDelivery {
			fmt.Fprintf(&b, " %d", c.MsgID)
		}
	}
	return b.String()
}
