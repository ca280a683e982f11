package records

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The rollout line is Codex 0.171.0's own, recorded against the fake
// model's 429 usage_limit_reached (test/realcli).
func TestCodexLimit(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, ".codex", "sessions", "2026", "12", "01")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	meta := `{"timestamp":"2026-12-01T22:02:40.000Z","type":"session_meta","payload":{"cwd":"/proj"}}` + "\n"
	ok100 := `{"timestamp":"2026-12-01T22:02:41.363Z","ordinal":9,"type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"limit_id":"codex","limit_name":null,"primary":{"used_percent":100.0,"window_minutes":300,"resets_at":1796173320},"secondary":null,"credits":null,"individual_limit":null,"spend_control_reached":null,"plan_type":null,"rate_limit_reached_type":null}}}` + "\n"
	fine := `{"timestamp":"2026-12-01T23:00:00.000Z","type":"event_msg","payload":{"type":"token_count","rate_limits":{"primary":{"used_percent":12.5,"window_minutes":300,"resets_at":1796180000},"secondary":{"used_percent":40,"window_minutes":10080,"resets_at":1796600000}}}}` + "\n"
	both := `{"timestamp":"2026-12-01T23:30:00.000Z","type":"event_msg","payload":{"type":"token_count","rate_limits":{"primary":{"used_percent":100,"window_minutes":300,"resets_at":1796180000},"secondary":{"used_percent":100,"window_minutes":10080,"resets_at":1796600000}}}}` + "\n"
	path := filepath.Join(dir, "rollout-2026-12-01T22-02-40-x.jsonl")
	loc := Locator{Kind: KindCodex, Home: home, Dir: "/proj"}
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(meta + ok100)
	l, ok, err := CodexLimit(loc)
	if err != nil || !ok || !l.Reset.Equal(time.Unix(1796173320, 0)) || l.Window != 5*time.Hour ||
		!l.At.Equal(time.Date(2026, 12, 1, 22, 2, 41, 363e6, time.UTC)) {
		t.Fatalf("exhausted: %+v %v %v", l, ok, err)
	}
	write(meta + ok100 + fine)
	if _, ok, _ := CodexLimit(loc); ok {
		t.Fatal("a later event with quota left still reads as a limit")
	}
	write(meta + fine + both)
	if l, ok, _ := CodexLimit(loc); !ok || !l.Reset.Equal(time.Unix(1796600000, 0)) || l.Window != 7*24*time.Hour {
		t.Fatalf("both exhausted: %+v %v, want the weekly window's reset", l, ok)
	}
	if _, ok, err := CodexLimit(Locator{Kind: KindCodex, Home: home, Dir: "/elsewhere"}); ok || err != nil {
		t.Fatalf("another folder's rollout read: %v %v", ok, err)
	}
}

// Claude's transcript: the last assistant row, an API error of a usage
// limit, sets the reset; a later reply clears it; a rate-limit error
// (an API key's 429) is not a limit.
func TestClaudeLimit(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-proj")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s1.jsonl")
	loc := Locator{Kind: KindClaude, Home: home, Dir: "/proj", SessionID: "s1"}
	user := `{"type":"user","message":{"role":"user","content":"hi"},"timestamp":"2026-12-01T22:00:00.000Z"}` + "\n"
	limit := `{"type":"assistant","timestamp":"2026-12-01T22:00:01.000Z","isApiErrorMessage":true,"error":"rate_limit","apiError":"usage_limit_reached","apiErrorParams":{"rate_limit_info":{"status":"rejected","resetsAt":1796180000,"rateLimitType":"five_hour"}},"message":{"role":"assistant","content":[{"type":"text","text":"You've hit your limit · resets 10pm"}]}}` + "\n"
	noReset := `{"type":"assistant","timestamp":"2026-12-01T22:00:02.000Z","isApiErrorMessage":true,"apiError":"usage_limit_reached","message":{"content":[]}}` + "\n"
	rate := `{"type":"assistant","timestamp":"2026-12-01T22:00:03.000Z","isApiErrorMessage":true,"error":"rate_limit","message":{"content":[{"type":"text","text":"API Error: Request rejected (429) · Rate limited"}]}}` + "\n"
	reply := `{"type":"assistant","timestamp":"2026-12-01T22:10:00.000Z","message":{"content":[{"type":"text","text":"done"}]}}` + "\n"
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(user + limit)
	l, ok, err := ClaudeLimit(loc)
	if err != nil || !ok || !l.Reset.Equal(time.Unix(1796180000, 0)) || !l.At.Equal(time.Date(2026, 12, 1, 22, 0, 1, 0, time.UTC)) {
		t.Fatalf("usage limit: %+v %v %v", l, ok, err)
	}
	write(user + limit + noReset)
	if l, ok, _ := ClaudeLimit(loc); !ok || !l.Reset.IsZero() {
		t.Fatalf("no reset: %+v %v", l, ok)
	}
	write(user + limit + reply)
	if _, ok, _ := ClaudeLimit(loc); ok {
		t.Fatal("a later reply still reads as a limit")
	}
	write(user + rate)
	if _, ok, _ := ClaudeLimit(loc); ok {
		t.Fatal("a rate-limit error reads as a usage limit")
	}
}
