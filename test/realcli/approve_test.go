package realcli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// approveRuns is how many permission dialogs in a row
// TestClaudeApprovesEveryPermissionDialog answers (issue 22: 3 of 4
// approvals were refused as "another dialog" before the fingerprint left
// out what animates).
const approveRuns = 10

// Issue 22's "approve of a permission dialog succeeds 10 of 10 with the
// blinking line": the fake model asks for approveRuns shell commands in one
// turn, one after another, so the real Claude Code shows its permission
// dialog approveRuns times (each under its blinking `● Running` line), and
// the person answers each with the `office approve` command. Every answer
// must be taken: the command ran (its file exists) and the next dialog, or
// the turn's end, followed.
func TestClaudeApprovesEveryPermissionDialog(t *testing.T) {
	r := newRig(t, "claude")
	if officeBin == "" {
		t.Skip("office binary not built: the test answers with `office approve`")
	}
	r.start()
	file := func(i int) string { return fmt.Sprintf("office-approve-%d.txt", i) }
	for i := 1; i <= approveRuns; i++ {
		r.srv.ToolCall("touch " + file(i))
	}
	r.typeAndSubmit("make the approval files please")
	for i := 1; i <= approveRuns; i++ {
		r.waitFor(40*time.Second, fmt.Sprintf("permission dialog %d", i), func() bool {
			s := r.screen()
			return r.statusIs("waiting") && strings.Contains(s, "Do you want to proceed?") && strings.Contains(s, file(i))
		})
		if i == 1 {
			t.Logf("the first dialog:\n%s", r.screen())
		}
		out := r.officeCmd("approve", "claude", "1")
		if !strings.Contains(out, "answered") {
			t.Fatalf("approve of dialog %d: %q\n%s", i, out, r.diagnose())
		}
		r.waitFor(30*time.Second, fmt.Sprintf("the command of dialog %d ran", i), func() bool {
			_, err := os.Stat(filepath.Join(r.sb.Project, file(i)))
			return err == nil
		})
	}
	r.waitFor(40*time.Second, "idle after the last answer", func() bool { return r.statusIs("idle") })
}

// Issue 22's first-run offers, the fullscreen one ("Try the new fullscreen
// renderer?", `❯ 1. Yes, try it` first: an Enter typed into it chooses Yes
// and writes `"tui": "fullscreen"` into the person's settings): a queued
// message is held while it shows (the model receives nothing, the person's
// settings.json is unchanged), `office approve` answers it, and the message
// then reaches the model once. CLAUDE_CODE_FORCE_FULLSCREEN_UPSELL makes
// 2.1.332 show the offer at every start.
func TestClaudeFullscreenOfferHoldsDelivery(t *testing.T) {
	r := newRig(t, "claude")
	if officeBin == "" {
		t.Skip("office binary not built: the test answers with `office approve`")
	}
	r.env = map[string]string{"CLAUDE_CODE_FORCE_FULLSCREEN_UPSELL": "1"}
	before, _ := os.ReadFile(r.sb.ClaudeSettings())
	r.startUntil(40*time.Second, "the fullscreen offer read as waiting", func() bool {
		return r.statusIs("waiting") && strings.Contains(r.screen(), "Try the new fullscreen renderer?")
	})
	r.send("queued before the fullscreen answer")
	r.waitFor(10*time.Second, "held: waiting", func() bool { return r.hold() == "waiting" })
	// Past the mascot's animation and any boot grace: still held.
	r.holdsFor(3*time.Second, "held while the offer waits", func() bool {
		q := r.queued()
		return len(q) == 1 && q[0].Attempts == 0 && len(r.prompts()) == 0
	})
	if b, _ := os.ReadFile(r.sb.ClaudeSettings()); string(b) != string(before) {
		t.Fatalf("the person's settings changed while held: %q (was %q)", b, before)
	}
	out := r.officeCmd("approve", "claude", "Not now")
	if !strings.Contains(out, "answered") {
		t.Fatalf("approve Not now: %q\n%s", out, r.diagnose())
	}
	r.waitFor(40*time.Second, "the queued message at the model after the answer", func() bool {
		return r.countPrompts("queued before the fullscreen answer") == 1
	})
	r.waitFor(30*time.Second, "idle and queue empty", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
	if b, _ := os.ReadFile(r.sb.ClaudeSettings()); string(b) != string(before) {
		t.Fatalf("the person's settings changed: %q (was %q)", b, before)
	}
}
