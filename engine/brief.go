package engine

// brief.go queues the opening brief: after boot, a short
// brief per agent (its name, role, task, and the office commands it can
// run), through the drain like any message.

import (
	"context"

	"office/configs"
	"office/inbox"
	"office/queue"
)

// queueBriefs queues the opening brief for each agent whose config wants it.
func (e *Engine) queueBriefs(ctx context.Context) {
	for _, a := range e.Agents() {
		if !e.opts.Config.BriefFor(a.Config) {
			continue
		}
		if a.Config.Brief == nil && (a.Profile.Name == configs.ProfileShell || a.Profile.Name == configs.ProfileCustom) {
			// A brief is a prompt for a model CLI; a shell would run it as
			// commands. An agent that sets brief = true still gets one.
			continue
		}
		if readLaunchRecord(e.agentDir(a.Config.Name)).Resumed {
			continue // a resumed conversation had its brief when it began
		}
		b := inbox.Brief{Name: a.Config.Name, Role: a.Config.Role, Task: a.Config.Task, Parent: a.Config.Parent}
		if b.Task != "" {
			b.Journal = inbox.JournalPath(e.opts.StateDir, b.Task)
		}
		if _, err := e.store.Enqueue(ctx, a.Config.Name, inbox.RenderBrief(b), queue.EnqueueOptions{Source: "brief"}); err != nil {
			e.log.Error("queueing the opening brief", "agent", a.Config.Name, "err", err)
		}
	}
}
