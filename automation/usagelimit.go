package automation

// Usage limits (docs/limits.md): reading a CLI's "you have hit your limit"
// banner and the reset time it prints. The patterns are profile data
// (LimitRules, profiles.toml's [profile.NAME.limits]); the time formats are
// read here, pure: every function takes the instant judged and the agent's
// local zone, and zones by name come from the caller's ZoneLoader.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// LimitRules is a profile's description of its CLI's usage-limit signals.
// The zero value recognises nothing.
type LimitRules struct {
	// Banners are texts of a row that says the account is out of quota
	// ("You've hit your limit", "You've hit your usage limit"). Blank ones
	// never match.
	Banners []string
	// Resets are the texts right before the reset time on a banner row
	// ("resets ", "try again in "); the time is read from what follows the
	// first that occurs. No match: the banner has no reset time.
	Resets []string
	// Dialogs are texts of the limit menu the CLI may open after the banner
	// ("Stop and wait for limit to reset"): a dialog (StatusWaiting), held,
	// forwarded, never answered by office on its own.
	Dialogs []string
	// Errors are texts of a row that says a turn ended on an API error
	// ("API Error:"): a failed turn, not a hold.
	Errors []string
	// Switches are texts of a row that says the CLI hit a quota and
	// switched itself (or may) to another model ("Switched to fallback
	// model"): surfaced to the person, not held.
	Switches []string
}

// ZoneLoader resolves an IANA zone name (time.LoadLocation in production).
// A nil loader knows only "UTC".
type ZoneLoader func(name string) (*time.Location, error)

// LimitBanner is a usage-limit banner found on a screen.
type LimitBanner struct {
	// Text is the banner's row, trimmed, joined by a space with the rows it
	// wraps onto (the next non-blank rows, at most LimitWrapRows, that hold
	// no banner of their own).
	Text string
	// Row is the row's index on the screen; Count is how many banner rows
	// the screen shows (a new refusal adds one).
	Row, Count int
	// Reset is the reset time it prints; zero when it prints none (or one
	// office cannot read).
	Reset time.Time
}

// LimitWrapRows is the most rows a banner wraps onto that FindLimit joins
// to it (Codex's banner wraps its reset time onto the next row at 120
// columns).
const LimitWrapRows = 3

// FindLimit returns the lowest (newest) banner on rows (its Reset zero:
// LimitRules.Reset reads it). ok is false when no row matches.
func FindLimit(rows Rows, r LimitRules) (b LimitBanner, ok bool) {
	if rows == nil || len(r.Banners) == 0 {
		return LimitBanner{}, false
	}
	for i := 0; i < rows.Len(); i++ {
		if rowHasAny(rows.Row(i), r.Banners) {
			b.Count++
			b.Row, ok = i, true
		}
	}
	if !ok {
		return LimitBanner{}, false
	}
	parts := []string{strings.TrimSpace(rows.Row(b.Row))}
	for i := b.Row + 1; i < rows.Len() && i <= b.Row+LimitWrapRows; i++ {
		row := strings.TrimSpace(rows.Row(i))
		if row == "" || rowHasAny(row, r.Banners) {
			break
		}
		parts = append(parts, row)
	}
	b.Text = strings.Join(parts, " ")
	return b, true
}

// Reset reads the reset time on a banner's text, at now in local
// (ParseReset): from what follows the first of r.Resets in it. ok is false
// when the banner prints none office can read.
func (r LimitRules) Reset(text string, now time.Time, local *time.Location, zones ZoneLoader) (time.Time, bool) {
	for _, p := range r.Resets {
		if p == "" {
			continue
		}
		if at := strings.Index(text, p); at >= 0 {
			return ParseReset(text[at+len(p):], now, local, zones)
		}
	}
	return time.Time{}, false
}

// The defaults of the usage-limit settings (limit_retry, limit_margin,
// limit_stagger): the hold when no reset time is printed, the margin added
// to one printed, and the gap between resuming two agents of one account.
const (
	LimitRetry   = 30 * time.Minute
	LimitMargin  = 2 * time.Minute
	LimitStagger = 5 * time.Second
)

// The evidence of a hold (LimitHold.Source), strongest first.
const (
	LimitFromTranscript = "transcript"
	LimitFromHook       = "hook"
	LimitFromScreen     = "screen"
)

// LimitUntil is when a hold begun at now on a banner with reset time reset
// (zero: none printed) ends, and the refusals to count from then on:
//
//   - a reset that margin later is still ahead: reset plus margin (the
//     refusals start over);
//   - no reset: now plus retry;
//   - a reset already past by then (the CLI refused a resume again): a
//     back-off, margin doubled for each refusal in a row, at most retry.
//
// Zero margin or retry are LimitMargin and LimitRetry.
func LimitUntil(reset, now time.Time, margin, retry time.Duration, refusals int) (time.Time, int) {
	margin, retry = orDefault(margin, LimitMargin), orDefault(retry, LimitRetry)
	switch {
	case reset.IsZero():
		return now.Add(retry), refusals
	case reset.Add(margin).After(now):
		return reset.Add(margin), 0
	}
	wait := margin
	for i := 0; i < refusals && wait < retry; i++ {
		wait *= 2
	}
	return now.Add(min(wait, retry)), refusals + 1
}

// FindAPIError returns the lowest row of rows holding one of r.Errors,
// trimmed, or ok false.
func FindAPIError(rows Rows, r LimitRules) (string, bool) {
	if rows == nil {
		return "", false
	}
	for i := rows.Len() - 1; i >= 0; i-- {
		if row := rows.Row(i); rowHasAny(row, r.Errors) {
			return strings.TrimSpace(row), true
		}
	}
	return "", false
}

func rowHasAny(row string, pats []string) bool {
	for _, p := range pats {
		if p != "" && strings.Contains(row, p) {
			return true
		}
	}
	return false
}

// ResetPastGrace is how far in the past a clock-only reset time may be and
// still be the reset meant: a CLI prints the reset it expects, which can
// precede the server's real one by minutes, so "resets 3pm" read at 3:05pm
// means now, not tomorrow. Further back it is the next day's.
const ResetPastGrace = time.Hour

var (
	// relUnit is one "5 days" / "22 hours" / "11m" of a relative reset.
	relUnit = regexp.MustCompile(`^\s*(?:and\s+|,\s*)?(\d{1,4})\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)`)
	// clockAt is an optional month and day (with an ordinal, a year, a
	// comma or "at") and a time of day: "Jul 31, 2am", "Sep 15 at 7pm",
	// "Jul 5th, 2026 8:19 PM", "11:20am", "22:00".
	clockAt = regexp.MustCompile(`^\s*(?:([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s*(\d{4}))?\s*,?\s*(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*([AaPp])?(?:\.?\s*[Mm]\.?)?(?:\b|$)`)
	// zoneParen is "(America/New_York)" or "(UTC)".
	zoneParen = regexp.MustCompile(`\(\s*([A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*)\s*\)`)
)

// months maps a month's name (three letters or whole, any case) to it.
func month(name string) (time.Month, bool) {
	n := strings.ToLower(name)
	for m := time.January; m <= time.December; m++ {
		full := strings.ToLower(m.String())
		if n == full || len(n) >= 3 && strings.HasPrefix(full, n) {
			return m, true
		}
	}
	return 0, false
}

// ParseReset reads the reset time at the start of s (the text after a
// banner's "resets "), as printed at now:
//
//   - a relative duration, "in 5 days 22 hours 11 minutes", "2h 5m":
//     now plus it;
//   - a time of day, 12-hour with or without minutes ("3pm", "11:20am",
//     "8:19 PM") or 24-hour ("22:00"), optionally after a date ("Jul 31,
//     2am", "Sep 15 at 7pm", "Jul 5th, 2026 8:19 PM");
//   - a zone in parentheses after it ("(America/New_York)", "(UTC)"),
//     resolved by zones; none, or one zones does not know: local.
//
// A time of day alone is its next occurrence: today's, or tomorrow's once
// today's is more than ResetPastGrace past. A date without a year is this
// year's, or next year's once this year's is as far past. A date with a year is taken as
// printed, even when past. The text ends at the first "·" or "∙". ok is
// false when s starts with none of these.
func ParseReset(s string, now time.Time, local *time.Location, zones ZoneLoader) (time.Time, bool) {
	if i := strings.IndexAny(s, "·∙|"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "in ")
	s = strings.TrimPrefix(s, "at ")
	if local == nil {
		local = time.UTC
	}
	if d, ok := parseRelative(s); ok {
		return now.Add(d), true
	}
	m := clockAt.FindStringSubmatch(s)
	if m == nil || m[5] == "" && m[6] == "" {
		// "5" alone is no time: a time has minutes or am/pm.
		return time.Time{}, false
	}
	loc := local
	if z := zoneParen.FindStringSubmatch(s[len(m[0]):]); z != nil {
		if l, ok := loadZone(z[1], zones); ok {
			loc = l
		}
	}
	hour, _ := strconv.Atoi(m[4])
	minute := 0
	if m[5] != "" {
		minute, _ = strconv.Atoi(m[5])
	}
	switch ap := strings.ToLower(m[6]); {
	case ap != "" && (hour < 1 || hour > 12):
		return time.Time{}, false
	case ap == "a" && hour == 12:
		hour = 0
	case ap == "p" && hour != 12:
		hour += 12
	}
	if hour > 23 || minute > 59 {
		return time.Time{}, false
	}
	here := now.In(loc)
	if m[1] == "" {
		t := wallTime(here.Year(), here.Month(), here.Day(), hour, minute, loc)
		if now.Sub(t) > ResetPastGrace {
			t = wallTime(here.Year(), here.Month(), here.Day()+1, hour, minute, loc)
		}
		return t, true
	}
	mon, ok := month(m[1])
	day, _ := strconv.Atoi(m[2])
	if !ok || day < 1 || day > 31 {
		return time.Time{}, false
	}
	if m[3] != "" {
		year, _ := strconv.Atoi(m[3])
		return wallTime(year, mon, day, hour, minute, loc), true
	}
	t := wallTime(here.Year(), mon, day, hour, minute, loc)
	if now.Sub(t) > ResetPastGrace {
		t = wallTime(here.Year()+1, mon, day, hour, minute, loc)
	}
	return t, true
}

// wallTime is the instant the wall clock in loc reads the time given; a
// time that does not exist there (skipped by a DST change) is the instant
// as long after the change as the time is after the clock's jump point.
func wallTime(y int, mo time.Month, d, h, mi int, loc *time.Location) time.Time {
	t := time.Date(y, mo, d, h, mi, 0, 0, loc)
	if t.Hour() != h || t.Minute() != mi {
		_, before := t.Zone()
		_, after := t.Add(3 * time.Hour).Zone()
		if shifted := t.Add(time.Duration(after-before) * time.Second); shifted.After(t) {
			t = shifted
		}
	}
	return t
}

// parseRelative reads "5 days 22 hours 11 minutes" (every unit once at
// most, in any order); ok is false unless s starts with one.
func parseRelative(s string) (time.Duration, bool) {
	var total time.Duration
	n := 0
	for {
		m := relUnit.FindStringSubmatch(s)
		if m == nil {
			break
		}
		v, _ := strconv.Atoi(m[1])
		var unit time.Duration
		switch m[2][0] {
		case 'd':
			unit = 24 * time.Hour
		case 'h':
			unit = time.Hour
		case 'm':
			unit = time.Minute
		case 's':
			unit = time.Second
		}
		total += time.Duration(v) * unit
		s = s[len(m[0]):]
		n++
	}
	return total, n > 0
}

func loadZone(name string, zones ZoneLoader) (*time.Location, bool) {
	if name == "UTC" || name == "GMT" {
		return time.UTC, true
	}
	if zones == nil {
		return nil, false
	}
	l, err := zones(name)
	return l, err == nil && l != nil
}

// LimitHold is a usage-limit hold on an agent, as the judge reads it: the
// caller (the engine, which keeps one hold per account) decides it from the
// evidence and when it ends.
type LimitHold struct {
	// Until is when the hold ends (the reset plus the margin, or the retry);
	// zero: no hold.
	Until time.Time
	// Reset is the reset time the CLI named; zero when it named none.
	Reset time.Time
	// Source is the evidence: "transcript", "hook" or "screen".
	Source string
	// Account names the account held (several agents may share it).
	Account string
	// Text is the banner or record text.
	Text string
}

// Active reports whether the hold holds at now.
func (h LimitHold) Active(now time.Time) bool { return !h.Until.IsZero() && now.Before(h.Until) }

// Describe says the hold in one line at now, as `office status` prints it
// after the status: "resets 22:00 (in 3h12m), from screen". The reset is
// printed in its own zone, with the date when it is not today's there.
func (h LimitHold) Describe(now time.Time) string {
	at := h.Reset
	what := "resets"
	if at.IsZero() {
		at, what = h.Until, "retry"
	}
	here := now.In(at.Location())
	layout := "15:04"
	if y, m, d := at.Date(); y != here.Year() || m != here.Month() || d != here.Day() {
		layout = "Jan 2 15:04"
	}
	in := at.Sub(now).Round(time.Minute)
	rel := "in " + shortDur(in)
	if in <= 0 {
		rel = "due"
	}
	s := fmt.Sprintf("%s %s (%s)", what, at.Format(layout), rel)
	if h.Source != "" {
		s += ", from " + h.Source
	}
	return s
}

// shortDur prints d as "3h12m", "5d22h11m", "45m", "0m".
func shortDur(d time.Duration) string {
	d = d.Round(time.Minute)
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h := d / time.Hour
	m := (d - h*time.Hour) / time.Minute
	var b strings.Builder
	if days > 0 {
		fmt.Fprintf(&b, "%dd", days)
	}
	if days > 0 || h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	fmt.Fprintf(&b, "%dm", m)
	return b.String()
}

// limitStep is the judge's usage-limit step, right after screen waiting:
// the limit menu is a dialog (StatusWaiting); else a hold that holds at
// in.Now says StatusLimited until it ends.
func limitStep(in Inputs, rules StatusRules, next func(time.Time)) Step {
	if !in.InSyncFrame {
		if p, ok := findPattern(in.Screen, rules.Limits.Dialogs); ok {
			return Step{Signal: SignalLimit, Found: FindLimitDialog, Pattern: p, Says: StatusWaiting, Decisive: true}
		}
	}
	if in.Limit.Active(in.Now) {
		next(in.Limit.Until)
		return Step{Signal: SignalLimit, Found: FindLimitHold, Detail: in.Limit.Describe(in.Now), Says: StatusLimited, Decisive: true,
			Age: in.Limit.Until.Sub(in.Now)}
	}
	return Step{Signal: SignalLimit, Found: FindNone}
}
