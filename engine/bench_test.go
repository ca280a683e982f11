package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"office/automation"
	"office/queue"
)

// BenchmarkEnqueueToEnter measures, in process, the time from a durable
// Enqueue (plus the Wake a store write gives the drain) to the fake agent
// reading the Enter that submitted the message, for idle agents with
// messages spaced past the 4.5 s cooldown. The design's floor is the 200 ms
// debounce plus the 140 ms gap before Enter; the target is p99 ≤ 360 ms.
// Each message costs a cooldown on its agent, so run it with a fixed count:
//
//	go test -run '^$' -bench EnqueueToEnter -benchtime 40x ./engine
func BenchmarkEnqueueToEnter(b *testing.B) {
	const agents = 4
	dir := b.TempDir()
	state := filepath.Join(dir, "state")
	e := open(b, fakeConfig(b, dir, agents, "--busy", "10ms"), state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range e.Agents() {
		for !(a.Term.Ready(time.Now()) && a.Term.Status() == automation.StatusIdle) {
			if time.Now().After(deadline) {
				b.Fatalf("agent %s not idle", a.Config.Name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	last := make([]time.Time, agents)
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := i % agents
		if wait := time.Until(last[n].Add(4600 * time.Millisecond)); wait > 0 {
			time.Sleep(wait) // keep each agent past its cooldown: measure the path, not the cooldown
		}
		text := fmt.Sprintf("bench %d", i)
		name := fmt.Sprintf("a%d", n)
		if _, err := e.Store().Enqueue(ctx, name, text, queue.EnqueueOptions{}); err != nil {
			b.Fatal(err)
		}
		queued := time.Now()
		e.Wake()
		at := waitPrompt(b, filepath.Join(dir, name+".jsonl"), text)
		lat = append(lat, at.Sub(queued))
		last[n] = queued
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// waitPrompt returns the time the fake agent logged prompt text.
func waitPrompt(b *testing.B, logPath, text string) time.Time {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if f, err := os.Open(logPath); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var l struct {
					Event string    `json:"event"`
					Text  string    `json:"text"`
					Time  time.Time `json:"time"`
				}
				if json.Unmarshal(sc.Bytes(), &l) == nil && l.Event == "prompt" && l.Text == text {
					f.Close()
					return l.Time
				}
			}
			f.Close()
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.Fatalf("prompt %q never arrived", text)
	return time.Time{}
}
