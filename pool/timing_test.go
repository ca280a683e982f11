package pool_test

import (
	"testing"
	"time"

	"office/automation"
	"office/pool"
)

// next returns the earliest deadline of c's running timers (zero: none).
func (c *fakeClock) next() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var at time.Time
	for _, t := range c.timers {
		if at.IsZero() || t.at.Before(at) {
			at = t.at
		}
	}
	return at
}

// Behavior.Timing (the office file's ready_quiet, status_debounce,
// echo_grace, stale and picker_settle) is what a running terminal's
// readiness, debouncer and line model use: each deadline the monitor sleeps
// to, and each block, falls where the Timing says, not at automation's
// defaults (2 s, 300 ms, 1 s, 30 min, 500 ms).
func TestBehaviorTimingReachesTheTerminal(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clk := &fakeClock{now: t0}
	tm := automation.Timing{ReadyQuiet: 5 * time.Second, StatusDebounce: 4 * time.Second,
		EchoGrace: 7 * time.Second, Stale: 2 * time.Minute, PickerSettle: 3 * time.Second}
	term, err := pool.Start(pool.Options{Name: "custom", Argv: []string{"sh", "-c", "stty -echo; echo hello; exec cat >/dev/null"},
		Env: testEnv(), Clock: clk,
		Behavior: pool.Behavior{Status: automation.StatusRules{Quiet: 6 * time.Second}, Timing: tm}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	sleepsUntil := func(what string, at time.Time) {
		t.Helper()
		waitFor(t, 10*time.Second, what, func() bool { return clk.next().Equal(at) })
	}

	// ready_quiet: the first output at t0, ready 5 s later.
	waitFor(t, 10*time.Second, "the first output", func() bool { return !term.LastOutput().IsZero() })
	if out := term.LastOutput(); !out.Equal(t0) {
		t.Fatalf("output at %v on a clock standing at %v", out, t0)
	}
	sleepsUntil("the ready_quiet deadline", t0.Add(5*time.Second))
	if st := term.Status(); st != automation.StatusStarting {
		t.Fatalf("before ready_quiet: %v, want starting", st)
	}
	clk.Advance(5 * time.Second)
	waitFor(t, 10*time.Second, "ready (busy: output 5s ago, quiet 6s)", func() bool { return term.Status() == automation.StatusBusy })

	// status_debounce: raw idle at t0+6s (the quiet), adopted 4 s later.
	sleepsUntil("the quiet deadline", t0.Add(6*time.Second))
	clk.Advance(time.Second)
	sleepsUntil("the status_debounce deadline", t0.Add(10*time.Second))
	if j, st := term.Judgment(), term.Status(); j.Status != automation.StatusIdle || st != automation.StatusBusy {
		t.Fatalf("raw %v, debounced %v; want raw idle still debounced to busy", j.Status, st)
	}
	clk.Advance(4 * time.Second)
	waitFor(t, 10*time.Second, "idle after the debounce", func() bool { return term.Status() == automation.StatusIdle })

	// echo_grace: a keystroke's grace ends 7 s after it; stale: its draft
	// blocks for 2 min.
	at := clk.Now()
	input(t, term, "abc")
	sleepsUntil("the echo_grace deadline", at.Add(7*time.Second))
	if b := term.Block(at.Add(2*time.Minute - time.Nanosecond)); b != automation.BlockDraft {
		t.Fatalf("just before stale: %v, want your draft", b)
	}
	if b := term.Block(at.Add(2 * time.Minute)); b != automation.BlockNone {
		t.Fatalf("at stale: %v, want none (the default is 30 min)", b)
	}

	// picker_settle: Esc on a picker settles for 3 s.
	input(t, term, "\x15")
	input(t, term, "/model\r")
	if b := term.Block(at); b != automation.BlockPicker {
		t.Fatalf("after /model: %v, want picker open", b)
	}
	input(t, term, "\x1b")
	if b := term.Block(at.Add(3*time.Second - time.Nanosecond)); b != automation.BlockSettling {
		t.Fatalf("before picker_settle ended: %v, want settling", b)
	}
	if b := term.Block(at.Add(3 * time.Second)); b != automation.BlockNone {
		t.Fatalf("at picker_settle: %v, want none", b)
	}
}
