package realcli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/inbox"
	"office/queue"
)

// Claude Code's own record is the evidence of a delivery (its
// UserPromptSubmit hook, kept in the agent's hook log), and its Stop hook's
// reply is what a parent's notice carries, not lines scraped off the screen
// (docs/evidence.md; issues 13.4 and 15).
func TestClaudeEvidence(t *testing.T) {
	r := newRig(t, "claude")
	if officeBin == "" {
		t.Skip("office binary not built (the hooks run it)")
	}
	r.extra = "parent = \"boss\"\nrole = \"writer\"\n\n[[agent]]\nname = \"boss\"\ncommand = [\"sleep\", \"3600\"]\n"
	r.start()
	ctx := context.Background()

	id := r.send("evidence check alpha")
	r.waitFor(30*time.Second, "the delivery recorded", func() bool { _, err := r.eng.Store().Get(ctx, id); return err != nil })
	evs, err := r.eng.Store().Events(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var detail string
	for _, e := range evs {
		if e.MsgID == id && e.Kind == queue.EventDelivered {
			detail = e.Detail
		}
	}
	if !strings.Contains(detail, "evidence=hook") {
		t.Fatalf("delivered %q: the hook's record did not decide\n%s", detail, r.diagnose())
	}
	hooks, err := os.ReadFile(filepath.Join(r.state, "agents", "claude", "hooks.jsonl"))
	if err != nil || !strings.Contains(string(hooks), `"prompt":"evidence check alpha"`) {
		t.Fatalf("hook log: %v\n%s", err, hooks)
	}
	r.waitFor(30*time.Second, "idle after the turn", func() bool { return r.statusIs("idle") })

	// A turn that begins with an inbox delivery ends with a notice to the
	// parent carrying Claude's reply as its Stop hook reported it.
	const reply = "The parser is finished.\nTwo edge cases remain: empty input and CRLF."
	r.srv.SetReply(reply)
	r.officeCmd("mail", "send", "--to", "claude", "--title", "parser", "report on the parser", "--config", filepath.Join(r.root, "office.toml"))
	var notice string
	r.waitFor(60*time.Second, "the notice to boss", func() bool {
		its, err := r.eng.Inbox().Items(ctx, "boss", inbox.StatePending, inbox.StateLeased, inbox.StateDelivered)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range its {
			if strings.Contains(it.Body, "(actor_id: claude)") {
				notice = it.Body
				return true
			}
		}
		return false
	})
	_, result, ok := strings.Cut(notice, "Result: ")
	if !ok || strings.TrimSpace(result) != reply {
		t.Fatalf("the notice's result is not Claude's reply %q:\n%s", reply, notice)
	}
	t.Logf("notice:\n%s", notice)
}
