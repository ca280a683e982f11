package pool

// writer.go is a terminal's single write path: one ordered queue, served by
// one goroutine, for the person's keystrokes, automated writes and the
// screen's answers to terminal queries.

import (
	"errors"
	"os"
	"sync"
	"time"
)

// writeReq is one write; res, if non-nil, receives its outcome.
type writeReq struct {
	data     []byte
	res      chan<- error
	deadline time.Time // zero: none
}

// writeQueue serializes every write into one PTY master. Enqueueing never
// blocks; the serving goroutine may block inside a write (a child in raw mode
// that stops reading), which then delays only this terminal.
type writeQueue struct {
	f    *os.File
	mu   sync.Mutex
	reqs []writeReq
	sig  chan struct{}
}

func newWriteQueue(f *os.File) *writeQueue {
	return &writeQueue{f: f, sig: make(chan struct{}, 1)}
}

// enqueue appends a copy of p; a non-zero deadline bounds its write.
func (q *writeQueue) enqueue(p []byte, res chan<- error, deadline time.Time) {
	data := append([]byte(nil), p...)
	q.mu.Lock()
	q.reqs = append(q.reqs, writeReq{data: data, res: res, deadline: deadline})
	q.mu.Unlock()
	select {
	case q.sig <- struct{}{}:
	default:
	}
}

// reply is the screen's non-blocking sink for query answers (DA1, CPR, ...).
func (q *writeQueue) reply(p []byte) { q.enqueue(p, nil, time.Time{}) }

// run serves the queue until the terminal is closed. Once the child has
// exited, every queued write fails with ErrExited: a write into a dead child's
// PTY would "succeed" and vanish.
func (q *writeQueue) run(done, closed <-chan struct{}) {
	for {
		q.mu.Lock()
		reqs := q.reqs
		q.reqs = nil
		q.mu.Unlock()
		for _, r := range reqs {
			var err error
			select {
			case <-closed:
				err = ErrClosed
			case <-done:
				err = ErrExited
			default:
				// The master is non-blocking (poller-backed), so a deadline
				// really interrupts a write into a child that stopped reading.
				_ = q.f.SetWriteDeadline(r.deadline)
				_, err = q.f.Write(r.data)
				if errors.Is(err, os.ErrClosed) {
					err = ErrClosed
				}
			}
			if r.res != nil {
				r.res <- err
			}
		}
		select {
		case <-q.sig:
		case <-closed:
			q.failPending(ErrClosed)
			return
		}
	}
}

// failPending answers every queued write with err.
func (q *writeQueue) failPending(err error) {
	q.mu.Lock()
	reqs := q.reqs
	q.reqs = nil
	q.mu.Unlock()
	for _, r := range reqs {
		if r.res != nil {
			r.res <- err
		}
	}
}
