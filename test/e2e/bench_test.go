package e2e

import (
	"fmt"
	"os/exec"
	"sync/atomic"
	"testing"
)

// BenchmarkOfficeSend measures durable enqueues per second from separate
// `office send` processes (each opens the store, commits one message with
// fsync, pokes the socket if an office runs, and exits), serially and from 4
// concurrent senders:
//
//	go test -run '^$' -bench OfficeSend -benchtime 200x ./test/e2e
func BenchmarkOfficeSend(b *testing.B) {
	for _, procs := range []int{1, 4} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			o := newOffice(b, agentSpec{name: "a"})
			var n atomic.Int64
			b.SetParallelism(procs)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					cmd := exec.Command(officeBin, "send", "a", fmt.Sprintf("message %d", i), "--config", o.config, "--state", o.state)
					cmd.Env = o.env()
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Errorf("office send: %v: %s", err, out)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sends/s")
			if q := o.queue(); len(q) != b.N {
				b.Fatalf("%d queued after %d sends", len(q), b.N)
			}
		})
	}
}
