package engine

import (
	"context"
	"time"

	"office/cluster"
	"office/queue"
)

// ApproveForFloor is approveForFloor for the engine_test package: an
// approval made at made on another host of the floor.
func (e *Engine) ApproveForFloor(ctx context.Context, agent, option, by string, made time.Time) cluster.ApprovalOutcome {
	return e.approveForFloor(ctx, agent, option, by, made)
}

// DialogSeen reports when agent's open dialog was recorded (forwarded).
func (e *Engine) DialogSeen(agent string) (time.Time, bool) {
	d, ok := e.inbox.dialogs.get(agent)
	return d.seen, ok
}

// StartYielded is startYielded (what a change of the floor's roster runs)
// for the engine_test package.
func (e *Engine) StartYielded(ctx context.Context) { e.startYielded(ctx) }

// SetMaxAgents lowers the most agents e runs (configs.MaxAgents), so a test
// reaches the bound with a few agents.
func (e *Engine) SetMaxAgents(n int) { e.team.max = n }

// StartRecord is startRecord (one record startRecorded listed) for the
// engine_test package.
func (e *Engine) StartRecord(ctx context.Context, r queue.AgentRecord) {
	if err := e.lockTeam(ctx); err != nil {
		return
	}
	defer e.unlockTeam()
	e.startRecord(ctx, r, r.Elsewhere != "")
}

// HoldTeamLock takes the team lock (as a long start from the records does)
// until the returned func is called.
func (e *Engine) HoldTeamLock() (release func()) {
	e.team.start <- struct{}{}
	return e.unlockTeam
}

// StartTeamAgents is startTeamAgents (what Run does at its start) for the
// engine_test package.
func (e *Engine) StartTeamAgents(ctx context.Context) { e.startTeamAgents(ctx) }

// NotifyReady is closed once the notifier read the needs-you list the
// first time (what it finds then is not announced).
func (e *Engine) NotifyReady() <-chan struct{} { return e.notify.ready }

// OpNames returns the names of the calls the engine answers, for the test
// that holds them to wire.Ops.
func (e *Engine) OpNames() []string {
	out := make([]string, 0, len(e.serve.ops))
	for n := range e.serve.ops {
		out = append(out, n)
	}
	return out
}
