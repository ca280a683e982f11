package pool_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"office/automation"
	"office/pool"
)

// A usage-limit hold makes a real terminal's judge say "usage limit" at
// once, and the status returns by itself when the hold ends (the judge
// wakes at its Until; no event comes then).
func TestSetLimitHoldsUntilItEnds(t *testing.T) {
	t.Parallel()
	term, _ := startFake(t)
	waitFor(t, 10*time.Second, "idle", func() bool { return term.Status() == automation.StatusIdle })
	until := time.Now().Add(1500 * time.Millisecond)
	h := automation.LimitHold{Until: until, Source: "screen", Account: "fake"}
	if !term.SetLimit(h) || term.SetLimit(h) {
		t.Fatal("SetLimit reports a change once")
	}
	waitFor(t, 2*time.Second, "usage limit", func() bool { return term.Status() == automation.StatusLimited })
	if st, sig := term.StatusSignal(); st != automation.StatusLimited || !strings.HasPrefix(sig, "retry ") || !strings.HasSuffix(sig, "from screen") {
		t.Fatalf("status %v signal %q", st, sig)
	}
	if term.Limit() != h {
		t.Fatalf("Limit() = %+v", term.Limit())
	}
	waitFor(t, 10*time.Second, "idle after the hold", func() bool { return term.Status() == automation.StatusIdle })
	if time.Now().Before(until) {
		t.Fatal("idle before the hold ended")
	}
}

// A banner the CLI prints holds the terminal in the judgment that sees it
// (one EventLimit), until the reset printed plus the margin; the same
// banner redrawn is no new one, a second refusal row is.
func TestBannerHoldsTheTerminal(t *testing.T) {
	t.Parallel()
	var events atomic.Int32
	script := `stty -echo; echo ready; read x; echo "You've hit your usage limit. Upgrade to Pro or try again in 2 hours 10 minutes."; ` +
		`read x; echo "You've hit your usage limit. Upgrade to Pro or try again in 2 hours 10 minutes."; exec cat >/dev/null`
	b := pool.Behavior{
		Status: automation.StatusRules{Quiet: 300 * time.Millisecond, Limits: automation.LimitRules{Banners: []string{"You've hit your usage limit"}, Resets: []string{"try again in "}}},
		Limit:  pool.LimitBehavior{Margin: time.Minute, Retry: time.Hour, Zone: time.UTC},
		Timing: automation.Timing{ReadyQuiet: 200 * time.Millisecond, StatusDebounce: 50 * time.Millisecond, TurnGrace: 200 * time.Millisecond},
	}
	term, err := pool.Start(pool.Options{Name: "lim", Argv: []string{"sh", "-c", script}, Env: testEnv(), Cols: 120, Rows: 20, Behavior: b,
		Notify: func(e pool.Event) {
			if e.Kind == pool.EventLimit {
				events.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 10*time.Second, "idle", func() bool { return term.Status() == automation.StatusIdle })
	if events.Load() != 0 || term.Limit().Active(time.Now()) {
		t.Fatal("held before any banner")
	}
	before := time.Now()
	input(t, term, "go\r")
	waitFor(t, 5*time.Second, "usage limit", func() bool { return term.Status() == automation.StatusLimited })
	h := term.Limit()
	want := before.Add(2*time.Hour + 10*time.Minute + time.Minute)
	if h.Source != "screen" || h.Until.Before(want) || h.Until.After(want.Add(5*time.Second)) || !strings.Contains(h.Text, "try again in 2 hours") {
		t.Fatalf("hold %+v, want until ~%v from the screen", h, want)
	}
	if bn, ok := term.LimitBanner(); !ok || bn.Count != 1 || !bn.Reset.Equal(h.Reset) {
		t.Fatalf("banner %+v %v", bn, ok)
	}
	time.Sleep(300 * time.Millisecond) // more judgments of the same screen
	if n := events.Load(); n != 1 {
		t.Fatalf("%d limit events for one banner, want 1", n)
	}
	// The person clears the hold; the banner still on screen does not come back.
	term.SetLimit(automation.LimitHold{})
	waitFor(t, 5*time.Second, "idle after the release", func() bool { return term.Status() == automation.StatusIdle })
	// A second refusal: one more banner row.
	input(t, term, "again\r")
	waitFor(t, 5*time.Second, "held again", func() bool { return term.Status() == automation.StatusLimited })
	// The judgment's event follows the status it adopted.
	waitFor(t, 5*time.Second, "the second banner's limit event", func() bool { return events.Load() >= 2 })
	time.Sleep(300 * time.Millisecond) // more judgments of the same screen
	if n := events.Load(); n != 2 {
		t.Fatalf("%d limit events after the second banner, want 2", n)
	}
	if h2 := term.Limit(); !h2.Reset.Equal(h.Reset) {
		t.Fatalf("the same banner text read again: reset %v, want the first reading %v", h2.Reset, h.Reset)
	}
}

// A row saying the CLI switched itself to another model after a quota
// message is surfaced once (EventModelSwitch, ModelSwitch) and holds
// nothing; a usage limit reported by a hook (HoldLimit) holds the terminal
// like a banner, reading the reset from its text, else for the retry.
func TestModelSwitchAndHookHold(t *testing.T) {
	t.Parallel()
	var switches, limits atomic.Int32
	script := `stty -echo; echo ready; read x; echo "Switched to fallback model gemini-2.5-flash"; exec cat >/dev/null`
	b := pool.Behavior{
		Status: automation.StatusRules{Quiet: 300 * time.Millisecond, Limits: automation.LimitRules{
			Switches: []string{"Switched to fallback model"}, Resets: []string{"resets "}}},
		Limit:  pool.LimitBehavior{Margin: time.Minute, Retry: time.Hour, Zone: time.UTC},
		Timing: automation.Timing{ReadyQuiet: 200 * time.Millisecond, StatusDebounce: 50 * time.Millisecond, TurnGrace: 200 * time.Millisecond},
	}
	term, err := pool.Start(pool.Options{Name: "sw", Argv: []string{"sh", "-c", script}, Env: testEnv(), Cols: 120, Rows: 20, Behavior: b,
		Notify: func(e pool.Event) {
			switch e.Kind {
			case pool.EventModelSwitch:
				switches.Add(1)
			case pool.EventLimit:
				limits.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	waitFor(t, 10*time.Second, "idle", func() bool { return term.Status() == automation.StatusIdle })
	input(t, term, "go\r")
	waitFor(t, 5*time.Second, "the switch surfaced", func() bool { return switches.Load() == 1 })
	if s, ok := term.ModelSwitch(); !ok || s != "Switched to fallback model gemini-2.5-flash" {
		t.Fatalf("ModelSwitch %q %v", s, ok)
	}
	time.Sleep(300 * time.Millisecond) // more judgments of the same screen
	if n := switches.Load(); n != 1 || term.Limit().Active(time.Now()) || limits.Load() != 0 {
		t.Fatalf("%d switch events, hold %+v: want one, nothing held", n, term.Limit())
	}
	waitFor(t, 5*time.Second, "idle after the switch", func() bool { return term.Status() == automation.StatusIdle })

	before := time.Now()
	h := term.HoldLimit("API Error: Request rejected (429) · Rate limited", automation.LimitFromHook)
	if h.Source != "hook" || !h.Reset.IsZero() || h.Until.Before(before.Add(time.Hour)) || h.Until.After(before.Add(time.Hour+5*time.Second)) {
		t.Fatalf("hook hold %+v: want the retry (1h), from the hook", h)
	}
	waitFor(t, 5*time.Second, "usage limit", func() bool { return term.Status() == automation.StatusLimited && limits.Load() == 1 })
	h = term.HoldLimit("You've hit your limit · resets 2h 5m", automation.LimitFromHook)
	if want := before.Add(2*time.Hour + 5*time.Minute + time.Minute); h.Until.Before(want) || h.Until.After(want.Add(5*time.Second)) {
		t.Fatalf("hook hold %+v: want the reset it names (2h5m) plus the margin", h)
	}
	// A hook with no reset keeps the reset of the hold in force.
	if h2 := term.HoldLimit("rate limited", automation.LimitFromHook); !h2.Reset.Equal(h.Reset) || !h2.Until.Equal(h.Until) {
		t.Fatalf("hold %+v after a hook with no reset, want %+v kept", h2, h)
	}
}
