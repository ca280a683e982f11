package engine

// notes.go passes an agent's own notifications (OSC 9, 777, 99 and BEL in
// its output, read by package pool) on as live "notify" events naming the
// agent (docs/needs.md), and to the notification rules.

import (
	"time"

	"office/pool"
	"office/wire"
)

// agentNote follows one EventNotify.
func (e *Engine) agentNote(ev pool.Event) {
	w := noteEvent(ev, e.clock().Now())
	if s := e.serve.srv.Load(); s != nil {
		s.AddLive(w)
	}
	e.queueNote(ev)
	if e.opts.OnTerminal != nil {
		e.opts.OnTerminal(ev)
	}
}

// noteEvent is the wire event of an agent's note: Kind how it came (osc9,
// osc777, osc99, bell), Detail its title, Text its body.
func noteEvent(ev pool.Event, now time.Time) wire.Event {
	return wire.Event{At: now, Type: wire.EventNotify, Agent: ev.Agent, Kind: ev.Note.Kind, Detail: ev.Note.Title, Text: ev.Note.Body}
}
