package queue

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkEnqueue measures durable single-row enqueues: each one is its own
// BEGIN IMMEDIATE transaction committed with synchronous=FULL (one fsync).
func BenchmarkEnqueue(b *testing.B) {
	s := open(b, Options{}, "a")
	ctx := context.Background()
	text := "please review the change in queue/messages.go and report back with findings " +
		"about ordering, durability and the dedupe rules; keep it short and concrete, thanks " +
		"(a 240-byte body, like the persistence measurements in libs.md section 5) ...."
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Enqueue(ctx, "a", text, EnqueueOptions{Source: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkBaselineInsert is the floor BenchmarkEnqueue is compared with: one
// autocommit INSERT per op on the same settings (WAL, synchronous=FULL), no
// checks, no event row, as in libs.md §5.2.
func BenchmarkBaselineInsert(b *testing.B) {
	s := open(b, Options{})
	if _, err := s.DB().Exec(`CREATE TABLE baseline (id INTEGER PRIMARY KEY, agent TEXT, body TEXT)`); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("x", 240)
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.DB().Exec(`INSERT INTO baseline (agent, body) VALUES ('a', ?)`, body); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkEnqueueParallel measures durable enqueues from 32 goroutines on
// one handle: group commit shares each fsync among the writes waiting for it
// (the target is ≥ 1,000 durable sends/s; compare BenchmarkEnqueue, one
// goroutine, one fsync per send).
func BenchmarkEnqueueParallel(b *testing.B) {
	s := open(b, Options{}, "a")
	ctx := context.Background()
	before := s.commits.Load()
	b.SetParallelism(32 / max(1, runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Enqueue(ctx, "a", "a 240-byte body or so: please review the change and report back", EnqueueOptions{Source: "bench"}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(b.N)/float64(max(1, s.commits.Load()-before)), "writes/commit")
}

// Benchmark32Processes measures durable enqueues from 32 processes at once,
// each with its own handle and one goroutine (like 32 `office send` loops;
// each process does b.N/32 enqueues; the processes' start is included).
func Benchmark32Processes(b *testing.B) {
	const procs = 32
	path := filepath.Join(b.TempDir(), "queue.db")
	s := openAt(b, path, Options{}, "a")
	per := max(1, b.N/procs)
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmds[i] = helperCmd(b, "enqueue", path, "a", per)
	}
	b.ResetTimer()
	errs := make(chan error, procs)
	for _, c := range cmds {
		go func() {
			out, err := c.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("%v: %s", err, out)
			}
			errs <- err
		}()
	}
	for range procs {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	n, err := s.Counts(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if n["a"] != per*procs {
		b.Fatalf("%d messages stored, want %d", n["a"], per*procs)
	}
	b.ReportMetric(float64(per*procs)/b.Elapsed().Seconds(), "ops/s")
}
