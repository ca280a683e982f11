package pool_test

import (
	"strings"
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

// hookStep returns the judgment's hook step.
func hookStep(j automation.Judgment) automation.Step {
	for _, s := range j.Steps {
		if s.Signal == automation.SignalHook {
			return s
		}
	}
	return automation.Step{}
}

// Behavior.Timing's hook and turn windows (the office file's hook_stale,
// hook_waiting_stale and turn_grace) are what a running terminal's judge and
// turn machine use: a report the title contradicts goes stale, and the
// person's turn that never shows busy ends, where the Timing says, not at
// automation's 3 s, 10 s and 10 s.
func TestBehaviorHookAndTurnWindowsReachTheTerminal(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clk := &fakeClock{now: t0}
	tm := automation.Timing{HookStale: 5 * time.Second, HookWaitingStale: 20 * time.Second, TurnGrace: 4 * time.Second}
	ends := make(chan automation.TurnEvent, 16)
	term, err := pool.Start(pool.Options{Name: "custom",
		Argv: []string{"sh", "-c", `stty -echo; printf '\033]0;%s\007' '✳ idle'; exec cat >/dev/null`},
		Env:  testEnv(), Clock: clk,
		Notify: func(ev pool.Event) {
			if ev.Kind == pool.EventTurnEnd {
				select {
				case ends <- ev.Turn:
				default:
				}
			}
		},
		Behavior: pool.Behavior{Status: automation.StatusRules{TitleIdle: "✳", Quiet: time.Hour}, Timing: tm}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	sleepsUntil := func(what string, at time.Time) {
		t.Helper()
		waitFor(t, 10*time.Second, what, func() bool { return clk.next().Equal(at) })
	}
	signal := func(what, want string) {
		t.Helper()
		waitFor(t, 10*time.Second, what, func() bool { return term.Judgment().Signal() == want })
	}

	// Ready (the first output and ready_quiet's default 2 s), idle by the title.
	waitFor(t, 10*time.Second, "the title", func() bool { return term.Modes().Title == "✳ idle" })
	sleepsUntil("the ready_quiet deadline", t0.Add(2*time.Second))
	clk.Advance(2 * time.Second)
	signal("idle by the title", "title")

	// hook_stale: a busy report the idle title contradicts counts for 5 s.
	t1 := clk.Now()
	term.SetHook(automation.HookReport{Seq: 1, Event: "PreToolUse", Status: automation.StatusBusy, At: t1})
	signal("busy by the hook", "hook")
	sleepsUntil("the hook_stale deadline", t1.Add(5*time.Second))
	clk.Advance(5 * time.Second)
	signal("the stale report, the title decides", "title")
	if s := hookStep(term.Judgment()); s.Found != automation.FindStale || s.Limit != 5*time.Second {
		t.Fatalf("hook step %v limit %v, want stale at 5s", s.Found, s.Limit)
	}

	// hook_waiting_stale: a waiting report counts for 20 s.
	t2 := clk.Now()
	term.SetHook(automation.HookReport{Seq: 2, Event: "Notification", Status: automation.StatusWaiting, At: t2})
	signal("waiting by the hook", "hook")
	sleepsUntil("the hook_waiting_stale deadline", t2.Add(20*time.Second))
	clk.Advance(20 * time.Second)
	signal("the stale waiting report, the title decides", "title")
	if s := hookStep(term.Judgment()); s.Found != automation.FindStale || s.Limit != 20*time.Second {
		t.Fatalf("hook step %v limit %v, want stale at 20s", s.Found, s.Limit)
	}
	sleepsUntil("the status debounce", clk.Now().Add(automation.StatusDebounce))
	clk.Advance(automation.StatusDebounce)
	waitFor(t, 10*time.Second, "idle", func() bool { return term.Status() == automation.StatusIdle })

	// turn_grace: the person's turn, never busy, holds and then ends 4 s
	// after the Enter.
	t3 := clk.Now()
	term.StartTurn(automation.PersonEnter())
	if !term.Judgment().Held {
		t.Fatal("the person's Enter does not hold")
	}
	sleepsUntil("the turn_grace deadline", t3.Add(4*time.Second))
	clk.Advance(4 * time.Second)
	select {
	case ev := <-ends:
		if !ev.At.Equal(t3.Add(4 * time.Second)) {
			t.Fatalf("the turn ended at %v, want %v", ev.At, t3.Add(4*time.Second))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end at turn_grace")
	}
	if term.Judgment().Held {
		t.Fatal("still held after turn_grace")
	}
}

// Behavior.ShellPoll and ShellPromptQuiet (the office file's shell_poll and
// shell_prompt_quiet) are a shell agent's foreground poll and the quiet
// before its prompt is learned, not the table's 100 ms and 150 ms.
func TestBehaviorShellWindowsReachTheTerminal(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clk := &fakeClock{now: t0}
	term, err := pool.Start(pool.Options{Name: "sh", Argv: []string{"bash", "--norc", "--noprofile"},
		Env: append(testEnv(), "PS1=office-test$ "), Clock: clk,
		Behavior: pool.Behavior{ShellIdle: true, ShellPoll: 50 * time.Millisecond, ShellPromptQuiet: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 10*time.Second, "the prompt drawn", func() bool { return strings.Contains(term.Text(), "office-test$") })
	// shell_poll: the monitor sleeps 50 ms, the earliest of its deadlines.
	waitFor(t, 10*time.Second, "the shell_poll deadline", func() bool { return clk.next().Equal(t0.Add(50 * time.Millisecond)) })
	// shell_prompt_quiet: the prompt is learned once the output was quiet 3 s.
	clk.Advance(3*time.Second - time.Millisecond)
	if _, ok := term.Prompt(); ok {
		t.Fatal("the prompt learned before shell_prompt_quiet")
	}
	clk.Advance(time.Millisecond)
	waitFor(t, 10*time.Second, "the prompt learned at shell_prompt_quiet", promptIs(term, ""))
}
