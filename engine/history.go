package engine

// history.go keeps each agent's pane history: one pool.History per agent
// name for the life of the engine (a restarted agent goes on with the same
// one), reloaded at start from the agent's history file, and one goroutine
// per agent appending new lines to that file. The PTY reader never waits
// for the disk: it appends to the ring and pokes the goroutine, which
// drains the ring in batches; a writer more than a whole ring behind loses
// the lines that fell off (logged).

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"office/configs"
	"office/history"
	"office/pool"
	"office/queue"
)

// historyBatch bounds the records written in one call.
const historyBatch = 512

// AgentDir is an agent's own folder in the state directory (STATE/agents/NAME):
// its launch record and its history files.
func AgentDir(stateDir, name string) string {
	return filepath.Join(stateDir, "agents", name)
}

// historyLayer holds the agents' histories. Its zero value is ready.
type historyLayer struct {
	mu     sync.Mutex
	agents map[string]*agentHistory
	closed bool // closeHistories ran: a late agent gets a ring of its own only
}

// agentHistory is one agent's ring and the goroutine persisting it.
type agentHistory struct {
	ring  *pool.History
	log   *history.Log // nil: the file could not be opened (memory only)
	flush chan chan struct{}
	stop  chan struct{}
	done  chan struct{}
}

// historyLines is the number of lines kept for ac.
func historyLines(ac configs.Agent) int {
	if ac.History > 0 {
		return ac.History
	}
	return configs.Defaults().History
}

// historyOf returns ac's History, creating it (and reloading its file) the
// first time.
func (e *Engine) historyOf(ac configs.Agent) *pool.History {
	l := &e.hist
	l.mu.Lock()
	defer l.mu.Unlock()
	if ah, ok := l.agents[ac.Name]; ok {
		return ah.ring
	}
	if l.closed {
		return pool.NewHistory(historyLines(ac))
	}
	if l.agents == nil {
		l.agents = map[string]*agentHistory{}
	}
	lines := historyLines(ac)
	ah := &agentHistory{
		ring:  pool.NewHistory(lines),
		flush: make(chan chan struct{}),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	log, old, err := history.Open(AgentDir(e.opts.StateDir, ac.Name), lines)
	if err != nil {
		e.log.Error("pane history kept in memory only", "agent", ac.Name, "err", err)
	} else {
		ah.log = log
		for _, r := range old {
			if err := ah.ring.Restore(r); err != nil {
				e.log.Warn("history line not restored", "agent", ac.Name, "err", err)
			}
		}
	}
	l.agents[ac.Name] = ah
	go e.persistHistory(ac.Name, ah)
	return ah.ring
}

// persistHistory appends the ring's new lines to the agent's file until
// stopped, then writes what is left and closes the file.
func (e *Engine) persistHistory(name string, ah *agentHistory) {
	defer close(ah.done)
	_, next := ah.ring.Bounds() // lines before next are on disk already
	var batch []pool.HistoryRecord
	failed := false
	drain := func() {
		for {
			batch = ah.ring.Records(next, historyBatch, batch[:0])
			if len(batch) == 0 {
				return
			}
			if lost := batch[0].Seq - next; lost > 0 {
				e.log.Warn("history lines lost before they were written", "agent", name, "lines", lost)
			}
			next = batch[len(batch)-1].Seq + 1
			if ah.log == nil || failed {
				continue
			}
			if err := ah.log.Append(batch); err != nil {
				failed = true // one report; the ring keeps the lines
				e.log.Error("history not written", "agent", name, "err", err)
			}
		}
	}
	for {
		select {
		case <-ah.ring.Changed():
			drain()
		case done := <-ah.flush:
			drain()
			close(done)
		case <-ah.stop:
			drain()
			if ah.log != nil {
				if err := ah.log.Close(); err != nil {
					e.log.Error("history file", "agent", name, "err", err)
				}
			}
			return
		}
	}
}

// flushHistory waits until every line ah holds now is written.
func (ah *agentHistory) flushHistory(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case ah.flush <- done:
	case <-ah.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closeHistories writes what is left of every history and closes the files;
// the terminals must be closed (their last screens retired) before.
func (e *Engine) closeHistories() {
	l := &e.hist
	l.mu.Lock()
	all := l.agents
	l.agents, l.closed = nil, true
	l.mu.Unlock()
	for _, ah := range all {
		close(ah.stop)
	}
	for _, ah := range all {
		<-ah.done
	}
}

// HistoryReply answers the "history" call: the agent's screen and where it
// starts in its history.
type HistoryReply struct {
	// Total is the number of history lines before the screen: the lines
	// numbered below Total, all written to the history file when Persisted.
	Total int64 `json:"total"`
	// Persisted says every line before Total is in the file.
	Persisted bool `json:"persisted"`
	// Live is false when the screen's rows are already in the history
	// (the agent's output ended): print the history alone.
	Live bool `json:"live"`
	// Cols is the screen's width.
	Cols int `json:"cols"`
	// Screen holds the screen's rows, each in pool.AppendLine form.
	Screen [][]byte `json:"screen"`
	// First is the number of the oldest line the office holds, and Rows
	// the lines HistoryArgs asked for (From to To, as held), each in
	// pool.AppendLine form: what a view of another process shows.
	First int64    `json:"first"`
	Rows  [][]byte `json:"rows,omitempty"`
}

// HistoryArgs are the optional arguments of "history": the lines [From, To)
// to return in HistoryReply.Rows (at most MaxHistoryRows of them).
type HistoryArgs struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// MaxHistoryRows bounds the rows one "history" call returns.
const MaxHistoryRows = 1000

func (e *Engine) registerHistoryOps() {
	e.ops["history"] = e.opHistory
}

// opHistory answers "history" for req.Agent: its screen, and its history
// written to the file up to the screen's first row.
func (e *Engine) opHistory(ctx context.Context, req Request) (any, error) {
	a, ok := e.Agent(req.Agent)
	if !ok {
		return nil, fmt.Errorf("%w %q", queue.ErrUnknownAgent, req.Agent)
	}
	var args HistoryArgs
	if err := decodeArgs(req, &args); err != nil {
		return nil, err
	}
	var rep HistoryReply
	var ah *agentHistory
	e.hist.mu.Lock()
	ah = e.hist.agents[req.Agent]
	e.hist.mu.Unlock()
	if a.Term != nil && a.Term.History() != nil {
		var sn pool.Snapshot
		rep.Total, rep.Live = a.Term.SnapshotAfterHistory(&sn)
		rep.Cols = sn.Cols
		for y := 0; y < sn.Rows; y++ {
			rep.Screen = append(rep.Screen, pool.AppendLine(nil, sn.Cells[y*sn.Cols:(y+1)*sn.Cols]))
		}
	}
	if ah != nil {
		if err := ah.flushHistory(ctx); err != nil {
			return nil, fmt.Errorf("history of %q: %w", req.Agent, err)
		}
		rep.Persisted = ah.log != nil
		if a.Term == nil {
			_, rep.Total = ah.ring.Bounds()
		}
		rep.First, _ = ah.ring.Bounds()
		if n := min(args.To-args.From, MaxHistoryRows); n > 0 {
			for _, r := range ah.ring.Records(args.From, int(n), nil) {
				if r.Seq >= args.To {
					break
				}
				rep.Rows = append(rep.Rows, r.Line)
			}
		}
	}
	return rep, nil
}
