package pool

import (
	"office/configs"

	"fmt"
	"runtime"
	"sort"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkHistoryOverhead feeds each recorded stream through a Screen
// without history and one with, alternating within each iteration so the
// host's drift cancels out, and reports the capture's extra CPU time in
// percent of the fastest passes (target: at most 10). 80×12 makes the streams scroll (lines are captured);
// 120×40 is their recorded size.
func BenchmarkHistoryOverhead(b *testing.B) {
	all := streams(b)
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		data := all[name]
		for _, size := range [][2]int{{120, 40}, {80, 12}} {
			b.Run(fmt.Sprintf("%s/%dx%d", name, size[0], size[1]), func(b *testing.B) {
				// The fastest pass of each kind is the one least disturbed
				// by other work on the host.
				plain, captured := time.Duration(1<<62), time.Duration(1<<62)
				lines := int64(0)
				// Time is this thread's CPU time, so that other work on the
				// host (which only delays the thread) does not count.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				feed := func(s *Screen) time.Duration {
					t0 := threadCPU(b)
					for off := 0; off < len(data); off += benchChunk {
						s.Feed(data[off:min(off+benchChunk, len(data))])
					}
					return threadCPU(b) - t0
				}
				b.SetBytes(int64(2 * len(data)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					p := NewScreen(size[0], size[1], nil)
					c, h := histScreen(size[0], size[1], defaultHistory)
					if i%2 == 0 {
						plain = min(plain, feed(p))
						captured = min(captured, feed(c))
					} else {
						captured = min(captured, feed(c))
						plain = min(plain, feed(p))
					}
					_, lines = h.Bounds()
				}
				b.ReportMetric(100*(float64(captured)/float64(plain)-1), "overhead-%")
				b.ReportMetric(float64(lines), "lines")
			})
		}
	}
}

// threadCPU is the CPU time the calling thread has used.
func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// BenchmarkHistoryMemory10000 fills a History with 10,000 lines of 120
// columns (text with a few colours, as an agent's transcript) and reports
// what they take: the encoded cells (held-B/line) and the heap the History
// grew by, slots and arena included (heap-B/line).
func BenchmarkHistoryMemory10000(b *testing.B) {
	const n = 10000
	var line []byte
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		s, h := histScreen(120, 40, n)
		for k := 0; k < n+39; k++ {
			line = fmt.Appendf(line[:0], "\x1b[32m●\x1b[0m Edit(\x1b[1mpool/history_%04d.go\x1b[0m) \x1b[2m— 12 lines changed, 中文 ok\x1b[0m %d\r\n", k, k)
			s.Feed(line)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		if _, total := h.Bounds(); total < n {
			b.Fatalf("%d lines", total)
		}
		b.ReportMetric(float64(h.Bytes())/n, "held-B/line")
		b.ReportMetric(float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc))/n, "heap-B/line")
		runtime.KeepAlive(s)
	}
}

// BenchmarkHistoryRows50 reads the 50 rows a copy-mode view of a tall pane
// shows, from a full History of 10,000 lines of 120 columns, into a reused
// slice: the per-frame cost.
func BenchmarkHistoryRows50(b *testing.B) {
	s, h := histScreen(120, 40, defaultHistory)
	var line []byte
	for k := 0; k < defaultHistory+40; k++ {
		line = fmt.Appendf(line[:0], "\x1b[32m●\x1b[0m Edit(\x1b[1mpool/history_%04d.go\x1b[0m) \x1b[2m— 12 lines changed, 中文 ok\x1b[0m %d\r\n", k, k)
		s.Feed(line)
	}
	first, _ := h.Bounds()
	var rows []HistoryLine
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		from := first + int64(i%9000)
		rows = h.Rows(from, from+50, rows)
	}
	if len(rows) != 50 {
		b.Fatalf("%d rows", len(rows))
	}
}

// defaultHistory is the history setting's default.
var defaultHistory = configs.Defaults().History
