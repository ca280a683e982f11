package pool_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"office/automation"
	"office/pool"
)

// A shell that ran true is idle as soon as its prompt is back: the person's
// Enter does not hold it busy ("turn started") for the turn grace, and the
// turn ends there, so a delivery queued behind it is not held 10 s. On a
// clock that never reaches the grace. A job in the foreground (cat) keeps
// the turn open (TurnOpen) until the shell's prompt is back.
func TestShellTurnEndsWhenItsPromptIsBack(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clk := &fakeClock{now: t0}
	ends := make(chan automation.TurnEvent, 8)
	var self atomic.Pointer[pool.Terminal]
	var gap atomic.Bool // TurnOpen read false while its end was being delivered
	term, err := pool.Start(pool.Options{Name: "sh", Argv: []string{"bash", "--norc", "--noprofile"},
		Env: append(testEnv(), "PS1=office-test$ "), Clock: clk, Behavior: pool.Behavior{ShellIdle: true},
		Notify: func(ev pool.Event) {
			if ev.Kind == pool.EventTurnEnd {
				if tm := self.Load(); tm != nil && !tm.TurnOpen() {
					gap.Store(true)
				}
				ends <- ev.Turn
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	self.Store(term)
	defer term.Close()
	waitFor(t, 10*time.Second, "the prompt drawn", func() bool { return strings.Contains(term.Text(), "office-test$") })
	waitFor(t, 10*time.Second, "ready, idle and the prompt learned", func() bool {
		clk.Advance(50 * time.Millisecond)
		_, learned := term.Prompt()
		return term.Status() == automation.StatusIdle && learned
	})
	noTurnEnd := func(what string) {
		t.Helper()
		select {
		case ev := <-ends:
			t.Fatalf("%s: the turn ended (%+v)", what, ev)
		default:
		}
	}

	// true: a builtin, the shell never leaves the foreground.
	t1 := clk.Now()
	input(t, term, "true\r")
	select {
	case ev := <-ends:
		if !ev.At.Equal(t1) {
			t.Fatalf("the turn ended at %v, want %v (its Enter, the clock standing)", ev.At, t1)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the turn of true did not end with its prompt back (judgment %s)", term.Judgment().Signal())
	}
	if j := term.Judgment(); j.Held || j.Status != automation.StatusIdle || j.Signal() != "foreground: shell" {
		t.Fatalf("after true: %v by %q, held %v; want idle by the foreground", j.Status, j.Signal(), j.Held)
	}
	// Idle once the debounce has passed (the Enter's hold read busy for the
	// instant before the prompt came back): far short of the turn grace.
	clk.Advance(automation.StatusDebounce)
	waitFor(t, 10*time.Second, "idle after the debounce", func() bool { return term.Status() == automation.StatusIdle })
	if b := term.Block(clk.Now()); b != automation.BlockNone {
		t.Fatalf("after true: delivery blocked by %v", b)
	}

	// cat: a job holds the terminal, the turn stays open until it is gone.
	input(t, term, "cat\r")
	waitFor(t, 10*time.Second, "cat in the foreground", func() bool {
		clk.Advance(100 * time.Millisecond) // the foreground poll
		return term.Judgment().Signal() == "foreground: job"
	})
	noTurnEnd("cat running")
	if !term.TurnOpen() {
		t.Fatal("cat running: TurnOpen is false")
	}
	input(t, term, "\x04") // end of input: cat exits
	select {
	case <-ends:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn of cat did not end with its prompt back")
	}
	// Closed once its end has been delivered (Notify returned).
	waitFor(t, 10*time.Second, "TurnOpen false after the end", func() bool { return !term.TurnOpen() })
	if gap.Load() {
		t.Error("TurnOpen read false inside the Notify of the turn's end: an observer marking the end there sees a gap")
	}
	if d := clk.Now().Sub(t1); d >= automation.TurnGrace {
		t.Fatalf("the clock ran %v, the turn grace: this test proves nothing", d)
	}
}
