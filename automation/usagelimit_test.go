package automation

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones below on a machine without a zone database: these tests never skip
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("zone %s not available on this machine: %v", name, err)
	}
	return l
}

// TestParseReset reads every format the CLIs print, in several zones, at a
// fixed now.
func TestParseReset(t *testing.T) {
	t.Parallel()
	ny := mustZone(t, "America/New_York")
	santiago := mustZone(t, "America/Santiago")
	seoul := mustZone(t, "Asia/Seoul")
	budapest := mustZone(t, "Europe/Budapest")
	la := mustZone(t, "America/Los_Angeles")
	berlin := mustZone(t, "Europe/Berlin")
	// 2026-07-01 12:00 UTC.
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		text  string
		local *time.Location
		want  time.Time
	}{
		// Claude's banners (the text after "resets " / "reset at ").
		{"3pm (America/Santiago).", berlin, time.Date(2026, 7, 1, 15, 0, 0, 0, santiago)},
		{"3am", berlin, time.Date(2026, 7, 2, 3, 0, 0, 0, berlin)}, // Berlin is 14:00: tomorrow's
		{"10am (Asia/Seoul) · /upgrade to Max or turn on /extra-usage", ny, time.Date(2026, 7, 2, 10, 0, 0, 0, seoul)},
		{"10pm (America/New_York)", time.UTC, time.Date(2026, 7, 1, 22, 0, 0, 0, ny)},
		{"11:20am (Europe/Budapest)", time.UTC, time.Date(2026, 7, 2, 11, 20, 0, 0, budapest)},
		{"Jul 31, 2am (UTC)", ny, time.Date(2026, 7, 31, 2, 0, 0, 0, time.UTC)},
		{"5pm (America/Los_Angeles)", time.UTC, time.Date(2026, 7, 1, 17, 0, 0, 0, la)},
		{"Sep 15 at 7pm", berlin, time.Date(2026, 9, 15, 19, 0, 0, 0, berlin)},
		{"12am", time.UTC, time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)},
		{"12pm", time.UTC, time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)},
		{"22:00 ∙ /upgrade", time.UTC, time.Date(2026, 7, 1, 22, 0, 0, 0, time.UTC)},
		// Codex (after "try again "): relative and dated.
		{"in 5 days 22 hours 11 minutes. ", time.UTC, now.Add(5*24*time.Hour + 22*time.Hour + 11*time.Minute)},
		{"in 3h12m", time.UTC, now.Add(3*time.Hour + 12*time.Minute)},
		{"at Jul 5th, 2026 8:19 PM.", ny, time.Date(2026, 7, 5, 20, 19, 0, 0, ny)},
		{"at Jan 2nd, 2027 8:19 AM", time.UTC, time.Date(2027, 1, 2, 8, 19, 0, 0, time.UTC)},
		// An unknown zone falls back to the local one.
		{"4pm (Mars/Olympus)", seoul, time.Date(2026, 7, 2, 16, 0, 0, 0, seoul)},
	}
	for _, c := range cases {
		got, ok := ParseReset(c.text, now, c.local, time.LoadLocation)
		if !ok || !got.Equal(c.want) {
			t.Errorf("ParseReset(%q) = %v, %v; want %v", c.text, got, ok, c.want)
		}
	}
	for _, bad := range []string{"", "soon", "5", "13pm", "25:00", "Upgrade to Pro"} {
		if got, ok := ParseReset(bad, now, time.UTC, time.LoadLocation); ok {
			t.Errorf("ParseReset(%q) = %v, want none", bad, got)
		}
	}
}

// TestParseResetPast: a clock-only time past by more than ResetPastGrace is
// tomorrow's; within it, today's (the printed reset can precede the real
// one); a date without a year is the next such date, by the same grace.
func TestParseResetPast(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 1, 15, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		text string
		want time.Time
	}{
		{"3pm (UTC)", time.Date(2026, 7, 1, 15, 0, 0, 0, time.UTC)},
		{"2pm (UTC)", time.Date(2026, 7, 2, 14, 0, 0, 0, time.UTC)},
		{"Jan 2, 1am (UTC)", time.Date(2027, 1, 2, 1, 0, 0, 0, time.UTC)},
		{"Jun 30, 1am (UTC)", time.Date(2027, 6, 30, 1, 0, 0, 0, time.UTC)},
		{"Jul 1, 3pm (UTC)", time.Date(2026, 7, 1, 15, 0, 0, 0, time.UTC)},
	} {
		got, ok := ParseReset(c.text, now, time.UTC, nil)
		if !ok || !got.Equal(c.want) {
			t.Errorf("ParseReset(%q) at %v = %v, %v; want %v", c.text, now, got, ok, c.want)
		}
	}
	// Late December: "Jan 2" is next year's.
	dec := time.Date(2026, 12, 30, 9, 0, 0, 0, time.UTC)
	if got, _ := ParseReset("Jan 2, 1am", dec, time.UTC, nil); got.Year() != 2027 {
		t.Errorf("Jan 2 read on Dec 30 = %v, want 2027", got)
	}
}

// TestParseResetDST: across a DST change the wall clock the CLI printed is
// kept, and a time in the spring gap lands just after it.
func TestParseResetDST(t *testing.T) {
	t.Parallel()
	ny := mustZone(t, "America/New_York")
	// 2026-03-08 02:00 EST -> 03:00 EDT. At 01:30 EST on the 8th:
	now := time.Date(2026, 3, 8, 1, 30, 0, 0, ny)
	got, _ := ParseReset("4am", now, ny, nil)
	if want := time.Date(2026, 3, 8, 4, 0, 0, 0, ny); !got.Equal(want) || got.Sub(now) != 90*time.Minute {
		t.Errorf("4am across spring forward = %v (in %v), want %v, 1h30m away", got, got.Sub(now), want)
	}
	// 2:30am does not exist that night: it is 3:30 EDT, an hour away.
	got, _ = ParseReset("2:30am", now, ny, nil)
	if got.Sub(now) != time.Hour || got.Hour() != 3 || got.Minute() != 30 {
		t.Errorf("2:30am in the gap = %v (in %v), want an hour away", got, got.Sub(now))
	}
	// Autumn: 2026-11-01 02:00 EDT -> 01:00 EST. At 23:00 on Oct 31,
	// "9am" is 11 wall hours but 11 hours of real time plus the extra one.
	now = time.Date(2026, 10, 31, 23, 0, 0, 0, ny)
	got, _ = ParseReset("9am", now, ny, nil)
	if got.Sub(now) != 11*time.Hour {
		t.Errorf("9am across fall back: in %v, want 11h", got.Sub(now))
	}
	// The next day's time after a past one keeps its wall clock across the change.
	now = time.Date(2026, 3, 7, 23, 0, 0, 0, ny)
	got, _ = ParseReset("10pm", now, ny, nil)
	if want := time.Date(2026, 3, 7, 22, 0, 0, 0, ny); !got.Equal(want) {
		t.Errorf("10pm within the grace = %v, want %v", got, want)
	}
	got, _ = ParseReset("9pm", now, ny, nil)
	if want := time.Date(2026, 3, 8, 21, 0, 0, 0, ny); !got.Equal(want) || got.Sub(now) != 21*time.Hour {
		t.Errorf("9pm past = %v (in %v), want %v, 21h (one hour lost)", got, got.Sub(now), want)
	}
	// Autumn's repeated hour: 1:30am shows twice on Nov 1; read at 00:30
	// EDT it is the first, an hour away.
	now = time.Date(2026, 11, 1, 0, 30, 0, 0, ny)
	if got, _ = ParseReset("1:30am", now, ny, nil); got.Sub(now) != time.Hour {
		t.Errorf("1:30am in the repeated hour: in %v, want 1h", got.Sub(now))
	}
	// Another zone's change, printed with its zone, read in a third local
	// zone: Berlin springs forward on 2026-03-29 at 02:00 CET.
	now = time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC) // 00:00 CET on the 29th
	got, _ = ParseReset("2:30am (Europe/Berlin)", now, ny, time.LoadLocation)
	if want := time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("2:30am in Berlin's gap = %v, want %v (03:30 CEST)", got.UTC(), want)
	}
	// Santiago falls back on 2026-04-05 at 00:00 (to 23:00 on the 4th):
	// "1am" read at 22:00 on the 4th is three hours of real time away.
	santiago := mustZone(t, "America/Santiago")
	now = time.Date(2026, 4, 4, 22, 0, 0, 0, santiago)
	if got, _ = ParseReset("1am (America/Santiago)", now, time.UTC, time.LoadLocation); got.Sub(now) != 4*time.Hour {
		t.Errorf("1am across Santiago's fall back: in %v, want 4h (an hour repeated)", got.Sub(now))
	}
}

var claudeLimits = LimitRules{
	Banners: []string{"usage limit reached", "limit reached ∙", "limit reached ·", "You've hit your", "You're out of extra usage"},
	Resets:  []string{"resets ", "reset at "},
	Dialogs: []string{"Stop and wait for limit to reset"},
	Errors:  []string{"API Error:"},
}

// TestFindLimit reads each banner off a screen: the lowest row wins, the
// count says how many, and a banner without a time has a zero Reset.
func TestFindLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		screen string
		reset  time.Time
	}{
		{"> hi\n  ⎿  Claude usage limit reached. Your limit will reset at 3pm (UTC).\n", time.Date(2026, 7, 1, 15, 0, 0, 0, time.UTC)},
		{"  5-hour limit reached ∙ resets 3am\n", time.Date(2026, 7, 2, 3, 0, 0, 0, time.UTC)},
		{"  Weekly limit reached · resets 10am (UTC) · /upgrade to Max or turn on /extra-usage\n", time.Date(2026, 7, 2, 10, 0, 0, 0, time.UTC)},
		{"  ⎿  You've hit your session limit · resets 11:20pm (UTC)\n", time.Date(2026, 7, 1, 23, 20, 0, 0, time.UTC)},
		{"  ⎿  You've hit your weekly limit · resets Jul 31, 2am (UTC)\n", time.Date(2026, 7, 31, 2, 0, 0, 0, time.UTC)},
		{"  You're out of extra usage · resets 5pm (UTC)\n", time.Date(2026, 7, 1, 17, 0, 0, 0, time.UTC)},
		{"  You've hit your limit\n", time.Time{}},
	} {
		b, ok := FindLimit(TextRows(c.screen), claudeLimits)
		if ok {
			b.Reset, _ = claudeLimits.Reset(b.Text, now, time.UTC, nil)
		}
		if !ok || !b.Reset.Equal(c.reset) || b.Count != 1 {
			t.Errorf("FindLimit(%q) = %+v, %v; want reset %v", c.screen, b, ok, c.reset)
		}
	}
	// Codex 0.171.0 at 120 columns (real screen): the reset wraps onto the next row.
	codex := LimitRules{Banners: []string{"You’ve hit your usage limit"}, Resets: []string{"try again at "}}
	wrapped := "› first refused\n\n\n■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/\n" +
		"usage to purchase more credits or try again at Dec 2nd, 2026 12:50 AM.\n\n\n  Approaching rate limits"
	b, ok := FindLimit(TextRows(wrapped), codex)
	if !ok || !strings.HasSuffix(b.Text, "settings/ usage to purchase more credits or try again at Dec 2nd, 2026 12:50 AM.") {
		t.Errorf("wrapped banner %q, %v", b.Text, ok)
	}
	if got, _ := codex.Reset(b.Text, now, time.UTC, nil); !got.Equal(time.Date(2026, 12, 2, 0, 50, 0, 0, time.UTC)) {
		t.Errorf("wrapped banner resets %v", got)
	}
	two := "You've hit your limit · resets 1pm (UTC)\n> go on\nYou've hit your limit · resets 2pm (UTC)\n"
	if b, _ := FindLimit(TextRows(two), claudeLimits); b.Count != 2 || b.Row != 2 || !strings.Contains(b.Text, "2pm") {
		t.Errorf("two banners: %+v, want the lower one (row 2, 2pm) and count 2", b)
	}
	if _, ok := FindLimit(TextRows("all good\n? for shortcuts"), claudeLimits); ok {
		t.Error("a screen without a banner read as one")
	}
	if e, ok := FindAPIError(TextRows("x\n  ⎿  API Error: Request rejected (429) · Rate limited\n"), claudeLimits); !ok || e != "⎿  API Error: Request rejected (429) · Rate limited" {
		t.Errorf("FindAPIError = %q, %v", e, ok)
	}
}

// TestLimitHoldDescribe prints the hold as `office status` does.
func TestLimitHoldDescribe(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 1, 18, 48, 0, 0, time.UTC)
	h := LimitHold{Reset: time.Date(2026, 7, 1, 22, 0, 0, 0, time.UTC), Source: "transcript"}
	h.Until = h.Reset.Add(2 * time.Minute)
	if got, want := h.Describe(now), "resets 22:00 (in 3h12m), from transcript"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	h = LimitHold{Until: now.Add(30 * time.Minute), Source: "screen"}
	if got, want := h.Describe(now), "retry 19:18 (in 30m), from screen"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	h = LimitHold{Reset: now.Add(5*24*time.Hour + 22*time.Hour + 11*time.Minute), Source: "screen"}
	if got, want := h.Describe(now), "resets Jul 7 16:59 (in 5d22h11m), from screen"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if !(LimitHold{Until: now.Add(time.Second)}).Active(now) || (LimitHold{Until: now}).Active(now) || (LimitHold{}).Active(now) {
		t.Error("Active wrong")
	}
}

// TestJudgeLimit: a hold says "usage limit" over an idle screen until it
// ends (Next), the limit menu is a dialog (waiting) even under a hold, a
// dialog pattern wins over both, and with no hold nothing is listed.
func TestJudgeLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 1, 18, 48, 0, 0, time.UTC)
	rules := claudeLike
	rules.Limits = claudeLimits
	hold := LimitHold{Reset: time.Date(2026, 7, 1, 22, 0, 0, 0, time.UTC), Source: "screen", Account: "claude"}
	hold.Until = hold.Reset.Add(2 * time.Minute)
	idle := Inputs{Now: now, Boot: Boot{Seen: true}, Title: "✳ Claude Code", Screen: TextRows("You've hit your limit · resets 10pm (UTC)\n? for shortcuts"),
		LastOutput: now.Add(-time.Minute), Limit: hold}

	j := Judge(idle, rules)
	checkOneDecides(t, j)
	if j.Status != StatusLimited || j.Decided().Signal != SignalLimit || j.Status.String() != "usage limit" {
		t.Fatalf("held: %v\n%s", j.Status, dump(j))
	}
	if got, want := j.Signal(), "resets 22:00 (in 3h12m), from screen"; got != want {
		t.Errorf("Signal = %q, want %q", got, want)
	}
	if !j.Next.Equal(hold.Until) {
		t.Errorf("Next = %v, want the hold's end %v", j.Next, hold.Until)
	}
	if Deliverable(j.Status) {
		t.Error("a limited agent is deliverable")
	}

	after := idle
	after.Now = hold.Until
	if j := Judge(after, rules); j.Status != StatusIdle {
		t.Errorf("at the hold's end: %v, want idle\n%s", j.Status, dump(j))
	}
	none := idle
	none.Limit = LimitHold{}
	if j := Judge(none, rules); j.Status != StatusIdle || len(j.Steps) != len(Judge(Inputs{Now: now, Boot: Boot{Seen: true}, Title: "✳ Claude Code", Screen: none.Screen, LastOutput: none.LastOutput}, claudeLike).Steps) {
		t.Errorf("no hold: %v\n%s", j.Status, dump(j))
	}

	menu := idle
	menu.Screen = TextRows("What do you want to do?\n❯ 1. Stop and wait for limit to reset\n  2. Add funds\nEnter to confirm · Esc to cancel")
	j = Judge(menu, rules)
	checkOneDecides(t, j)
	if j.Status != StatusWaiting || j.Signal() != "screen: Stop and wait for limit to reset" {
		t.Errorf("limit menu: %v %q, want waiting\n%s", j.Status, j.Signal(), dump(j))
	}
	menu.Limit = LimitHold{}
	if j := Judge(menu, rules); j.Status != StatusWaiting {
		t.Errorf("limit menu without a hold: %v, want waiting", j.Status)
	}
	dialog := idle
	dialog.Screen = TextRows("Do you want to proceed?\n❯ 1. Yes")
	if j := Judge(dialog, rules); j.Status != StatusWaiting || j.Decided().Signal != SignalScreenWaiting {
		t.Errorf("dialog under a hold: %v\n%s", j.Status, dump(j))
	}
	exited := idle
	exited.Exited = true
	if j := Judge(exited, rules); j.Status != StatusExited {
		t.Errorf("exited under a hold: %v", j.Status)
	}
}

// TestLimitUntil: reset plus margin while ahead; retry with none; a
// back-off from margin, doubling, at most retry, once the reset is past.
func TestLimitUntil(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	m, r := 2*time.Minute, 30*time.Minute
	if u, n := LimitUntil(now.Add(time.Hour), now, m, r, 3); !u.Equal(now.Add(time.Hour+m)) || n != 0 {
		t.Errorf("ahead: %v %d", u, n)
	}
	if u, n := LimitUntil(time.Time{}, now, m, r, 1); !u.Equal(now.Add(r)) || n != 1 {
		t.Errorf("no reset: %v %d", u, n)
	}
	past := now.Add(-time.Minute) // plus the margin still ahead: that
	if u, _ := LimitUntil(past, now, m, r, 0); !u.Equal(past.Add(m)) {
		t.Errorf("within the margin: %v", u)
	}
	past = now.Add(-5 * time.Minute)
	var waits []time.Duration
	n := 0
	for range 6 {
		var u time.Time
		u, n = LimitUntil(past, now, m, r, n)
		waits = append(waits, u.Sub(now))
	}
	want := []time.Duration{2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 30 * time.Minute, 30 * time.Minute}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("back-off %v, want %v", waits, want)
		}
	}
	if u, _ := LimitUntil(time.Time{}, now, 0, 0, 0); !u.Equal(now.Add(LimitRetry)) {
		t.Errorf("zero settings: %v", u)
	}
}

// BenchmarkFindLimit is the cost a judgment of a Claude screen pays for
// the banner look (40 rows of 120 columns, no banner).
func BenchmarkFindLimit(b *testing.B) {
	rows := make(Lines, 40)
	for i := range rows {
		rows[i] = strings.Repeat("● some reply text of a turn, wrapped at the width ", 3)[:120]
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := FindLimit(rows, claudeLimits); ok {
			b.Fatal("found")
		}
	}
}

// BenchmarkJudgeClaudeScreen is a judgment of the same screen, for scale.
func BenchmarkJudgeClaudeScreen(b *testing.B) {
	rows := make(Lines, 40)
	for i := range rows {
		rows[i] = strings.Repeat("● some reply text of a turn, wrapped at the width ", 3)[:120]
	}
	now := time.Now()
	in := Inputs{Now: now, Boot: Boot{Seen: true}, Screen: rows, LastOutput: now}
	b.ReportAllocs()
	for b.Loop() {
		Judge(in, claudeLike)
	}
}
