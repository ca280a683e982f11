package engine

// serve.go starts the office's server (package server: the clients'
// socket, their sessions, the calls' dispatch) on this engine: what the
// server reads of the office (serverOffice: the roster, the state, the
// store's event log, the table of calls) and what the engine tells it
// (terminal events, notices, wake-ups, Bye).

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"office/drain"
	"office/server"
	"office/wire"
)

// ClientSocketFile is the clients' Unix socket in the state directory (mode
// 0600; never TCP).
const ClientSocketFile = wire.SocketFile

// NoticeKeys is the kind of the notice a client gets when its keys were not
// typed (server.NoticeKeys).
const NoticeKeys = server.NoticeKeys

// ErrServerStopping is a call's error while the office stops.
var ErrServerStopping = errors.New(wire.ReasonStopping)

// serving is the engine's side of its clients: the table of calls
// (filled by registerOps and openCluster before the server starts) and the
// server answering them (nil until startServer).
type serving struct {
	ops server.Ops
	srv atomic.Pointer[server.Server]
}

// startServer listens on the clients' socket and starts the state loop.
func (e *Engine) startServer() error {
	o := server.Options{Office: serverOffice{e}, StateDir: e.opts.StateDir, Logger: e.log.With("part", "server"),
		Ready: func(s *server.Server) { e.serve.srv.Store(s) }}
	if e.opts.Config != nil {
		o.Config, o.Prefix = e.opts.Config.Path, e.opts.Config.Prefix
	}
	_, err := server.Start(o)
	return err
}

// StopRequested is closed when a client asked the office to stop (`office
// stop`); whoever runs the engine then closes it.
func (e *Engine) StopRequested() <-chan struct{} {
	s := e.serve.srv.Load()
	if s == nil {
		return nil
	}
	return s.StopRequested()
}

// noticeEvent is a drain notice as a live event.
func noticeEvent(n drain.Notice) wire.Event {
	return wire.Event{Type: wire.EventNotice, At: time.Now(), Agent: n.Agent, MsgID: n.MsgID, Kind: string(n.Kind), Text: n.Text}
}

// serverOffice is the engine as its server reads it (server.Office).
type serverOffice struct{ e *Engine }

var _ server.Office = serverOffice{}

func (o serverOffice) Agents() []*Agent                 { return o.e.Agents() }
func (o serverOffice) Agent(name string) (*Agent, bool) { return o.e.Agent(name) }
func (o serverOffice) Call(req Request) (any, error)    { return o.e.handle(req) }

// Judge says whether err is the request's fault, and a refusal's reason.
func (serverOffice) Judge(err error) (bool, string) {
	var rf *Refusal
	if errors.As(err, &rf) {
		return isBadInput(err), rf.Reason()
	}
	return isBadInput(err), ""
}

// LastEvent is the seq of the store's last logged event.
func (o serverOffice) LastEvent(ctx context.Context) (int64, error) {
	var last int64
	err := o.e.store.DB().QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&last)
	return last, err
}

// Events reads the store's log after seq after as stream events.
func (o serverOffice) Events(ctx context.Context, after int64, limit int) ([]wire.Event, error) {
	evs, err := o.e.store.Events(ctx, after, limit)
	if err != nil || len(evs) == 0 {
		return nil, err
	}
	out := make([]wire.Event, len(evs))
	for i, ev := range evs {
		out[i] = storeEvent(ev)
	}
	return out, nil
}

// State reads the office's live state.
func (o serverOffice) State(ctx context.Context) (wire.State, error) {
	e := o.e
	st := wire.State{T: wire.TState}
	counts, err := e.store.Counts(ctx)
	if err != nil {
		return st, err
	}
	if st.FloorPaused, err = e.store.FloorPaused(ctx); err != nil {
		return st, err
	}
	paused, err := e.store.PausedAgents(ctx)
	if err != nil {
		return st, err
	}
	st.Agents = o.agentStates(counts, func(name string) bool { return slices.Contains(paused, name) })
	if st.Needs, err = e.Needs(ctx); err != nil {
		return st, err
	}
	return st, nil
}

// Restate is last with every agent's terminal state read again and the
// store not read at all: the queue depths, the pauses and the needs-you
// list stay last's. It answers a change of a terminal's draft or picker,
// which the person's first key of a line makes: reading the store then
// (eight queries) cost a millisecond of CPU beside the key's echo.
func (o serverOffice) Restate(last wire.State) wire.State {
	counts := make(map[string]int, len(last.Agents))
	paused := make(map[string]bool, len(last.Agents))
	for _, a := range last.Agents {
		counts[a.Name], paused[a.Name] = a.Queued, a.Paused
	}
	st := wire.State{T: wire.TState, FloorPaused: last.FloorPaused, Needs: last.Needs}
	st.Agents = o.agentStates(counts, func(name string) bool { return paused[name] })
	return st
}

// agentStates is every agent's state, its queue depth from counts and its
// pause from paused.
func (o serverOffice) agentStates(counts map[string]int, paused func(string) bool) []wire.AgentState {
	e := o.e
	agents := e.Agents()
	var out []wire.AgentState
	for i, as := range e.Status() {
		a := wire.AgentState{Name: as.Name, Status: as.Status, Signal: as.Signal, Draft: as.Draft, Hold: as.Hold,
			Queued: counts[as.Name], Paused: paused(as.Name), Pid: as.Pid, ExitCode: as.ExitCode, Error: as.Error,
			Restart: as.Restart, RestartAt: as.RestartAt, Turn: as.Turn, LimitAt: as.LimitAt, LimitRetry: as.LimitRetry}
		if i < len(agents) && agents[i].Config.Name == as.Name && agents[i].Term != nil {
			a.Picker = agents[i].Term.AutomationState().PickerLatched
		}
		out = append(out, a)
	}
	return out
}
