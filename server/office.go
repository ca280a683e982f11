package server

// office.go is what the server needs of the office it serves: its agents,
// its state, its store's event log and its table of calls (Office), and
// how to start (Options).

import (
	"context"
	"log/slog"

	"office/configs"
	"office/pool"
	"office/wire"
)

// Agent is one configured agent as the office runs it (engine.Agent is this
// type): the server reads its name, profile and terminal.
type Agent struct {
	// Config is the agent's configuration.
	Config configs.Agent
	// Profile is its resolved profile.
	Profile configs.Profile
	// Term is its terminal; nil when the process could not be started.
	Term *pool.Terminal
	// SpawnErr says why Term is nil.
	SpawnErr error
}

// Office is the office a server serves. Its methods are called from the
// server's goroutines, concurrently; none may block for long.
type Office interface {
	// Agents returns the agents in roster order (a copy of the list; the
	// *Agent values are shared and not modified by the server).
	Agents() []*Agent
	// Agent returns the named agent.
	Agent(name string) (*Agent, bool)
	// State reads the office's live state (wire.State, T set).
	State(ctx context.Context) (wire.State, error)
	// Restate is last (a State) with every agent's terminal state read
	// again, without reading the store: what only the store knows stays
	// last's.
	Restate(last wire.State) wire.State
	// LastEvent is the seq of the store's last logged event (0: none).
	LastEvent(ctx context.Context) (int64, error)
	// Events reads at most limit of the store's logged events after seq
	// after, oldest first, as stream events.
	Events(ctx context.Context, after int64, limit int) ([]wire.Event, error)
	// Call answers one call of a client (the office's Ops.Handle, and
	// whatever a call wakes).
	Call(req Request) (any, error)
	// Judge says of a call's error whether it was the request's fault
	// (wire.Reply.Input) and what was wrong, said to a person
	// (wire.Reply.Reason; "" when it has no such reason).
	Judge(err error) (input bool, reason string)
}

// Options configure a server. Office and StateDir are required.
type Options struct {
	// Office is what the server serves.
	Office Office
	// StateDir is the state directory; the socket is SocketFile in it.
	StateDir string
	// Config and Prefix are the office file's path and key prefix, told
	// to each client in its welcome.
	Config, Prefix string
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger
	// Ready, if set, is given the server once it listens and before it
	// accepts its first client, so the office can publish it before any
	// call can reach it (a call answered while the office does not know
	// its server yet would miss it: a stop request, say).
	Ready func(*Server)
}
