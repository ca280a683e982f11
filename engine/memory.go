package engine

// memory.go is the office process's memory setting: the heap it freed is
// given back to the operating system once the agents' output is quiet.
//
// Go keeps the heap it freed for reuse up to about 1.1 times its next GC
// goal, twice the live heap at the default GOGC=100. Agent output is what
// grows the heap (vt10x allocates for every byte it parses, see README
// "Performance"), so after a burst (every agent drawing its first screen,
// a turn's output) the process would hold up to twice its live heap for as
// long as it stays quiet, which for an office of idle agents is most of the
// time. A lower GOGC would hold less but makes the stream's collections
// several times as frequent; returning the freed heap once output stops costs
// one collection per quiet period and nothing while output flows.

import (
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

const (
	// heapReturnQuiet is how long no agent may have printed before the freed
	// heap is given back.
	heapReturnQuiet = 2 * time.Second
	// heapReturnMin is the least heap that can be given back (dead objects
	// and free pages) worth a collection: 1 MiB, 2 KiB an agent of an
	// office of 500.
	heapReturnMin = 1 << 20
	// heapReturnIdle is how often a quiet office looks again: its timed
	// reads (the needs-you list every second, the status judges'
	// deadlines) make garbage with no output, which Go would otherwise
	// keep until the heap doubles (500 agents: 100 MB). One collection of
	// idle agents' heap (their cells hold no pointers) every 30 s costs
	// well under 0.1 % of a core.
	heapReturnIdle = 30 * time.Second
)

// heapReturner gives the freed heap back once output has been quiet for
// quiet: output arms one timer (none while one is armed), and when it fires
// after quiet with no output it releases the heap if at least min bytes
// beyond the live heap can be given back. While there is less it looks
// again every idle (0: it disarms until the next output).
type heapReturner struct {
	quiet   time.Duration
	idle    time.Duration
	min     uint64
	held    func() uint64 // heap bytes held beyond the live heap
	release func()        // gives them back (debug.FreeOSMemory)

	last     atomic.Int64 // unix nanos of the latest output
	armed    atomic.Bool  // a timer is pending
	releases atomic.Int64 // how many times release ran
}

// newHeapReturner returns the process's heapReturner with the runtime's
// figures and debug.FreeOSMemory.
func newHeapReturner() *heapReturner {
	return &heapReturner{quiet: heapReturnQuiet, idle: heapReturnIdle, min: heapReturnMin, held: heapHeld, release: debug.FreeOSMemory}
}

// output records that an agent printed. It is called for every screen
// update, so it costs two atomic operations unless it arms the timer.
func (h *heapReturner) output() {
	h.last.Store(time.Now().UnixNano())
	if !h.armed.Load() && h.armed.CompareAndSwap(false, true) {
		time.AfterFunc(h.quiet, h.check)
	}
}

// check runs when the timer fires: before quiet has passed since the latest
// output it waits for the rest; after it, it releases the held heap when
// there is at least min of it and looks again after quiet (the heap can grow
// without output: timed status reads, clients' calls); once a look finds
// less it looks again after idle, or disarms when idle is 0.
func (h *heapReturner) check() {
	since := time.Duration(time.Now().UnixNano() - h.last.Load())
	if since < h.quiet {
		time.AfterFunc(h.quiet-since, h.check)
		return
	}
	if h.held() >= h.min {
		h.releases.Add(1)
		h.release()
		time.AfterFunc(h.quiet, h.check)
		return
	}
	if h.idle > 0 {
		time.AfterFunc(h.idle, h.check)
		return
	}
	h.armed.Store(false)
	// Output between the read above and the disarm armed nothing: arm
	// for it here unless it armed itself after the disarm.
	if time.Duration(time.Now().UnixNano()-h.last.Load()) < h.quiet && h.armed.CompareAndSwap(false, true) {
		time.AfterFunc(h.quiet, h.check)
	}
}

// heapMetrics are the runtime figures heapHeld reads.
var heapMetrics = [...]string{
	"/memory/classes/heap/objects:bytes", // live and not yet swept dead objects
	"/memory/classes/heap/free:bytes",    // free pages not yet returned
	"/gc/heap/live:bytes",                // live at the last collection
}

// heapHeld returns the heap held from the OS beyond the live heap the last
// collection marked that a release can give back: dead objects and free
// pages. Free slots in spans still in use (fragmentation) are not counted:
// no release returns them, and with many agents they alone passed
// heapReturnMin, so every look released again, a full collection every
// quiet period of an idle office (500 agents: most of its idle CPU).
func heapHeld() uint64 {
	var s [len(heapMetrics)]metrics.Sample
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	metrics.Read(s[:])
	objects, free, live := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
	return max(objects, live) - live + free
}
