package engine

import (
	"testing"
	"time"

	"office/configs"
)

// defaults are the settings table's defaults, the engine's timers unless
// the office file says otherwise.
var defaults = configs.Defaults()

func TestInboxTimersAreDueOnTheirIntervals(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tm := inboxTimers{tickEvery: defaults.MailSweep, purgeEvery: defaults.RetentionSweep}
	if tick, purge := tm.due(t0); tick || purge {
		t.Fatal("due at the start (the start ran them itself)")
	}
	type want struct{ tick, purge bool }
	steps := []struct {
		at time.Duration
		want
	}{
		{defaults.StallSample, want{}},
		{defaults.MailSweep - time.Millisecond, want{}},
		{defaults.MailSweep, want{tick: true}},
		{defaults.MailSweep + defaults.StallSample, want{}},
		{2 * defaults.MailSweep, want{tick: true}},
		{defaults.RetentionSweep - time.Second, want{tick: true}},
		{defaults.RetentionSweep, want{purge: true}},
		{defaults.RetentionSweep + defaults.MailSweep, want{tick: true}},
		{2 * defaults.RetentionSweep, want{tick: true, purge: true}},
	}
	for _, s := range steps {
		tick, purge := tm.due(t0.Add(s.at))
		if (want{tick, purge}) != s.want {
			t.Fatalf("at %v: tick %v purge %v, want %+v", s.at, tick, purge, s.want)
		}
	}
}

func TestActivityWatchCountsTextChangesOnly(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	none := func() (time.Time, bool) { return time.Time{}, false }
	var w activityWatch
	if got := w.observe("a", "✻ Working… (1s)\nreading", t0, none); !got.Equal(t0) {
		t.Fatalf("first look: %v, want now", got)
	}
	// A spinner frame and a timer are not activity.
	if got := w.observe("a", "✳ Working… (9s)\nreading", t0.Add(5*time.Minute), none); !got.Equal(t0) {
		t.Fatalf("spinner and timer counted as activity: %v", got)
	}
	// New text is.
	at := t0.Add(6 * time.Minute)
	if got := w.observe("a", "✳ Working… (9s)\nwriting", at, none); !got.Equal(at) || !w.since("a").Equal(at) {
		t.Fatalf("new text not counted: %v", got)
	}
	// A stall remembered from before a restart continues from its start.
	before := t0.Add(-time.Hour)
	if got := w.observe("b", "x", t0, func() (time.Time, bool) { return before, true }); !got.Equal(before) {
		t.Fatalf("remembered stall: %v, want %v", got, before)
	}
}

func TestActivityWatchSkipsAnUnchangedScreen(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	none := func() (time.Time, bool) { return time.Time{}, false }
	var w activityWatch
	term1, term2 := new(int), new(int) // two terminals (a restart)
	if w.unchanged("a", term1, 7) {
		t.Fatal("an agent never observed counts as unchanged")
	}
	w.stamp("a", term1, 7) // no observation yet: nothing to stamp
	if w.unchanged("a", term1, 7) {
		t.Fatal("a stamp without an observation made the screen unchanged")
	}
	w.observe("a", "reading", t0, none)
	w.stamp("a", term1, 7)
	if !w.unchanged("a", term1, 7) {
		t.Fatal("the same terminal at the same generation is not unchanged")
	}
	if w.unchanged("a", term1, 8) {
		t.Fatal("a new generation counts as unchanged")
	}
	if w.unchanged("a", term2, 7) {
		t.Fatal("a restarted agent's terminal counts as unchanged")
	}
	// A later observation keeps the stamp until stamped again.
	w.observe("a", "writing", t0.Add(time.Minute), none)
	if !w.since("a").Equal(t0.Add(time.Minute)) {
		t.Fatalf("activity %v, want the new text's time", w.since("a"))
	}
}
