package e2e

// server_bench_test.go measures the server against its clients. Run once:
//
//	go test -run '^$' -bench 'Server|Attach|BusyPane' -benchtime 1x ./test/e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"

	"office/client"
	"office/wire"
)

// sixteenIdle starts an office of 16 idle fake agents.
func sixteenIdle(b *testing.B) *office {
	var specs []agentSpec
	for i := 0; i < 16; i++ {
		specs = append(specs, agentSpec{name: fmt.Sprintf("a%02d", i)})
	}
	o := newOffice(b, specs...)
	o.startServe()
	return o
}

// BenchmarkAttachFirstFullFrame16 is attach to the first full picture of 16
// agents: connect, handshake, roster, state and 16 full screens decoded and
// applied (target ≤ 150 ms).
func BenchmarkAttachFirstFullFrame16(b *testing.B) {
	o := sixteenIdle(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		c, err := client.Dial(ctx, client.Local(o.state), client.Options{Client: "bench", Screens: true})
		if err != nil {
			b.Fatal(err)
		}
		for {
			n := 0
			for _, a := range c.Roster() {
				if c.Generation(a.Name) > 0 {
					n++
				}
			}
			if n == 16 {
				break
			}
			select {
			case <-c.Changed():
			case <-c.Done():
				b.Fatal(c.Err())
			}
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms/first-frame")
		c.Close()
	}
}

// busyPane is a pane that redraws like a busy CLI: a status line with a
// counter and a log that scrolls a line every 20 ms.
var busyPane = []string{"bash", "--norc", "-c", `i=0; while :; do i=$((i+1)); printf '\033[s\033[1;60H\033[7m step %06d \033[0m\033[u' $i; echo "log line $i: compiling package number $((i % 97)) of the tree"; sleep 0.02; done`}

// BenchmarkBusyPaneBytesPerSecond counts the bytes a client receives per
// second for one busy pane (120×40), and what tmux sends its own client for
// the same program in a window of the same size.
func BenchmarkBusyPaneBytesPerSecond(b *testing.B) {
	o := newOffice(b)
	o.addAgent("busy", "", busyPane...)
	o.startServeUntil("the busy agent running", func() bool {
		_, ok := o.status()
		return ok
	})
	const window = 5 * time.Second
	b.ResetTimer()
	for b.Loop() {
		conn, err := net.Dial("unix", filepath.Join(o.state, wire.SocketFile))
		if err != nil {
			b.Fatal(err)
		}
		w := wire.NewWriter(conn)
		h := wire.NewHello("bench")
		h.Screens = true
		w.Write(h)
		w.Flush()
		// Skip the first second (the full snapshot), then count.
		var n atomic.Int64
		go func() {
			buf := make([]byte, 64<<10)
			for {
				k, err := conn.Read(buf)
				n.Add(int64(k))
				if err != nil {
					return
				}
			}
		}()
		time.Sleep(time.Second) // the snapshot goes by; a window, not a wait for a condition
		n0 := n.Load()
		time.Sleep(window) // the measurement window
		office := float64(n.Load()-n0) / window.Seconds()
		conn.Close()
		b.ReportMetric(office, "office-B/s")
		if t := tmuxBytesPerSecond(b, o, window); t > 0 {
			b.ReportMetric(t, "tmux-B/s")
		}
	}
}

// tmuxBytesPerSecond runs busyPane in a tmux window of 120×40 and counts
// what an attached tmux client writes to its terminal during window.
func tmuxBytesPerSecond(b *testing.B, o *office, window time.Duration) float64 {
	if _, err := exec.LookPath("tmux"); err != nil {
		return 0
	}
	sock := filepath.Join(o.dir, "tmux-bench.sock")
	q := make([]string, len(busyPane))
	for i, s := range busyPane {
		q[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	if out, err := exec.Command("tmux", "-S", sock, "new-session", "-d", "-x", "120", "-y", "40", "-s", "busy", strings.Join(q, " ")).CombinedOutput(); err != nil {
		b.Fatalf("tmux: %v: %s", err, out)
	}
	defer exec.Command("tmux", "-S", sock, "kill-server").Run()
	cmd := exec.Command("tmux", "-S", sock, "attach", "-t", "busy")
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { f.Close(); cmd.Process.Kill(); cmd.Wait() }()
	var n atomic.Int64
	go func() {
		buf := make([]byte, 64<<10)
		for {
			k, err := f.Read(buf)
			n.Add(int64(k))
			if err != nil {
				return
			}
		}
	}()
	time.Sleep(time.Second) // the first full redraw goes by
	n0 := n.Load()
	time.Sleep(window) // the measurement window
	return float64(n.Load()-n0) / window.Seconds()
}

// BenchmarkServerCPUIdleNoClient is the server's CPU with 16 idle agents
// and no client attached.
func BenchmarkServerCPUIdleNoClient(b *testing.B) {
	o := sixteenIdle(b)
	pid := o.serve.Process.Pid
	b.ResetTimer()
	for b.Loop() {
		b.ReportMetric(cpuOver(b, pid, 10*time.Second), "cpu%")
	}
}
