package realcli

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// Claude Code 2.1.332's first-run offer "Make auto mode your default
// permission mode?" (unnumbered, "Yes, set auto mode ..." under the pointer;
// on a full 40-row screen no footer hint shows): a queued message is never
// typed into it, since its Enter would choose Yes and rewrite the person's
// ~/.claude/settings.json; `office approve` answers it by label, and the
// message then reaches the model once.
func TestClaudeAutoModeOfferHoldsDelivery(t *testing.T) {
	r := newRig(t, "claude")
	if err := r.sb.OfferClaudeAutoMode(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r.startUntil(40*time.Second, "the offer read as waiting", func() bool { return r.statusIs("waiting") })
	t.Logf("the offer read as waiting after %v by %q\n%s", time.Since(start).Round(time.Millisecond), r.status().Signal, r.screen())
	r.send("queued before the offer's answer")
	r.waitFor(10*time.Second, "held: waiting", func() bool { return r.hold() == "waiting" })
	// Past any boot grace the profile could time out on: still held.
	r.holdsFor(3*time.Second, "held while the offer waits", func() bool {
		q := r.queued()
		return len(q) == 1 && q[0].Attempts == 0 && len(r.prompts()) == 0
	})
	if b, _ := os.ReadFile(r.sb.ClaudeSettings()); string(b) != ClaudeManualSettings {
		t.Fatalf("the person's settings changed while held: %q", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	num, err := r.eng.Approve(ctx, "claude", "No, keep", "")
	if err != nil {
		t.Fatalf("approve by label: %v\n%s", err, r.diagnose())
	}
	t.Logf("answered with option %s", num)
	r.waitFor(40*time.Second, "the queued message at the model after the answer", func() bool {
		return r.countPrompts("queued before the offer's answer") == 1
	})
	r.waitFor(30*time.Second, "idle and queue empty", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
	if b, _ := os.ReadFile(r.sb.ClaudeSettings()); string(b) != ClaudeManualSettings {
		t.Fatalf("the person's settings changed: %q", b)
	}
	if s := r.screen(); !strings.Contains(s, "manual mode on") {
		t.Errorf("not in manual mode after No:\n%s", s)
	}
}
