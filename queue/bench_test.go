package queue

import (
	"context"
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
