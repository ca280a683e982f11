package realcli

import (
	"strings"
	"testing"
	"time"
)

// Text the CLI itself puts on the prompt is the person's draft: Up recalls
// the previous prompt (Claude and Codex), and Esc during a Claude turn puts
// the interrupted prompt back. A queued message is held as "your draft"
// while it is there; once the person clears the prompt (Ctrl-U) the message
// reaches the model once, alone.

func TestClaudeRecall(t *testing.T) { runRecall(t, "claude") }
func TestCodexRecall(t *testing.T)  { runRecall(t, "codex") }

func runRecall(t *testing.T, cli string) {
	r := newRig(t, cli)
	r.start()

	t.Run("Up recalls the previous prompt", func(t *testing.T) {
		r.t = t
		r.typeAndSubmit("earlier person prompt")
		r.waitFor(30*time.Second, "the person's prompt at the model", func() bool { return r.countPrompts("earlier person prompt") == 1 })
		r.waitFor(30*time.Second, "idle after the turn", func() bool { return r.statusIs("idle") })
		time.Sleep(300 * time.Millisecond) // a human gap before the key
		r.input("\x1b[A")
		r.waitFor(10*time.Second, "the recalled prompt on the prompt row", func() bool {
			txt, ok := r.agent().Term.Prompt()
			return ok && strings.Contains(txt, "earlier person prompt")
		})
		r.send("queued after recall")
		heldThenAlone(t, r, "queued after recall", "earlier person prompt")
	})

	if cli != "claude" {
		return
	}
	t.Run("Esc puts the interrupted prompt back", func(t *testing.T) {
		r.t = t
		r.srv.SetDelay(20 * time.Second)
		r.typeAndSubmit("interrupted person task")
		r.waitFor(30*time.Second, "the task at the model", func() bool { return r.countPrompts("interrupted person task") == 1 })
		r.waitFor(10*time.Second, "busy", func() bool { return r.statusIs("busy") })
		r.send("queued during the task")
		r.waitFor(10*time.Second, "held: busy", func() bool { return r.hold() == "busy" })
		r.input("\x1b")
		r.waitFor(10*time.Second, "the interrupted prompt back on the prompt row", func() bool {
			txt, ok := r.agent().Term.Prompt()
			return ok && strings.Contains(txt, "interrupted person task")
		})
		r.srv.SetDelay(time.Second)
		heldThenAlone(t, r, "queued during the task", "interrupted person task")
	})
}

// heldThenAlone checks that queued is held as "your draft" while the CLI's
// text (onPrompt) sits on the prompt, then clears the prompt as the person
// and checks that queued reaches the model once, never merged with onPrompt.
func heldThenAlone(t *testing.T, r *rig, queued, onPrompt string) {
	t.Helper()
	r.waitFor(10*time.Second, "hold: your draft", func() bool { return r.hold() == "your draft" })
	r.holdsFor(3*time.Second, "held while the text is on the prompt", func() bool {
		return r.countPrompts(queued) == 0 && r.hold() == "your draft"
	})
	if !r.agent().Term.HasDraft() {
		t.Fatalf("no draft badge\n%s", r.diagnose())
	}
	before := r.countPrompts(onPrompt)
	r.input("\x15") // the person clears the prompt
	r.waitFor(40*time.Second, "the queued message at the model", func() bool { return r.countPrompts(queued) == 1 })
	r.waitFor(30*time.Second, "idle and queue empty", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
	if p := r.lastPromptWith(queued); strings.Contains(p, onPrompt) {
		t.Fatalf("merged: the model got %q\n%s", p, r.diagnose())
	}
	if n := r.countPrompts(queued); n != 1 {
		t.Fatalf("%q reached the model %d times\n%s", queued, n, r.diagnose())
	}
	if n := r.countPrompts(onPrompt); n != before {
		t.Fatalf("%q was submitted again (%d -> %d)\n%s", onPrompt, before, n, r.diagnose())
	}
}
