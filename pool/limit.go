package pool

// The usage-limit hold a terminal's judge reads (automation.Inputs.Limit,
// docs/limits.md). A new banner on the screen (the profile's
// Status.Limits.Banners) holds the terminal in the same judgment that
// sees it, so nothing is typed in between; the engine then holds every
// agent of the account (SetLimit) and tells the person. The judge wakes at
// the hold's end, so the status returns by itself.

import (
	"time"

	"office/automation"
)

// LimitBehavior is how a terminal turns a banner into a hold.
type LimitBehavior struct {
	// Margin is added to the reset time printed (limit_margin); Retry is
	// the hold when no reset time is printed, and the most a refused
	// resume backs off to (limit_retry). Zero: automation's defaults.
	Margin, Retry time.Duration
	// Zone is the agent's local zone, for a reset time printed without
	// one; nil: time.Local.
	Zone *time.Location
}

// maxBannersKept bounds the banner texts whose first reading a terminal
// remembers.
const maxBannersKept = 16

// limitState is a terminal's usage-limit state (t.mu).
type limitState struct {
	hold     automation.LimitHold
	banner   automation.LimitBanner // the last new banner (Reset as first read)
	seenText string                 // the banner on screen at the last judgment
	seenN    int                    // how many banner rows it showed
	refusals int                    // banners in a row whose reset had passed
	// first is each banner text's reset as read when it first showed: a
	// time of day read again later would be the next day's.
	first map[string]time.Time
	// switchSeen is the model-switch row on screen at the last judgment;
	// switchText the last new one (ModelSwitch).
	switchSeen, switchText string
}

func (b Behavior) readsLimits() bool {
	l := b.Status.Limits
	return len(l.Banners) > 0 || len(l.Dialogs) > 0 || len(l.Switches) > 0
}

// observeSwitchLocked looks for a new model-switch row (the profile's
// Status.Limits.Switches) on the rows last read: new when its text differs
// from the one on screen at the last judgment. It reports whether there is
// one (ModelSwitch returns it). t.mu must be held.
func (t *Terminal) observeSwitchLocked() bool {
	r := t.behavior.Status.Limits
	if len(r.Switches) == 0 || !t.view.read {
		return false
	}
	b, ok := automation.FindLimit(&t.rows, automation.LimitRules{Banners: r.Switches})
	l := &t.lim
	if !ok {
		l.switchSeen = ""
		return false
	}
	if b.Text == l.switchSeen {
		return false
	}
	l.switchSeen, l.switchText = b.Text, b.Text
	return true
}

// ModelSwitch returns the last new model-switch row the terminal saw (ok
// false: none yet).
func (t *Terminal) ModelSwitch() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lim.switchText, t.lim.switchText != ""
}

// observeLimitLocked looks for a new banner on the rows last read and,
// when there is one, holds the terminal. It reports whether it found one.
// A banner is new when its text differs from the one on screen at the last
// judgment, or it shows on more rows (the CLI refused again). t.mu must be
// held.
func (t *Terminal) observeLimitLocked(now time.Time) bool {
	r := t.behavior.Status.Limits
	if len(r.Banners) == 0 || !t.view.read {
		return false
	}
	b, ok := automation.FindLimit(&t.rows, r)
	l := &t.lim
	if !ok {
		l.seenText, l.seenN = "", 0
		return false
	}
	if b.Text == l.seenText && b.Count <= l.seenN {
		l.seenN = b.Count
		return false
	}
	l.seenText, l.seenN = b.Text, b.Count
	l.banner = t.holdLocked(b, now, automation.LimitFromScreen)
	return true
}

// holdLocked holds the terminal on banner b (its Reset is read here, from
// its text, the first time that text shows), at now, with the evidence
// source, backing off when the reset has passed (automation.LimitUntil). It
// returns b with its reset. t.mu must be held.
func (t *Terminal) holdLocked(b automation.LimitBanner, now time.Time, source string) automation.LimitBanner {
	r := t.behavior.Status.Limits
	l := &t.lim
	reset, seen := l.first[b.Text]
	if !seen {
		zone := t.behavior.Limit.Zone
		if zone == nil {
			zone = time.Local
		}
		reset, _ = r.Reset(b.Text, now, zone, time.LoadLocation)
		if l.first == nil || len(l.first) >= maxBannersKept {
			l.first = map[string]time.Time{}
		}
		l.first[b.Text] = reset
	}
	b.Reset = reset
	lb := t.behavior.Limit
	until, refusals := automation.LimitUntil(reset, now, lb.Margin, lb.Retry, l.refusals)
	l.refusals = refusals
	acct := l.hold.Account
	l.hold = automation.LimitHold{Until: until, Reset: reset, Source: source, Account: acct, Text: b.Text}
	return b
}

// HoldLimit holds the terminal on a usage limit its CLI reported outside
// the screen (Claude Code's StopFailure hook, docs/limits.md): text is what
// the CLI said, source the evidence. The reset is read from text as from a
// banner's (none: limit_retry, backing off while the CLI refuses again). A
// hold in force whose reset text does not name keeps that reset, now on
// this evidence. Like a new banner, it emits EventLimit, so the engine
// holds the account. It returns the hold.
func (t *Terminal) HoldLimit(text, source string) automation.LimitHold {
	now := t.now()
	t.mu.Lock()
	prev := t.lim.hold
	b := t.holdLocked(automation.LimitBanner{Text: text, Count: 1}, now, source)
	if b.Reset.IsZero() && prev.Active(now) && !prev.Reset.IsZero() {
		t.lim.refusals = 0
		prev.Source = source
		t.lim.hold = prev
	}
	h := t.lim.hold
	t.mu.Unlock()
	t.emit(EventLimit)
	t.poke()
	return h
}

// SetLimit sets the usage-limit hold (a zero hold clears it, and the
// refusals counted for the back-off) and has the judge run again. It
// reports whether the hold changed.
func (t *Terminal) SetLimit(h automation.LimitHold) bool {
	t.mu.Lock()
	changed := h != t.lim.hold
	t.lim.hold = h
	if h.Until.IsZero() {
		t.lim.refusals = 0
	}
	t.mu.Unlock()
	if changed {
		t.poke()
	}
	return changed
}

// Limit returns the usage-limit hold (zero: none).
func (t *Terminal) Limit() automation.LimitHold {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lim.hold
}

// LimitBanner returns the last new usage-limit banner the terminal saw,
// with its reset as first read (ok false: none yet).
func (t *Terminal) LimitBanner() (automation.LimitBanner, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lim.banner, t.lim.banner.Text != ""
}

// Now is the terminal's clock (Options.Now): the time its holds are
// judged at.
func (t *Terminal) Now() time.Time { return t.now() }
