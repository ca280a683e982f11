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
	garbage := make([][]byte, 0, 64)
	for range 64 {
		garbage = append(garbage, make([]byte, 64<<10))
	}
	garbage = nil
	_ = garbage
	if heapHeld() == 0 {
		t.Fatal("4 MiB of garbage: nothing held beyond the live heap")
	}
}
