package engine

import (
	"errors"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"office/pool"
)

// fakeHistoryLog fails its first fails appends (a full disk), then writes.
type fakeHistoryLog struct {
	mu      sync.Mutex
	fails   int
	written []int64 // seqs, in order
	calls   chan struct{}
}

func (f *fakeHistoryLog) Append(recs []pool.HistoryRecord) error {
	f.mu.Lock()
	defer func() { f.mu.Unlock(); f.calls <- struct{}{} }()
	if f.fails > 0 {
		f.fails--
		return &writeErr{syscall.ENOSPC}
	}
	for _, r := range recs {
		f.written = append(f.written, r.Seq)
	}
	return nil
}

type writeErr struct{ err error }

func (w *writeErr) Error() string { return "history: write: " + w.err.Error() }
func (w *writeErr) Unwrap() error { return w.err }

func (f *fakeHistoryLog) Next() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.written) == 0 {
		return 0
	}
	return f.written[len(f.written)-1] + 1
}

func (f *fakeHistoryLog) Close() error { return nil }

func (f *fakeHistoryLog) seqs() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.written...)
}

// History is written again after a write error (the disk full, then space
// again): retried after historyRetryMin, doubling, on the engine's clock;
// the person is told once when it stops and once when it works again, with
// the lines lost meanwhile (those that fell off the ring).
func TestHistoryRetriesAfterAWriteError(t *testing.T) {
	t.Parallel()
	clk := newManualClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	fake := &fakeHistoryLog{fails: 2, calls: make(chan struct{}, 16)}
	told := make(chan string, 16)
	ah := &agentHistory{ring: pool.NewHistory(8), log: fake,
		flush: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	d := historyDeps{log: slog.New(slog.DiscardHandler), clock: clk, tell: func(agent, text string) { told <- agent + ": " + text }}
	go persistHistory(d, "dev", ah)
	defer func() { close(ah.stop); <-ah.done }()
	add := func(from, to int64) {
		for s := from; s < to; s++ {
			if err := ah.ring.Restore(pool.HistoryRecord{Seq: s, At: s, Line: []byte{byte(s)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	flush := func() {
		t.Helper()
		done := make(chan struct{})
		ah.flush <- done
		<-done
	}
	wantTold := func(want string) {
		t.Helper()
		select {
		case got := <-told:
			if !strings.Contains(got, want) {
				t.Fatalf("told %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("not told %q", want)
		}
	}
	armed := func() {
		t.Helper()
		select {
		case <-clk.armed:
		case <-time.After(10 * time.Second):
			t.Fatal("no retry armed")
		}
	}

	flush() // persistHistory took the ring's bounds: lines from here are new
	add(0, 5)
	flush() // the first write fails
	<-fake.calls
	wantTold("dev: The pane history of dev is not being written to its file: history: write: no space left on device")
	armed()
	if !ah.failing.Load() {
		t.Fatal("not failing after a failed write")
	}
	add(5, 12) // the ring (8 lines) now holds 4..11: 0..3 are lost
	flush()    // while failing, a flush does not write
	clk.advance(historyRetryMin)
	<-fake.calls // the second write fails too: the wait doubles
	armed()
	clk.advance(historyRetryMin) // not due yet
	select {
	case <-fake.calls:
		t.Fatal("retried before the doubled back-off")
	default:
	}
	clk.advance(historyRetryMin)
	<-fake.calls // space again
	wantTold("dev: The pane history of dev is written to its file again (4 lines were lost meanwhile)")
	flush()
	if got := fake.seqs(); len(got) != 8 || got[0] != 4 || got[7] != 11 {
		t.Fatalf("written %v, want 4..11", got)
	}
	if ah.failing.Load() {
		t.Fatal("still failing after a write that worked")
	}
	add(12, 14) // and on as before, with no further notice
	flush()
	<-fake.calls
	if got := fake.seqs(); got[len(got)-1] != 13 {
		t.Fatalf("written %v, want up to 13", got)
	}
	select {
	case got := <-told:
		t.Fatalf("told again: %q", got)
	default:
	}
	if !errors.Is(&writeErr{syscall.ENOSPC}, syscall.ENOSPC) {
		t.Fatal("writeErr does not unwrap")
	}
}
