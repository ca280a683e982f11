package pool_test

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"office/automation"
	"office/pool"
)

// readMem reads the live heap and the goroutine stacks after a full
// collection.
func readMem() (live, stacks uint64) {
	runtime.GC()
	runtime.GC() // the second one sweeps what the first found dead
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// BenchmarkAgentMemory measures what one idle agent costs office's process
// at 120×40, the agent's own process excluded: the live heap (vt10x's two
// screens, about 160 KiB of it, and everything pool keeps: the filter, the
// line model, the status monitor's view, an empty history ring) and the
// goroutine stacks, per agent, from 16 fake agents started, drawn and idle:
//
//	go test -run '^$' -bench AgentMemory -benchtime 1x ./pool
//
// -memprofile with -memprofilerate 1 says where the heap goes.
func BenchmarkAgentMemory(b *testing.B) {
	const n = 16
	for b.Loop() {
		live0, stack0 := readMem()
		terms := make([]*pool.Terminal, n)
		for i := range terms {
			term, err := pool.Start(pool.Options{Name: fmt.Sprint("fake", i), Argv: []string{fakeAgentBin}, Env: testEnv(),
				Cols: 120, Rows: 40, Behavior: claudeLike, History: pool.NewHistory(10000)})
			if err != nil {
				b.Fatal(err)
			}
			terms[i] = term
		}
		deadline := time.Now().Add(30 * time.Second)
		for _, term := range terms {
			for term.Status() != automation.StatusIdle {
				if time.Now().After(deadline) {
					b.Fatal("agents not idle")
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		live1, stack1 := readMem()
		b.ReportMetric(float64(live1-live0)/n, "heap-B/agent")
		b.ReportMetric(float64(stack1-stack0)/n, "stack-B/agent")
		b.ReportMetric(float64(live1+stack1-live0-stack0)/n, "B/agent")
		b.StopTimer()
		for _, term := range terms {
			_ = term.Close()
		}
		b.StartTimer()
	}
}

// BenchmarkScreenText is one Screen.Text of a full 120×40 screen: it
// allocates the text alone (about 5 KB), not a copy of the cells (75 KiB).
func BenchmarkScreenText(b *testing.B) {
	s := pool.NewScreen(120, 40, nil)
	line := []byte("the agent reads files and writes patches, 中文 and 🎉 included, until the row is full of text...\r\n")
	for range 40 {
		s.Feed(line)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Text()
	}
}
