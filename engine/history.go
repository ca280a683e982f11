package engine

// history.go keeps each agent's pane history: one pool.History per agent
// name for the life of the engine (a restarted agent goes on with the same
// one), reloaded at start from the agent's history file, and one goroutine
// per agent appending new lines to that file. The PTY reader never waits
// for the disk: it appends to the ring and pokes the goroutine, which
// drains the ring in batches; a writer more than a whole ring behind loses
// the lines that fell off (logged). A write that fails (a full disk) is
// tried again after a back-off (historyRetryMin doubling to
// historyRetryMax, on the engine's clock) until one succeeds; the person is
// told once when writing stops and once when it works again.

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"office/configs"
	"office/drain"
	"office/history"
	"office/inbox"
	"office/pool"
	"office/queue"
	"office/wire"
)

// historyBatch bounds the records written in one call.
const historyBatch = 512

// The back-off of a failed history write: the first retry after
// historyRetryMin, each failure doubling the wait up to historyRetryMax. A
// full disk is not freed in milliseconds, and each attempt is one write
// call per agent, so a minute between tries costs nothing while space
// coming back is noticed within a minute.
const (
	historyRetryMin = time.Second
	historyRetryMax = time.Minute
)

// noticeHistory is the kind of the notices about an agent's history file.
const noticeHistory drain.NoticeKind = "history"

// historyWriter is where an agent's history goes: its *history.Log, or a
// test's.
type historyWriter interface {
	Append([]pool.HistoryRecord) error
	Next() int64 // the seq after the last record written
	Close() error
}

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
	ring    *pool.History
	log     historyWriter // nil: the file could not be opened (memory only)
	failing atomic.Bool   // the last write failed: the file is behind
	flush   chan chan struct{}
	stop    chan struct{}
	done    chan struct{}
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
	l := &e.terms.hist
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
	hlog, old, err := history.Open(AgentDir(e.opts.StateDir, ac.Name), lines)
	if err != nil {
		e.log.Error("pane history kept in memory only", "agent", ac.Name, "err", err)
	} else {
		ah.log = hlog
		for _, r := range old {
			if err := ah.ring.Restore(r); err != nil {
				e.log.Warn("history line not restored", "agent", ac.Name, "err", err)
			}
		}
	}
	l.agents[ac.Name] = ah
	go persistHistory(historyDeps{log: e.log, clock: e.clock(), tell: e.tellHistory}, ac.Name, ah)
	return ah.ring
}

// historyDeps is what persistHistory needs of the engine.
type historyDeps struct {
	log   *slog.Logger
	clock drain.Clock              // the back-off's time
	tell  func(agent, text string) // a notice for the person
}

// tellHistory tells the person about agent's history file: durably (their
// inbox), or live when the store cannot take it (the same disk may be full).
func (e *Engine) tellHistory(agent, text string) {
	// Before Open is done (an agent started ahead of the store) the inbox
	// may not be set yet: the notice goes live.
	if e.terms.events.open.Load() && e.inbox != nil {
		_, _, err := e.inbox.svc.Send(context.Background(), inbox.Message{To: inbox.Person, Kind: inbox.KindNotification, Body: text})
		if err == nil {
			return
		}
		e.log.Error("notice about a history file", "agent", agent, "err", err)
	}
	e.notice(drain.Notice{Agent: agent, Kind: noticeHistory, Text: text})
}

// persistHistory appends the ring's new lines to the agent's file until
// stopped, then writes what is left and closes the file. A failed write
// keeps its lines in the ring (they are lost only if they fall off it
// before a write works again) and is tried again after the back-off.
func persistHistory(d historyDeps, name string, ah *agentHistory) {
	defer close(ah.done)
	_, next := ah.ring.Bounds() // lines before next are on disk already
	var batch []pool.HistoryRecord
	var retry <-chan time.Time // armed while failing
	backoff := time.Duration(0)
	var lostWhileFailing int64
	drain := func() {
		for {
			batch = ah.ring.Records(next, historyBatch, batch[:0])
			if len(batch) == 0 {
				return
			}
			if lost := batch[0].Seq - next; lost > 0 {
				d.log.Warn("history lines lost before they were written", "agent", name, "lines", lost)
				if ah.failing.Load() {
					lostWhileFailing += lost
				}
			}
			if ah.log == nil {
				next = batch[len(batch)-1].Seq + 1
				continue
			}
			err := ah.log.Append(batch)
			if err != nil {
				next = max(batch[0].Seq, ah.log.Next())
				if !ah.failing.Load() {
					ah.failing.Store(true)
					backoff = historyRetryMin
					d.log.Error("history not written; retrying", "agent", name, "err", err)
					d.tell(name, fmt.Sprintf("The pane history of %s is not being written to its file: %v. office tries again (at least once a minute); "+
						"lines kept in memory (the last %d) are written once it works, older ones are lost.", name, err, ah.ring.Max()))
				} else {
					backoff = min(2*backoff, historyRetryMax)
				}
				retry = d.clock.After(backoff)
				return
			}
			next = batch[len(batch)-1].Seq + 1
			if ah.failing.Load() {
				ah.failing.Store(false)
				retry = nil
				d.log.Info("history written again", "agent", name, "lost", lostWhileFailing)
				lost := ""
				if lostWhileFailing > 0 {
					lost = fmt.Sprintf(" (%d lines were lost meanwhile)", lostWhileFailing)
				}
				d.tell(name, fmt.Sprintf("The pane history of %s is written to its file again%s.", name, lost))
				lostWhileFailing = 0
			}
		}
	}
	for {
		select {
		case <-ah.ring.Changed():
			if !ah.failing.Load() {
				drain()
			}
		case <-retry:
			retry = nil
			drain()
		case done := <-ah.flush:
			if !ah.failing.Load() {
				drain()
			}
			close(done)
		case <-ah.stop:
			drain()
			if ah.log != nil {
				if err := ah.log.Close(); err != nil {
					d.log.Error("history file", "agent", name, "err", err)
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
	l := &e.terms.hist
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

// HistoryReply is wire.HistoryReply (it crosses the client boundary, so wire declares it).
type HistoryReply = wire.HistoryReply

// HistoryArgs is wire.HistoryArgs (it crosses the client boundary, so wire declares it).
type HistoryArgs = wire.HistoryArgs

// MaxHistoryRows bounds the rows one "history" call returns.
const MaxHistoryRows = 1000

func (e *Engine) registerHistoryOps() {
	register(e, wire.OpHistory, e.opHistory)
}

// opHistory answers "history" for req.Agent: its screen, and its history
// written to the file up to the screen's first row.
func (e *Engine) opHistory(ctx context.Context, req Request, args HistoryArgs) (HistoryReply, error) {
	a, ok := e.Agent(req.Agent)
	if !ok {
		return HistoryReply{}, fmt.Errorf("%w %q", queue.ErrUnknownAgent, req.Agent)
	}
	var rep HistoryReply
	var ah *agentHistory
	e.terms.hist.mu.Lock()
	ah = e.terms.hist.agents[req.Agent]
	e.terms.hist.mu.Unlock()
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
			return HistoryReply{}, fmt.Errorf("history of %q: %w", req.Agent, err)
		}
		rep.Persisted = ah.log != nil && !ah.failing.Load()
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
