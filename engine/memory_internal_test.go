package engine

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// fakeHeap is a heapReturner whose held heap the test sets; each release
// gives it all back.
func fakeHeap(held *atomic.Uint64) *heapReturner {
	return &heapReturner{quiet: time.Second, min: 100, held: held.Load, release: func() { held.Store(0) }}
}

func newHeld(n uint64) *atomic.Uint64 {
	var a atomic.Uint64
	a.Store(n)
	return &a
}

func TestHeapReturnedOnceOutputIsQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		held := newHeld(1000)
		h := fakeHeap(held)
		// Output every 500 ms for 3 s: never quiet, nothing released.
		for range 6 {
			h.output()
			time.Sleep(500 * time.Millisecond)
			synctest.Wait()
		}
		if n := h.releases.Load(); n != 0 {
			t.Fatalf("released %d times while output flowed", n)
		}
		// Quiet: released after a second of it, and not again.
		time.Sleep(time.Second)
		synctest.Wait()
		if n := h.releases.Load(); n != 1 || held.Load() != 0 {
			t.Fatalf("after a quiet second: %d releases, %d held", n, held.Load())
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if n := h.releases.Load(); n != 1 {
			t.Fatalf("%d releases with nothing held", n)
		}
		if h.armed.Load() {
			t.Fatal("a timer is still armed with nothing to give back")
		}
	})
}

func TestHeapReleasedAgainWhileItGrowsWithoutOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		held := newHeld(1000)
		h := fakeHeap(held)
		h.output()
		time.Sleep(time.Second)
		synctest.Wait()
		if n := h.releases.Load(); n != 1 {
			t.Fatalf("%d releases after the first quiet second", n)
		}
		// The heap grows again with no output (timed status reads): the
		// next look gives it back too.
		held.Store(500)
		time.Sleep(time.Second)
		synctest.Wait()
		if n := h.releases.Load(); n != 2 || held.Load() != 0 {
			t.Fatalf("%d releases, %d held after the heap grew without output", n, held.Load())
		}
	})
}

func TestHeapNotReleasedBelowMin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		held := newHeld(99)
		h := fakeHeap(held)
		h.output()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if n := h.releases.Load(); n != 0 {
			t.Fatalf("released %d times with less than min held", n)
		}
		// Output again arms again.
		held.Store(100)
		h.output()
		time.Sleep(time.Second)
		synctest.Wait()
		if n := h.releases.Load(); n != 1 {
			t.Fatalf("%d releases after new output and a quiet second", n)
		}
	})
}

func TestHeapHeldIsFromTheRuntime(t *testing.T) {
	garbage := make([][]byte, 64)
	for i := range garbage {
		garbage[i] = make([]byte, 64<<10)
	}
	garbage = nil
	_ = garbage
	if heapHeld() == 0 {
		t.Fatal("4 MiB of garbage: nothing held beyond the live heap")
	}
}

// TestHeapReturnedWhileQuietAfterIdle: an office that prints nothing still
// makes garbage (timed reads); with idle set it is given back at the next
// look, and a look finding too little only schedules the next.
func TestHeapReturnedWhileQuietAfterIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		held := newHeld(1000)
		h := fakeHeap(held)
		h.idle = 10 * time.Second
		h.output()
		time.Sleep(time.Second)
		synctest.Wait()
		if n := h.releases.Load(); n != 1 {
			t.Fatalf("%d releases after the first quiet second", n)
		}
		// Nothing to give back: the looks go on every 10 s, releasing nothing.
		time.Sleep(25 * time.Second)
		synctest.Wait()
		if n := h.releases.Load(); n != 1 || !h.armed.Load() {
			t.Fatalf("%d releases (armed %v) with nothing held", n, h.armed.Load())
		}
		// Garbage with no output: given back at the next look.
		held.Store(500)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if n := h.releases.Load(); n != 2 || held.Load() != 0 {
			t.Fatalf("%d releases, %d held after garbage made without output", n, held.Load())
		}
	})
}
