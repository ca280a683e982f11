package engine

// schedule.go is the scheduled compaction producer (seed 002): an agent with
// compact_every = "2h" gets its profile's compact verb (/compact, /compress)
// queued every 2 h, through the queue like any message, so the drain types
// it only when safe. The store keeps at most one compaction pending per
// agent (a second is refused as a duplicate); a profile without a compact
// verb is skipped; and a compaction is skipped when the agent has produced
// no output since the last one (docs/design.md §2: no turn since, nothing to
// compact).

import (
	"context"
	"errors"
	"sync"
	"time"

	"office/queue"
)

// scheduleTick is how often schedules are checked.
const scheduleTick = 15 * time.Second

// compactSchedule is the producer's memory of one agent.
type compactSchedule struct {
	last time.Time // the last compaction queued (or the engine's start)
}

// runSchedules queues scheduled compactions until ctx ends. Run calls it
// next to runInbox.
func (e *Engine) runSchedules(ctx context.Context) {
	s := &scheduler{e: e, agents: map[string]*compactSchedule{}}
	t := time.NewTicker(scheduleTick)
	defer t.Stop()
	for {
		s.check(ctx, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// scheduler holds the compaction schedules of one engine.
type scheduler struct {
	e      *Engine
	mu     sync.Mutex
	agents map[string]*compactSchedule
}

// check queues every compaction that is due at now; it returns the agents
// it queued one for.
func (s *scheduler) check(ctx context.Context, now time.Time) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var queued []string
	for _, a := range s.e.Agents() {
		every := a.Config.CompactEvery.Duration
		if every <= 0 || len(a.Profile.Compact) == 0 {
			continue
		}
		name := a.Config.Name
		cs := s.agents[name]
		if cs == nil {
			cs = &compactSchedule{last: now}
			s.agents[name] = cs
			continue
		}
		if now.Sub(cs.last) < every {
			continue
		}
		if a.Term == nil {
			continue
		}
		if out := a.Term.LastOutput(); out.IsZero() || !out.After(cs.last) {
			// Nothing happened since the last compaction.
			cs.last = now
			continue
		}
		verb := a.Profile.Compact[0]
		_, err := s.e.store.Enqueue(ctx, name, verb, queue.EnqueueOptions{Source: "schedule"})
		switch {
		case err == nil:
			queued = append(queued, name)
			s.e.log.Info("scheduled compaction queued", "agent", name, "verb", verb, "every", every)
			s.e.drain.Wake()
		case errors.Is(err, queue.ErrDuplicate):
			s.e.log.Debug("scheduled compaction skipped: one is pending", "agent", name)
		default:
			s.e.log.Warn("scheduled compaction not queued", "agent", name, "err", err)
			continue
		}
		cs.last = now
	}
	return queued
}
