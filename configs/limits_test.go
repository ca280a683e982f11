package configs

import (
	"slices"
	"strings"
	"testing"
)

// TestBuiltinLimits: each CLI's usage-limit texts come from profiles.toml.
func TestBuiltinLimits(t *testing.T) {
	t.Parallel()
	ps, err := BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	c := ps["claude"].Limits
	if !slices.Contains(c.Banners, "You've hit your limit") || !slices.Contains(c.Resets, "resets ") ||
		!slices.Contains(c.Dialogs, "Stop and wait for limit to reset") || !slices.Contains(c.Errors, "API Error:") {
		t.Errorf("claude limits %+v", c)
	}
	if x := ps["codex"].Limits; !slices.Contains(x.Banners, "You've hit your usage limit") || !slices.Contains(x.Resets, "try again in ") ||
		!slices.Contains(x.Banners, "You’ve hit your usage limit") || !slices.Contains(x.Dialogs, "Approaching rate limits") {
		t.Errorf("codex limits %+v", x)
	}
	if g := ps["gemini"].Limits; !slices.Contains(g.Banners, "RESOURCE_EXHAUSTED") || !slices.Contains(g.Switches, "Switched to fallback model") {
		t.Errorf("gemini limits %+v", g)
	}
	if s := ps["shell"].Limits; len(s.Banners) != 0 {
		t.Errorf("shell has limits %+v", s)
	}
}

// TestOfficeFileLimits: an office file's [profile.NAME.limits] replaces the
// lists it names and keeps the others; a wrong key is an error naming the
// line.
func TestOfficeFileLimits(t *testing.T) {
	t.Parallel()
	src := "[[agent]]\nname = \"a\"\nprofile = \"claude\"\n\n[profile.claude.limits]\nbanners = [\"Out of juice\"]\nswitches = [\"Now on Haiku\"]\n"
	cfg, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.ProfileOf(cfg.Agents[0])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Limits.Banners, []string{"Out of juice"}) || !slices.Contains(p.Limits.Resets, "resets ") ||
		!slices.Equal(p.Limits.Switches, []string{"Now on Haiku"}) {
		t.Errorf("limits %+v", p.Limits)
	}
	builtin, _ := BuiltinProfiles()
	if slices.Contains(builtin["claude"].Limits.Banners, "Out of juice") {
		t.Error("the office file changed the built-in profile")
	}
	_, err = Parse("office.toml", []byte("[profile.claude.limits]\nbanner = [\"x\"]\n"))
	if err == nil || !strings.Contains(err.Error(), "office.toml:") || !strings.Contains(err.Error(), `unknown key "banner"`) {
		t.Errorf("bad key: %v", err)
	}
	_, err = Parse("office.toml", []byte("[profile.claude]\nlimits = 3\n"))
	if err == nil || !strings.Contains(err.Error(), "limits") {
		t.Errorf("limits not a table: %v", err)
	}
}
