package realcli

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The first-run folder trust dialog, on a project the CLI does not trust yet
// (the other tests seed trust, which hides it): the agent reads waiting, a
// queued message is held as "waiting" and nothing is typed into the dialog;
// once the person accepts (Enter on the highlighted "trust" option), the
// message reaches the model once.

func TestClaudeUntrustedFolder(t *testing.T) { runUntrusted(t, "claude") }
func TestCodexUntrustedFolder(t *testing.T)  { runUntrusted(t, "codex") }
func TestGeminiUntrustedFolder(t *testing.T) { runUntrusted(t, "gemini") }

func runUntrusted(t *testing.T, cli string) {
	r := newRig(t, cli)
	if err := r.sb.Distrust(); err != nil {
		t.Fatal(err)
	}
	if cli == "gemini" {
		// Gemini exits to apply the trust ("Gemini CLI is restarting to
		// apply the trust changes...": with GEMINI_CLI_NO_RELAUNCH, which
		// the profile sets, it does not relaunch itself): office restarts it.
		r.extra = "restart = \"always\"\n"
	}
	r.startUntil(40*time.Second, "the trust dialog read as waiting", func() bool { return r.statusIs("waiting") })
	s := r.status()
	t.Logf("%s on an untrusted folder: %s by %q\n%s", cli, s.Status, s.Signal, r.screen())
	if !strings.HasPrefix(s.Signal, "screen: ") {
		t.Fatalf("waiting decided by %q, want a dialog pattern on the screen\n%s", s.Signal, r.diagnose())
	}
	r.send("queued before trust")
	r.waitFor(10*time.Second, "held: waiting", func() bool { return r.hold() == "waiting" })
	// Held, never attempted. (Gemini clears and redraws its whole screen
	// now and then: for that instant the agent reads starting, still held.)
	r.holdsFor(3*time.Second, "held while the dialog waits", func() bool {
		q := r.queued()
		return len(q) == 1 && q[0].Attempts == 0 && !r.statusIs("idle") && len(r.prompts()) == 0
	})
	if h := r.hold(); h != "waiting" {
		t.Fatalf("hold %q, want waiting\n%s", h, r.diagnose())
	}
	if q := r.queued(); len(q) != 1 || q[0].Attempts != 0 || r.agent().Term.HasDraft() {
		t.Fatalf("an attempt was made, or a dialog row read as a draft: %+v\n%s", q, r.diagnose())
	}
	if cli == "claude" {
		// Claude Code 2.1.332 draws it unnumbered with "No, exit" under
		// the pointer: answered by label, the pointer moves to the trust.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if _, err := r.eng.Approve(ctx, cli, "Yes, I trust", ""); err != nil {
			t.Fatalf("approve by label: %v\n%s", err, r.diagnose())
		}
	} else {
		// The person accepts: the trust option is highlighted.
		r.input("\r")
	}
	r.waitFor(60*time.Second, "the queued message at the model after the trust", func() bool {
		return r.countPrompts("queued before trust") == 1
	})
	r.waitFor(30*time.Second, "idle and queue empty", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
	if n := r.countPrompts("queued before trust"); n != 1 {
		t.Fatalf("the message reached the model %d times\n%s", n, r.diagnose())
	}
}
