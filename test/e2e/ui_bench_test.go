package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpuTicks returns the user+system clock ticks (1/100 s) pid has used.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	// Fields after the command: state(0) ... utime(11) stime(12).
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse %s/stat", strconv.Itoa(pid))
	}
	return u + st, nil
}

// cpuOver returns the percentage of one core pid used during d.
func cpuOver(b *testing.B, pid int, d time.Duration) float64 {
	b.Helper()
	t0, err := cpuTicks(pid)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	time.Sleep(d) // the measurement window itself, not a wait for a condition
	t1, err := cpuTicks(pid)
	if err != nil {
		b.Fatal(err)
	}
	return float64(t1-t0) / 100 / time.Since(start).Seconds() * 100
}

// BenchmarkUICPU16Idle8Spinning measures the office process's CPU with the
// UI up under tmux (240×60) and 24 fake agents: first all idle, then with 8
// of them busy for an hour (spinner title every 100 ms, "Working…" line), all
// eight on the visible page. Run once:
//
//	go test -run '^$' -bench UICPU -benchtime 1x ./test/e2e
func BenchmarkUICPU16Idle8Spinning(b *testing.B) {
	var specs []agentSpec
	for i := 0; i < 8; i++ {
		specs = append(specs, agentSpec{name: fmt.Sprintf("spin%d", i), args: []string{"--busy", "1h"}})
	}
	for i := 0; i < 16; i++ {
		specs = append(specs, agentSpec{name: fmt.Sprintf("idle%02d", i)})
	}
	o := newOffice(b, specs...)
	tm := o.startUI(240, 60)
	o.waitFor(60*time.Second, "24 agents idle", func() bool {
		st, ok := o.status()
		if !ok || len(st) != 24 {
			return false
		}
		for _, s := range st {
			if s.Status != "idle" {
				return false
			}
		}
		return true
	})
	pid, err := strconv.Atoi(strings.TrimSpace(tm.cmd("display-message", "-p", "-t", officeTarget, "#{pane_pid}")))
	if err != nil {
		b.Fatal(err)
	}
	if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(comm)) != "office" {
		b.Fatalf("pane process %d is %q, not office", pid, comm)
	}
	const window = 10 * time.Second
	b.ResetTimer()
	for b.Loop() {
		idle := cpuOver(b, pid, window)
		for i := 0; i < 8; i++ {
			o.send(fmt.Sprintf("spin%d", i), "spin for an hour")
		}
		o.waitFor(60*time.Second, "8 agents busy", func() bool {
			st, _ := o.status()
			n := 0
			for _, s := range st {
				if s.Status == "busy" {
					n++
				}
			}
			return n == 8
		})
		spinning := cpuOver(b, pid, window)
		b.ReportMetric(idle, "cpu%-24idle")
		b.ReportMetric(spinning, "cpu%-16idle+8spin")
	}
}
