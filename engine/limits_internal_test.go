package engine

import (
	"strings"
	"testing"
	"time"

	"office/automation"
	"office/configs"
)

// Every banner the CLIs are reported to print reads, through the built-in
// profiles (profiles.toml's limits), as a usage limit with the reset it
// names; the Claude limit menu is a dialog; a paid extra-usage line and an
// ordinary reply are no banner.
func TestBuiltinProfilesReadTheReportedBanners(t *testing.T) {
	t.Parallel()
	ps, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC) // 08:00 in New York
	rule := strings.Repeat("─", 60)
	claudeScreen := func(banner string) string {
		return "❯ fix the tests\n  ⎿  " + banner + "\n\n" + rule + "\n❯ \n" + rule + "\n  ? for shortcuts"
	}
	codexScreen := func(banner string) string {
		return "› fix the tests\n\n■ " + banner + "\n\n› Ask Codex to do anything\n\n  ← for agents · ? for shortcuts"
	}
	at := func(h, m int, loc *time.Location) time.Time { return time.Date(2026, 7, 1, h, m, 0, 0, loc) }
	cases := []struct {
		profile, screen string
		reset           time.Time // zero: none printed
	}{
		{"claude", claudeScreen("Claude usage limit reached. Your limit will reset at 3pm (America/New_York)."), at(15, 0, ny)},
		{"claude", claudeScreen("5-hour limit reached ∙ resets 3pm"), at(15, 0, ny)},
		{"claude", claudeScreen("Weekly limit reached · resets 10am (America/New_York) · /upgrade to Max or turn on /extra-usage"), at(10, 0, ny)},
		{"claude", claudeScreen("You've hit your limit · resets 10pm (America/New_York)"), at(22, 0, ny)},
		{"claude", claudeScreen("You've hit your session limit · resets 11:20am (America/New_York)"), at(11, 20, ny)},
		{"claude", claudeScreen("You've hit your weekly limit · resets Jul 31, 2am (UTC)"), time.Date(2026, 7, 31, 2, 0, 0, 0, time.UTC)},
		{"claude", claudeScreen("You're out of extra usage · resets 5pm (America/New_York)"), at(17, 0, ny)},
		{"codex", codexScreen("You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days 22 hours 11 minutes."),
			now.Add(5*24*time.Hour + 22*time.Hour + 11*time.Minute)},
		{"codex", codexScreen("You've hit your usage limit. Upgrade to Plus to continue using Codex, or try again at Jul 5th, 2026 8:19 PM."),
			time.Date(2026, 7, 5, 20, 19, 0, 0, ny)},
		{"gemini", "✕ [API Error: got status: 429 Too Many Requests. {\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\"}}]\n\n> Type your message", time.Time{}},
	}
	for _, c := range cases {
		p := ps[c.profile]
		rules := limitBehavior(behaviorFor(p, configs.Defaults()), p, configs.Defaults(), []string{"TZ=America/New_York"}).Status.Limits
		b, ok := automation.FindLimit(automation.TextRows(c.screen), rules)
		if !ok {
			t.Errorf("%s: no banner read on\n%s", c.profile, c.screen)
			continue
		}
		reset, _ := rules.Reset(b.Text, now, ny, time.LoadLocation)
		if !reset.Equal(c.reset) {
			t.Errorf("%s: %q resets %v, want %v", c.profile, b.Text, reset, c.reset)
		}
		if f := turnFailure(c.screen, p); f == "" {
			t.Errorf("%s: the turn that ended on %q is not a failed turn", c.profile, b.Text)
		}
	}
	claude := ps["claude"]
	for _, s := range []string{
		claudeScreen("You're now using extra usage · Your weekly limit resets Jul 31"),
		claudeScreen("● Done. The limit reached in the loop is now checked."),
	} {
		if b, ok := automation.FindLimit(automation.TextRows(s), limitBehavior(behaviorFor(claude, configs.Defaults()), claude, configs.Defaults(), nil).Status.Limits); ok {
			t.Errorf("no banner, read as %q", b.Text)
		}
	}
	menu := "  You've hit your limit · resets 10pm (America/New_York)\n\n What do you want to do?\n\n ❯ 1. Stop and wait for limit to reset\n" +
		"   2. Add funds to continue with extra usage\n   3. Upgrade your plan\n\n Enter to confirm · Esc to cancel"
	// Codex 0.171.0's real screen (test/realcli, 120x40) after a 429
	// usage_limit_reached: the banner wraps its reset onto the next row,
	// then Codex opens its own model-switch picker, a dialog.
	codex := ps["codex"]
	codexReal := "  >_ OpenAI Codex (v0.171.0)\n     /tmp/proj\n\n\n› first refused\n\n\n" +
		"■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/\n" +
		"usage to purchase more credits or try again at Dec 2nd, 2026 12:50 AM.\n\n\n\n" +
		"  Approaching rate limits\n  Switch to gpt-6-luna for lower credit usage?\n\n\n" +
		"› 1. Switch to gpt-6-luna                   Fast and affordable model for easier tasks.\n  2. Keep current model\n" +
		"  3. Keep current model (never show again)  Hide future rate limit reminders about switching models\n\n  enter select · esc back"
	cb := limitBehavior(behaviorFor(codex, configs.Defaults()), codex, configs.Defaults(), nil)
	b, ok := automation.FindLimit(automation.TextRows(codexReal), cb.Status.Limits)
	if reset, _ := cb.Status.Limits.Reset(b.Text, now, time.UTC, nil); !ok || !reset.Equal(time.Date(2026, 12, 2, 0, 50, 0, 0, time.UTC)) {
		t.Errorf("codex's real banner: %q %v, reset %v", b.Text, ok, reset)
	}
	j := automation.Judge(automation.Inputs{Now: now, Boot: automation.Boot{Seen: true}, Screen: automation.TextRows(codexReal), LastOutput: now.Add(-time.Minute)}, cb.Status)
	if j.Status != automation.StatusWaiting {
		t.Errorf("codex's rate-limit picker reads %v, want waiting (a dialog)", j.Status)
	}

	beh := limitBehavior(behaviorFor(claude, configs.Defaults()), claude, configs.Defaults(), nil)
	j = automation.Judge(automation.Inputs{Now: now, Boot: automation.Boot{Seen: true}, Screen: automation.TextRows(menu), LastOutput: now.Add(-time.Minute)}, beh.Status)
	if j.Status != automation.StatusWaiting {
		t.Errorf("the limit menu reads %v, want waiting (a dialog)", j.Status)
	}
}
