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
func (e *Engine) SetMaxAgents(n int) { e.maxAgents = n }

// StartRecord is startRecord (one record startRecorded listed) for the
// engine_test package.
func (e *Engine) StartRecord(ctx context.Context, r queue.AgentRecord) {
	e.teamStart.Lock()
	defer e.teamStart.Unlock()
	e.startRecord(ctx, r, r.Elsewhere != "")
}
