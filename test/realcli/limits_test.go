package realcli

// Usage limits and API errors with the real CLIs (docs/limits.md): the
// fake model refuses every call the way the vendor does (fakemodel.Refuse);
// the tests check what office makes of the CLI's screen.

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"office/engine"
	"office/inbox"
	"office/test/fakemodel"
)

// TestClaudeRateLimit: with every model call refused (Anthropic 429
// rate_limit_error; an API key, so no subscription usage-limit banner),
// Claude Code 2.1.332 ends the turn on `API Error: Request rejected (429)`
// and runs its StopFailure hook with error rate_limit. The request mail
// that turn was to answer fails with the CLI's text (not no_reply_found).
// A plain rate limit is no usage limit (docs/limits.md): nothing is held,
// the agent is idle again, and a message queued once the model answers is
// typed and answered, once.
func TestClaudeRateLimit(t *testing.T) {
	r := newRig(t, "claude")
	r.top = "limit_retry = \"1m\"\nlimit_margin = \"1s\"\n"
	r.start()
	r.srv.Refuse(fakemodel.Refusal{Status: 429, Reset: time.Now().Add(3 * time.Hour)})
	ctx := context.Background()
	id, err := r.eng.Inbox().SendMail(ctx, inbox.MailRequestArgs{To: "claude", Title: "q", Text: "what is 2+2?", Request: true})
	if err != nil {
		t.Fatal(err)
	}
	engine.Poke(r.state) // as `office mail` does: the inbox schedules its delivery
	var m inbox.Mail
	r.waitFor(120*time.Second, "the request settled", func() bool {
		m, _, err = r.eng.Inbox().GetMail(ctx, id)
		return err == nil && (m.State == inbox.MailFailed || m.State == inbox.MailDone)
	})
	if os.Getenv("OFFICE_REALCLI_SHOW") != "" {
		t.Logf("mail %+v\nscreen:\n%s", m, r.screen())
	}
	if m.State != inbox.MailFailed || !strings.HasPrefix(m.Reason, inbox.ReasonTurnFailed+": ") ||
		!strings.Contains(m.Reason, "API Error: Request rejected (429)") {
		t.Fatalf("request %s (%s), want turn_failed with Claude's API error\n%s", m.State, m.Reason, r.diagnose())
	}
	if r.srv.Refused() == 0 {
		t.Fatal("no call was refused")
	}
	r.waitFor(10*time.Second, "idle after the failed turn", func() bool { return r.statusIs("idle") })
	if h := r.agent().Term.Limit(); !h.Until.IsZero() {
		t.Fatalf("a plain rate limit held the agent: %+v", h)
	}
	r.srv.Refuse(fakemodel.Refusal{})
	r.send("after the rate limit")
	r.waitFor(150*time.Second, "the queued message answered", func() bool { return r.countPrompts("after the rate limit") == 1 })
	r.holdsFor(5*time.Second, "delivered once", func() bool { return r.countPrompts("after the rate limit") == 1 })
}

// TestCodexUsageLimit: against the fake model's OpenAI 429
// usage_limit_reached, Codex 0.171.0 prints its usage-limit banner with the
// reset the server sent, then opens its own rate-limit picker. office holds
// the agent (the picker is a dialog: waiting), tells the person, records
// limit_hit, and types no queued message (the model receives nothing);
// once the picker is answered (office approve) the status is usage limit;
// the hold ends by itself at the reset (shortened to a minute or two
// ahead) plus limit_margin, and the queued message is typed then, once.
func TestCodexUsageLimit(t *testing.T) {
	r := newRig(t, "codex")
	r.top = "limit_margin = \"1s\"\n"
	r.start()
	reset := time.Now().Add(2 * time.Minute).Truncate(time.Minute)
	r.srv.Refuse(fakemodel.Refusal{Status: 429, Reset: reset})
	r.send("first refused")
	r.waitFor(90*time.Second, "the banner's hold", func() bool { return r.agent().Term.Limit().Active(time.Now()) })
	r.waitFor(10*time.Second, "the record's hold", func() bool { return r.agent().Term.Limit().Source == "transcript" })
	h := r.agent().Term.Limit()
	if !h.Reset.Equal(reset) {
		t.Errorf("hold %+v: reset %v, want the server's %v", h, h.Reset, reset)
	}
	r.waitFor(30*time.Second, "the picker waiting", func() bool { return r.statusIs("waiting") })
	if os.Getenv("OFFICE_REALCLI_ROLLOUT") != "" {
		out, _ := exec.Command("sh", "-c", "grep -rh rate_limit "+r.sb.Home+"/.codex/sessions | cut -c1-1500").CombinedOutput()
		t.Logf("rollout:\n%s", out)
	}
	if os.Getenv("OFFICE_REALCLI_SHOW") != "" {
		t.Logf("status %+v refused %d\nscreen:\n%s", r.status(), r.srv.Refused(), r.screen())
	}
	r.send("second, after the limit")
	typed := func() bool {
		return r.countPrompts("second, after the limit") > 0 || strings.Contains(r.screen(), "second, after")
	}
	r.waitFor(10*time.Second, "held waiting", func() bool { return r.hold() == "waiting" })
	r.holdsFor(5*time.Second, "nothing typed into the picker", func() bool { return r.hold() == "waiting" && !typed() })

	ctx := context.Background()
	if _, err := r.eng.Approve(ctx, "codex", "2", ""); err != nil { // Keep current model
		t.Fatal(err)
	}
	r.waitFor(30*time.Second, "usage limit", func() bool { return r.statusIs("usage limit") && r.hold() == "usage limit" })
	// The rollout's rate_limits.primary.resets_at is the stronger evidence.
	if sig := r.status().Signal; !strings.HasPrefix(sig, "resets ") || !strings.HasSuffix(sig, "from transcript") {
		t.Errorf("signal %q", sig)
	}
	r.holdsFor(3*time.Second, "nothing typed", func() bool { return !typed() })
	evs, err := r.eng.Store().Events(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	hit := false
	for _, ev := range evs {
		hit = hit || ev.Kind == engine.EventLimitHit && ev.Agent == "codex"
	}
	if !hit {
		t.Error("no limit_hit event")
	}

	r.srv.Refuse(fakemodel.Refusal{})
	r.waitFor(3*time.Minute, "the queued message answered", func() bool { return r.countPrompts("second, after the limit") == 1 })
	if time.Now().Before(reset.Add(time.Second)) {
		t.Errorf("typed before the reset %v plus the margin", reset)
	}
	r.holdsFor(5*time.Second, "delivered once", func() bool { return r.countPrompts("second, after the limit") == 1 })
}

// TestGeminiQuotaError: against the fake model's Gemini 429
// RESOURCE_EXHAUSTED (no retry info), Gemini CLI 0.61.0 shows nothing of it:
// it stays "Thinking..." and retries in silence (measured: over 4 minutes).
// office reads it busy and types nothing more into it; once the refusal
// ends, Gemini's retry gets through and the queued message follows, once.
func TestGeminiQuotaError(t *testing.T) {
	r := newRig(t, "gemini")
	r.start()
	r.srv.Refuse(fakemodel.Refusal{Status: 429})
	r.send("first refused")
	r.waitFor(90*time.Second, "refused calls", func() bool { return r.srv.Refused() > 0 })
	r.send("second, after the refusal")
	r.waitFor(10*time.Second, "held busy", func() bool { return r.hold() == "busy" })
	r.holdsFor(15*time.Second, "busy, nothing more typed", func() bool {
		return r.statusIs("busy") && r.countPrompts("second, after the refusal") == 0
	})
	if os.Getenv("OFFICE_REALCLI_SHOW") != "" {
		t.Logf("status %+v refused %d\nscreen:\n%s", r.status(), r.srv.Refused(), r.screen())
	}
	r.srv.Refuse(fakemodel.Refusal{})
	r.waitFor(180*time.Second, "the queued message answered", func() bool { return r.countPrompts("second, after the refusal") == 1 })
}
