package e2e

// attach_bench_test.go measures the real UI client attached to a running
// server, as the person sees it: the client's output read from its PTY into
// a real terminal screen. Run once:
//
//	go test -run '^$' -bench 'AttachUI|KeyToEcho' -benchtime 1x ./test/e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"office/pool"
)

// term is a program in a PTY whose output feeds a real terminal screen.
type term struct {
	cmd     *exec.Cmd
	f       *os.File
	mu      sync.Mutex
	scr     *pool.Screen
	changed chan struct{}
	done    chan struct{}
}

// startTerm runs argv in a PTY of cols × rows with env.
func startTerm(b *testing.B, cols, rows int, env []string, argv ...string) *term {
	b.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		b.Fatal(err)
	}
	t := &term{cmd: cmd, f: f, scr: pool.NewScreen(cols, rows, nil), changed: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				t.mu.Lock()
				t.scr.Feed(buf[:n])
				t.mu.Unlock()
				select {
				case t.changed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return t
}

func (t *term) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scr.Text()
}

// until waits for cond on the screen, woken by the program's output.
func (t *term) until(b *testing.B, d time.Duration, what string, cond func(string) bool) {
	b.Helper()
	deadline := time.After(d)
	for !cond(t.text()) {
		select {
		case <-t.changed:
		case <-t.done:
			b.Fatalf("the program ended before %s:\n%s", what, t.text())
		case <-deadline:
			b.Fatalf("timed out waiting for %s:\n%s", what, t.text())
		}
	}
}

// stop hangs up on the program (a closed window) and waits for it.
func (t *term) stop() {
	_ = t.cmd.Process.Signal(syscall.SIGHUP)
	t.f.Close()
	_ = t.cmd.Wait()
	<-t.done
}

// BenchmarkAttachUIFirstFrame16 is `office` started against a running server
// of 16 idle agents until its first frame shows every pane of the first page
// (9): title bar and screen (target ≤ 150 ms; process start included).
func BenchmarkAttachUIFirstFrame16(b *testing.B) {
	o := sixteenIdle(b)
	env := o.env()
	var ms []float64
	for b.Loop() {
		start := time.Now()
		t := startTerm(b, 240, 60, env, officeBin, "--config", o.config, "--state", o.state)
		t.until(b, 10*time.Second, "9 panes drawn", func(s string) bool {
			return strings.Count(s, "· claude · idle") == 9 && strings.Count(s, "fakeagent (test double") == 9
		})
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
		t.stop()
	}
	slices.Sort(ms)
	b.ReportMetric(ms[len(ms)/2], "ms/first-frame-p50")
	b.ReportMetric(ms[len(ms)-1], "ms/first-frame-max")
}

// typingGap is the cadence of keyToEcho's keys: a fast typist's (25 keys a
// second). Keys sent back to back would measure the server's frame pacing
// (frameInterval merges changes closer than 16 ms), not the latency a
// person sees.
const typingGap = 40 * time.Millisecond

// keyToEcho types n keys, one every typingGap, into the program on t and
// returns each key's time until the screen shows one more of it.
func keyToEcho(b *testing.B, t *term, n int) []time.Duration {
	b.Helper()
	out := make([]time.Duration, 0, n)
	cadence := time.NewTicker(typingGap)
	defer cadence.Stop()
	for i := 0; i < n; i++ {
		<-cadence.C
		before := strings.Count(t.text(), "x")
		start := time.Now()
		if _, err := io.WriteString(t.f, "x"); err != nil {
			b.Fatal(err)
		}
		t.until(b, 5*time.Second, "the echo", func(s string) bool { return strings.Count(s, "x") > before })
		out = append(out, time.Since(start))
		if i%60 == 59 {
			// A fresh line (Ctrl-U erases the echoed one) so nothing wraps away.
			io.WriteString(t.f, "\x15")
			t.until(b, 5*time.Second, "the line erased", func(s string) bool { return strings.Count(s, "x") < before })
		}
	}
	return out
}

func quantiles(b *testing.B, d []time.Duration, unit string) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, unit+"-p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, unit+"-p99-ms")
}

// echoAgent is a program that echoes keys (the PTY's line discipline does,
// as a shell's prompt would), printing nothing else.
var echoAgent = []string{"sh", "-c", "echo ready; exec cat"}

// BenchmarkAttachKeyToEcho is the time from a key written to the attached
// client's terminal to its echo on that terminal (client → server → the
// agent's PTY → its screen → the client → drawn), p50 and p99 over 200 keys;
// beside it the same through tmux in the same run (tmux-p50/p99), when tmux
// is installed.
func BenchmarkAttachKeyToEcho(b *testing.B) {
	o := newOffice(b)
	o.addAgent("echo", "", echoAgent...)
	o.startServeUntil("the echo agent", func() bool { _, ok := o.status(); return ok })
	const keys = 200
	var office, tmuxd []time.Duration
	for b.Loop() {
		t := startTerm(b, 120, 40, o.env(), officeBin, "--config", o.config, "--state", o.state)
		t.until(b, 10*time.Second, "the agent's pane", func(s string) bool { return strings.Contains(s, "ready") })
		office = append(office, keyToEcho(b, t, keys)...)
		t.stop()
		if _, err := exec.LookPath("tmux"); err != nil {
			continue
		}
		sock := filepath.Join(o.dir, "tmux-echo.sock")
		q := make([]string, len(echoAgent))
		for i, s := range echoAgent {
			q[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		if out, err := exec.Command("tmux", "-S", sock, "new-session", "-d", "-x", "120", "-y", "40", "-s", "echo", strings.Join(q, " ")).CombinedOutput(); err != nil {
			b.Fatalf("tmux: %v: %s", err, out)
		}
		tt := startTerm(b, 120, 40, append(o.env(), "TMUX="), "tmux", "-S", sock, "attach", "-t", "echo")
		tt.until(b, 10*time.Second, "tmux's pane", func(s string) bool { return strings.Contains(s, "ready") })
		tmuxd = append(tmuxd, keyToEcho(b, tt, keys)...)
		tt.stop()
		exec.Command("tmux", "-S", sock, "kill-server").Run()
	}
	quantiles(b, office, "office")
	if len(tmuxd) > 0 {
		quantiles(b, tmuxd, "tmux")
	}
}
