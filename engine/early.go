package engine

// early.go holds the terminals' events back while Open is still opening the
// store: the config's agents start before it (their start is what a person
// waits for), but the drain, the inbox and the server that an event reaches
// do not exist yet, and are set without a lock. Events wait and are handed
// on once the engine is ready; from then on they go straight through.
//
// Nothing that cannot be read again is dropped. An event carries no state
// of its own but for a turn's or a note's, so the screen, status and gate
// changes of an agent are kept as one pending flag each (its handler reads
// the terminal's state then). The others (exit, usage limit, turn start and
// end, boot overdue, model switch) are kept in order, all of them: each is
// bounded per agent by the terminal itself (one exit, one boot, a banner
// or a switch per new row, a turn per Enter, and nothing types during the
// window). Only notes, the CLI's own notifications, are capped per agent.

import (
	"sync"
	"sync/atomic"

	"office/pool"
)

// maxEarlyNotes bounds the notifications kept per agent while Open runs: a
// CLI may send them without end, and a note missed is told again by the
// next one.
const maxEarlyNotes = 64

// earlyEvents is the queue; open is set once it is drained for good.
type earlyEvents struct {
	open    atomic.Bool
	mu      sync.Mutex
	held    []pool.Event                       // the events kept in order
	flags   map[string]map[pool.EventKind]bool // per agent: output, status, gate changed
	notes   map[string]int                     // per agent: notes held
	dropped int                                // notes dropped
}

// coalesced reports whether an event of kind is kept as a pending flag.
func coalesced(k pool.EventKind) bool {
	return k == pool.EventOutput || k == pool.EventStatus || k == pool.EventGate
}

// agentEvent is every terminal's Notify: terminalEvent once the engine is
// ready, held until then.
func (e *Engine) agentEvent(ev pool.Event) {
	q := &e.terms.events
	if q.open.Load() {
		e.terminalEvent(ev)
		return
	}
	q.mu.Lock()
	if !q.open.Load() {
		switch {
		case coalesced(ev.Kind):
			if q.flags == nil {
				q.flags = map[string]map[pool.EventKind]bool{}
			}
			if q.flags[ev.Agent] == nil {
				q.flags[ev.Agent] = map[pool.EventKind]bool{}
			}
			q.flags[ev.Agent][ev.Kind] = true
		case ev.Kind == pool.EventNotify && q.notes[ev.Agent] >= maxEarlyNotes:
			q.dropped++
		default:
			if ev.Kind == pool.EventNotify {
				if q.notes == nil {
					q.notes = map[string]int{}
				}
				q.notes[ev.Agent]++
			}
			q.held = append(q.held, ev)
		}
		q.mu.Unlock()
		return
	}
	q.mu.Unlock()
	e.terminalEvent(ev)
}

// openEvents hands the held events on, then lets events through: each
// agent's screen change first, then the kept events in order, then its
// status and gate changes (read from the terminal, so they show the state
// after all of them). The lock is not held while they are handled (a
// handler may make a terminal emit again: that event is held and handed on
// next).
func (e *Engine) openEvents() {
	q := &e.terms.events
	for {
		q.mu.Lock()
		held, flags := q.held, q.flags
		q.held, q.flags, q.notes = nil, nil, nil
		if len(held) == 0 && len(flags) == 0 {
			if q.dropped > 0 {
				e.log.Warn("agent notifications dropped while the office started", "notes", q.dropped)
			}
			q.open.Store(true)
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		for name, kinds := range flags {
			if kinds[pool.EventOutput] {
				e.terminalEvent(pool.Event{Agent: name, Kind: pool.EventOutput})
			}
		}
		for _, ev := range held {
			e.terminalEvent(ev)
		}
		for name, kinds := range flags {
			for _, k := range []pool.EventKind{pool.EventStatus, pool.EventGate} {
				if kinds[k] {
					e.terminalEvent(pool.Event{Agent: name, Kind: k})
				}
			}
		}
	}
}
