package engine

// limits_hook.go reads Claude Code's StopFailure hook (docs/limits.md): the
// CLI's own word that a turn ended on an API error, stronger evidence than
// the screen. Its payload (2.1.332) names the error (`rate_limit`,
// `overloaded`, `server_error`, `billing_error`, ...) and carries the
// message the CLI showed. Every such turn is a failed turn (its text is the
// turn's failure, before the screen's). A `rate_limit` holds the account
// only when its message is one of the profile's usage-limit banners
// (`You've hit your limit · resets 10pm`: 2.1.332 reports a subscription's
// limit this way, with the reset read from the message): the CLI says it
// is a limit. A plain API rate limit (`Request rejected (429) · Rate
// limited`) is a failed turn and holds nothing, as the screen's API errors.

import (
	"time"

	"office/automation"
	"office/configs"
)

// HookStopFailure is the event `office hook StopFailure` reports.
const HookStopFailure = "StopFailure"

// stopFailureRateLimit is the StopFailure error that holds the account.
const stopFailureRateLimit = "rate_limit"

// hookFailure is the last StopFailure of an agent: the turn it ended fails
// with text.
type hookFailure struct {
	at   time.Time
	text string
	rate bool // a rate_limit: the account is held
}

// stopFailure follows a StopFailure hook of a: it records the turn's
// failure and, for rate_limit, holds the terminal (pool's EventLimit then
// holds the account, as for a banner).
func (e *Engine) stopFailure(a *Agent, args HookArgs) {
	text := failureText(args)
	b := &e.limits
	b.mu.Lock()
	if b.failed == nil {
		b.failed = map[string]hookFailure{}
	}
	limit := args.Error == stopFailureRateLimit && usageLimit(text, a.Profile)
	b.failed[a.Config.Name] = hookFailure{at: a.Term.Now(), text: text, rate: limit}
	b.mu.Unlock()
	e.log.Info("turn failed (StopFailure hook)", "agent", a.Config.Name, "error", args.Error, "text", text, "limit", limit)
	if limit {
		a.Term.HoldLimit(text, automation.LimitFromHook)
	}
}

// usageLimit reports whether text, a StopFailure's message, is one of p's
// usage-limit banners.
func usageLimit(text string, p configs.Profile) bool {
	_, ok := automation.FindLimit(automation.TextRows(text), automation.LimitRules{Banners: p.Limits.Banners})
	return ok
}

// failureText is what a StopFailure says of the turn: the message the CLI
// showed, else the error's details, else its name; one line.
func failureText(args HookArgs) string {
	for _, s := range []string{args.LastMessage, args.ErrorDetails} {
		if s = oneLine(s); s != "" {
			return s
		}
	}
	if args.Error == "" {
		return "StopFailure"
	}
	return "StopFailure: " + oneLine(args.Error)
}

// hookFailed returns the failure a StopFailure hook reported for agent's
// turn that started at start ("" when none did), whether it was a
// rate_limit, and forgets it.
func (b *limitBook) hookFailed(agent string, start time.Time) (text string, rate bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f, ok := b.failed[agent]
	if !ok {
		return "", false
	}
	delete(b.failed, agent)
	if f.at.Before(start) {
		return "", false
	}
	return f.text, f.rate
}
