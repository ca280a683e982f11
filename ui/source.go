package ui

// source.go is what the UI reads of a running office and the intents it may
// send: the roster with each agent's terminal, the drain's hold reasons, the
// store, and a way to wake the drain. The engine is one source; tests supply
// their own.

import (
	"context"

	"office/automation"
	"office/engine"
	"office/pool"
	"office/queue"
)

// terminal is the part of a pool.Terminal the UI uses.
type terminal interface {
	Generation() uint64
	Snapshot(dst *pool.Snapshot)
	Size() (cols, rows int)
	Resize(cols, rows int) error
	Status() automation.Status
	Exited() (bool, int)
	HasDraft() bool
	AutomationState() automation.State
	Modes() pool.Modes
	Input(p []byte) error
	ClosePicker(ctx context.Context) error
	RecoverPrompt(ctx context.Context) (string, error)
}

// member is one agent of the roster.
type member struct {
	Name     string
	Profile  string
	Term     terminal // nil when the process could not be started
	SpawnErr error
}

// source is the office the UI shows.
type source interface {
	// Members returns the roster in order; it may change between calls
	// (agents added or removed while the office runs).
	Members() []member
	// Holds returns the drain's current hold reason per agent.
	Holds() map[string]string
	// Store returns the durable queue.
	Store() *queue.Store
	// Wake makes the drain look at the queues soon.
	Wake()
}

// engineSource shows a running engine.
type engineSource struct{ e *engine.Engine }

func (s engineSource) Members() []member {
	agents := s.e.Agents()
	out := make([]member, len(agents))
	for i, a := range agents {
		out[i] = member{Name: a.Config.Name, Profile: a.Profile.Name, SpawnErr: a.SpawnErr}
		if a.Term != nil { // never store a typed nil in the interface
			out[i].Term = a.Term
		}
	}
	return out
}

func (s engineSource) Holds() map[string]string { return s.e.Holds() }
func (s engineSource) Store() *queue.Store      { return s.e.Store() }
func (s engineSource) Wake()                    { s.e.Wake() }
