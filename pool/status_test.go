package pool_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"office/automation"
	"office/pool"
)

// A command that prints nothing is starting within its boot grace and idle
// after it (quiescence: no output at all); the terminal reports the overdue
// boot once.
func TestSilentAgentIsIdleAfterTheBootGrace(t *testing.T) {
	t.Parallel()
	var overdue atomic.Int32
	grace := 1500 * time.Millisecond
	term, err := pool.Start(pool.Options{Name: "quiet", Argv: []string{"sh", "-c", "stty -echo; exec cat >/dev/null"},
		Env: testEnv(), Behavior: pool.Behavior{BootGrace: grace},
		Notify: func(e pool.Event) {
			if e.Kind == pool.EventBootOverdue {
				overdue.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	time.Sleep(200 * time.Millisecond) // the monitor has judged a few times
	if st, sig := term.StatusSignal(); st != automation.StatusStarting || sig != "starting" || term.Ready(time.Now()) {
		t.Fatalf("within the grace: %v by %q (ready %v), want starting", st, sig, term.Ready(time.Now()))
	}
	waitFor(t, 5*time.Second, "idle after the grace", func() bool { return term.Status() == automation.StatusIdle })
	if _, sig := term.StatusSignal(); sig != "quiescence" || !term.Ready(time.Now()) || !term.BootOverdue() {
		t.Fatalf("after the grace: signal %q ready %v overdue %v", sig, term.Ready(time.Now()), term.BootOverdue())
	}
	if time.Since(term.Spawned()) < grace {
		t.Fatalf("idle after %v, before the %v grace", time.Since(term.Spawned()), grace)
	}
	j := term.Judgment()
	if d := j.Decided(); d.Signal != automation.SignalOutput || d.Found != automation.FindNoOutput {
		t.Fatalf("decided by %+v", d)
	}
	waitFor(t, time.Second, "one overdue event", func() bool { return overdue.Load() == 1 })
	time.Sleep(300 * time.Millisecond)
	if n := overdue.Load(); n != 1 {
		t.Fatalf("%d overdue events, want 1", n)
	}
}

// Of hook reports landing in any order, the newest (highest Seq) is kept.
func TestSetHookKeepsTheNewestReport(t *testing.T) {
	t.Parallel()
	term, _ := startFake(t)
	if term.SetHook(automation.HookReport{Seq: 2, Event: "PreToolUse", Status: automation.StatusBusy, At: time.Now()}) != true {
		t.Fatal("a first report must be taken")
	}
	if term.SetHook(automation.HookReport{Seq: 1, Event: "Stop", Status: automation.StatusIdle, At: time.Now()}) {
		t.Fatal("an older report replaced a newer one")
	}
	if h := term.Hook(); h.Seq != 2 || h.Status != automation.StatusBusy {
		t.Fatalf("hook %+v, want seq 2 busy", h)
	}
	var wg sync.WaitGroup
	seqs := rand.Perm(50)
	for _, s := range seqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			term.SetHook(automation.HookReport{Seq: uint64(s + 3), Event: "Stop", Status: automation.StatusIdle, At: time.Now()})
		}()
	}
	wg.Wait()
	if h := term.Hook(); h.Seq != 52 {
		t.Fatalf("after concurrent reports: seq %d, want 52", h.Seq)
	}
	waitFor(t, 2*time.Second, "the hook decides", func() bool {
		_, sig := term.StatusSignal()
		return sig == "hook"
	})
}

// A shell's prompt is learned once a command has returned; a line the shell
// recalled (Up) after it is the person's draft, and clearing it ends that.
func TestShellRecalledLineIsADraft(t *testing.T) {
	t.Parallel()
	term, err := pool.Start(pool.Options{Name: "sh", Argv: []string{"bash", "--norc", "--noprofile"},
		Env: append(testEnv(), "PS1=office-test$ "), Behavior: pool.Behavior{ShellIdle: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 10*time.Second, "shell idle", func() bool { return term.Status() == automation.StatusIdle })
	input(t, term, "echo recalled-command\r")
	waitFor(t, 10*time.Second, "the prompt learned, the line empty", promptIs(term, ""))
	if term.HasDraft() {
		t.Fatal("an empty line is a draft")
	}
	time.Sleep(200 * time.Millisecond) // a human gap before the key
	input(t, term, "\x1b[A")
	waitFor(t, 10*time.Second, "the recalled line as a draft", func() bool {
		return term.HasDraft() && strings.Contains(term.Draft(), "echo recalled-command")
	})
	if b := term.Block(time.Now()); b != automation.BlockDraft {
		t.Fatalf("block %v, want your draft", b)
	}
	input(t, term, "\x15")
	waitFor(t, 10*time.Second, "the draft cleared with the line", func() bool { return !term.HasDraft() })
}

// fakeClock is a Clock whose time moves only by Advance; its timers fire
// when Advance passes their deadline.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c     chan time.Time
	at    time.Time
	clock *fakeClock
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) pool.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: make(chan time.Time, 1), at: c.now.Add(d), clock: c}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.timers {
		if x == t {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			return true
		}
	}
	return false
}

// Advance moves the clock by d and fires the timers due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.c <- c.now
	}
	c.timers = kept
}

// Pending returns how many timers are running.
func (c *fakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// An idle agent is judged only when something happens or a deadline of the
// judge is reached: with nothing pending, an hour of the clock costs no
// judgment at all, and a keystroke costs a few, then nothing again.
func TestIdleAgentDoesNoWorkBetweenDeadlines(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	logPath := t.TempDir() + "/agent.jsonl"
	term, err := pool.Start(pool.Options{Name: "fake", Argv: []string{fakeAgentBin, "--log", logPath},
		Env: testEnv(), Cols: 120, Rows: 40, Behavior: claudeLike, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 15*time.Second, "ready and idle on the fake clock", func() bool {
		clk.Advance(50 * time.Millisecond)
		return term.Status() == automation.StatusIdle
	})
	// Let the last judgments run out; then nothing is pending.
	waitFor(t, 5*time.Second, "no deadline pending", func() bool {
		clk.Advance(50 * time.Millisecond)
		return clk.Pending() == 0
	})
	idleFor := func(what string) {
		t.Helper()
		// The hour counts only if no output reached the screen while it was
		// measured: output is an event, and judging it is work the test
		// does not forbid. Under load the agent's last redraw (an echo)
		// can land late; then the hour is measured again.
		for try := 1; ; try++ {
			gen := term.Generation()
			// Let the judgments of events already in flight land first
			// (the clock stands still meanwhile).
			for n := term.Judgments(); ; {
				time.Sleep(300 * time.Millisecond)
				if n2 := term.Judgments(); n2 == n {
					break
				} else {
					n = n2
				}
			}
			n, timers := term.Judgments(), clk.Pending()
			for range 60 {
				clk.Advance(time.Minute)
			}
			time.Sleep(300 * time.Millisecond) // real time for any stray goroutine work
			got, pending := term.Judgments(), clk.Pending()
			if term.Generation() != gen && try < 5 {
				continue // output arrived meanwhile: not an idle hour
			}
			if got != n && timers == 0 && pending == 0 && try < 5 {
				// No deadline was set, so no timer judged: the judgment of
				// an event already in flight landed late (a loaded
				// machine). Work on a schedule would show again.
				continue
			}
			if got != n || pending != 0 {
				t.Fatalf("%s: an idle hour cost %d judgments, %d timers pending (try %d)", what, got-n, pending, try)
			}
			return
		}
	}
	idleFor("after boot")
	n := term.Judgments()
	input(t, term, "abc")
	waitFor(t, 5*time.Second, "the keystroke's echo-grace deadline", func() bool { return clk.Pending() == 1 })
	// The echo comes in real time and the clock stands still: under load
	// it can land after an advance past the grace, and the keys would
	// then not count as the person's draft. Let it land first.
	waitFor(t, 5*time.Second, "the keystrokes' echo on the prompt", promptIs(term, "abc"))
	clk.Advance(automation.EchoGrace)
	waitFor(t, 5*time.Second, "no deadline pending after the echo grace", func() bool {
		clk.Advance(10 * time.Millisecond)
		return clk.Pending() == 0
	})
	if d := term.Judgments() - n; d == 0 || d > 20 {
		t.Fatalf("a keystroke cost %d judgments", d)
	}
	if !term.HasDraft() {
		t.Fatal("the typed text is no draft")
	}
	idleFor("with a draft")
}

// BenchmarkIdleAgents measures what 16 idle agents cost office between
// events: judgments per agent-second and this process's CPU (the agents' own
// processes excluded). Each iteration is 100 ms of wall time:
//
//	go test -run '^$' -bench IdleAgents -benchtime 50x ./pool
func BenchmarkIdleAgents(b *testing.B) {
	const n = 16
	terms := make([]*pool.Terminal, n)
	for i := range terms {
		term, err := pool.Start(pool.Options{Name: fmt.Sprint("fake", i), Argv: []string{fakeAgentBin}, Env: testEnv(),
			Cols: 120, Rows: 40, Behavior: claudeLike})
		if err != nil {
			b.Fatal(err)
		}
		defer term.Close()
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
	time.Sleep(time.Second) // the last deadlines of the boot run out
	count := func() (j uint64) {
		for _, term := range terms {
			j += term.Judgments()
		}
		return j
	}
	var r0, r1 syscall.Rusage
	j0 := count()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	start := time.Now()
	b.ResetTimer()
	for b.Loop() {
		time.Sleep(100 * time.Millisecond)
	}
	b.StopTimer()
	wall := time.Since(start)
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
	b.ReportMetric(float64(count()-j0)/(n*wall.Seconds()), "judgments/agent-s")
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%")
}
