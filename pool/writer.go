package pool

// writer.go is a terminal's single write path: one ordered queue, served by
// one goroutine, for the person's keystrokes, automated writes and the
// screen's answers to terminal queries.

import (
	"context"
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
)

// States of a writeReq.
const (
	reqQueued    = iota // waiting in the queue
	reqStarted          // being written
	reqDone             // written or failed; its result is sent
	reqWithdrawn        // withdrawn before it started: never written
)

// MaxQueuedInput bounds the person's keys queued for one agent's PTY and not
// yet written: 1 MiB, the longest message body the inbox takes, so a paste
// as long as any message fits. Without it an agent that reads slowly (or not
// at all) let one client grow the server by gigabytes; with it a client
// whose keys outrun the agent waits (InputContext), and 500 agents
// (configs.MaxAgents) hold at most 500 MiB of keys.
const MaxQueuedInput = 1 << 20

// writeReq is one write; res, if non-nil, receives its outcome.
type writeReq struct {
	data     []byte
	res      chan<- error
	deadline time.Time // zero: none
	state    int       // guarded by writeQueue.mu
	input    bool      // the person's keys: counted in writeQueue.input
}

// writeQueue serializes every write into one PTY master. Enqueueing never
// blocks; the serving goroutine may block inside a write (a child in raw mode
// that stops reading), which then delays only this terminal. The goroutine
// runs only while writes are queued: an idle agent has none (its stack would
// be a few KiB per agent for nothing).
type writeQueue struct {
	f            *os.File
	done, closed <-chan struct{} // the child reaped; the terminal closed
	mu           sync.Mutex
	reqs         []*writeReq
	running      bool // a goroutine is serving reqs, or enqueueInput is writing
	// input is the bytes of the person's keys reserved, queued or being
	// written (at most MaxQueuedInput); room, when not nil, is closed the
	// next time some of them are written.
	input int
	room  chan struct{}
}

// newWriteQueue returns the queue of f. Once done is closed every queued
// write fails with ErrExited (a write into a dead child's PTY would
// "succeed" and vanish); once closed is closed, with ErrClosed.
func newWriteQueue(f *os.File, done, closed <-chan struct{}) *writeQueue {
	return &writeQueue{f: f, done: done, closed: closed}
}

// enqueue appends a copy of p; a non-zero deadline bounds its write. The
// returned request can be withdrawn or interrupted (see cancel).
func (q *writeQueue) enqueue(p []byte, res chan<- error, deadline time.Time) *writeReq {
	return q.add(&writeReq{data: append([]byte(nil), p...), res: res, deadline: deadline})
}

// add queues r and starts the serving goroutine if none runs.
func (q *writeQueue) add(r *writeReq) *writeReq {
	q.mu.Lock()
	q.reqs = append(q.reqs, r)
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start {
		go q.run()
	}
	return r
}

// reserveInput waits until n more bytes of the person's keys fit under
// MaxQueuedInput and reserves them for enqueueInput. n past the bound is
// refused at once (*InputTooLargeError); the wait ends with ctx's error,
// ErrExited or ErrClosed.
func (q *writeQueue) reserveInput(ctx context.Context, n int) error {
	if n > MaxQueuedInput {
		return &InputTooLargeError{Len: n}
	}
	for {
		q.mu.Lock()
		if q.input+n <= MaxQueuedInput {
			q.input += n
			q.mu.Unlock()
			return nil
		}
		if q.room == nil {
			q.room = make(chan struct{})
		}
		room := q.room
		q.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		case <-q.done:
			return ErrExited
		case <-q.closed:
			return ErrClosed
		}
	}
}

// enqueueInput queues the person's keys p, whose length reserveInput
// reserved; the reservation is given back once they are written (or fail).
// With nothing queued or being written they are written at once, on the
// caller's goroutine and without waiting for the PTY to take them: a key's
// echo then does not wait for the queue's goroutine to be scheduled, behind
// whatever else the key woke (the line model's timers, the drain, the
// clients' state). What the PTY does not take at once is queued, ahead of
// anything queued meanwhile.
func (q *writeQueue) enqueueInput(p []byte) {
	q.mu.Lock()
	if q.running {
		q.mu.Unlock()
		q.add(&writeReq{data: append([]byte(nil), p...), input: true})
		return
	}
	q.running = true // this goroutine writes: a write queued meanwhile waits for it
	q.mu.Unlock()
	n := q.writeNow(p)
	q.mu.Lock()
	q.releaseLocked(n)
	if n < len(p) {
		q.reqs = append([]*writeReq{{data: append([]byte(nil), p[n:]...), input: true}}, q.reqs...)
	}
	start := len(q.reqs) > 0
	q.running = start
	q.mu.Unlock()
	if start {
		go q.run()
	}
}

// writeNow writes what of p the PTY takes at once, without waiting, and
// returns how much that was (all of p when the child is gone or the
// terminal closed: a queued write would fail and be dropped too). Anything
// short of p, an error included, is left to the queue, whose write says
// what became of it.
func (q *writeQueue) writeNow(p []byte) int {
	select {
	case <-q.closed:
		return len(p)
	case <-q.done:
		return len(p)
	default:
	}
	rc, err := q.f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	if err := rc.Write(func(fd uintptr) bool {
		m, err := syscall.Write(int(fd), p)
		if err == nil {
			n = m
		}
		return true // one attempt: never wait for the PTY here
	}); err != nil {
		return 0
	}
	return n
}

// releaseLocked gives back n bytes of input reservation and wakes the
// waiters.
func (q *writeQueue) releaseLocked(n int) {
	q.input -= n
	if q.room != nil {
		close(q.room)
		q.room = nil
	}
}

// cancel stops r for a caller that gives up on it. A request still queued is
// withdrawn: it will never be written, and cancel reports true. A request
// being written is interrupted (its write deadline is moved to now), and
// cancel reports false: its result, which says how much went in, arrives on
// its res channel as usual.
func (q *writeQueue) cancel(r *writeReq) (withdrawn bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch r.state {
	case reqQueued:
		r.state = reqWithdrawn
		return true
	case reqStarted:
		_ = q.f.SetWriteDeadline(time.Now())
	}
	return false
}

// reply is the screen's non-blocking sink for query answers (DA1, CPR, ...).
func (q *writeQueue) reply(p []byte) { q.enqueue(p, nil, time.Time{}) }

// run serves the queue in order until it is empty. Only one run is under
// way at a time (running), so writes reach the PTY in the order enqueued.
func (q *writeQueue) run() {
	for {
		q.mu.Lock()
		reqs := q.reqs
		q.reqs = nil
		if len(reqs) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		for _, r := range reqs {
			q.serve(r)
		}
	}
}

// serve writes one request, unless it was withdrawn, and sends its result.
func (q *writeQueue) serve(r *writeReq) {
	var err error
	select {
	case <-q.closed:
		err = ErrClosed
	case <-q.done:
		err = ErrExited
	default:
		q.mu.Lock()
		if r.state == reqWithdrawn {
			if r.input {
				q.releaseLocked(len(r.data))
			}
			q.mu.Unlock()
			return
		}
		r.state = reqStarted
		// The master is non-blocking (poller-backed), so a deadline really
		// interrupts a write into a child that stopped reading. Set under
		// the lock, so a cancel of the previous request cannot move it.
		_ = q.f.SetWriteDeadline(r.deadline)
		q.mu.Unlock()
		var n int
		n, err = q.f.Write(r.data)
		if errors.Is(err, os.ErrClosed) {
			err = ErrClosed
		}
		if err != nil && n > 0 {
			err = &PartialWriteError{Written: n, Err: err}
		}
	}
	q.mu.Lock()
	r.state = reqDone
	if r.input {
		q.releaseLocked(len(r.data))
	}
	q.mu.Unlock()
	if r.res != nil {
		r.res <- err
	}
}
