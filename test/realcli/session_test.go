package realcli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"office/engine"
)

// Issue 22's "a session switch followed across a restart": Claude Code
// moves to another session id while it runs, its hooks report the new one,
// office records it in launch.json, and a restart resumes that conversation.
// Two switches the real binary makes offline: the first-run fullscreen offer
// answered "Yes, try it" with `office approve` (the path the issue saw
// switch; CLAUDE_CODE_FORCE_FULLSCREEN_UPSELL makes 2.1.332 show the offer
// at every start), and /clear typed by the person. The check is the fake
// model's request log: the first request after the restart carries every
// user turn since the switch (and, after /clear, none from before it).
func TestClaudeSessionSwitchFollowedAcrossARestart(t *testing.T) {
	t.Run("the fullscreen offer answered yes", func(t *testing.T) { runSessionSwitch(t, true) })
	t.Run("clear typed by the person", func(t *testing.T) { runSessionSwitch(t, false) })
}

func runSessionSwitch(t *testing.T, offer bool) {
	r := newRig(t, "claude")
	if officeBin == "" {
		t.Skip("office binary not built: Claude's hooks (which report the session) need it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var first string
	var turns []string // the user turns of the session switched to
	if offer {
		r.env = map[string]string{"CLAUDE_CODE_FORCE_FULLSCREEN_UPSELL": "1"}
		r.startUntil(40*time.Second, "the fullscreen offer read as waiting", func() bool {
			return r.statusIs("waiting") && strings.Contains(r.screen(), "Try the new fullscreen renderer?")
		})
		first = r.session()
		if _, err := r.eng.Approve(ctx, "claude", "Yes, try it", ""); err != nil {
			t.Fatalf("approve the offer: %v\n%s", err, r.diagnose())
		}
		r.waitFor(30*time.Second, "idle after the offer", func() bool { return r.statusIs("idle") })
		r.turn("after the switch zeta")
		turns = append(turns, "after the switch zeta")
	} else {
		r.start()
		first = r.session()
		r.turn("before the clear zeta")
		r.typeAndSubmit("/clear")
		r.waitFor(30*time.Second, "idle after /clear", func() bool { return r.statusIs("idle") && !r.agent().Term.HasDraft() })
		r.turn("after the switch eta")
		turns = append(turns, "after the switch eta")
	}
	// What the CLI did: a transcript under an id other than the one it
	// started with means it moved (its hooks name that id).
	var moved string
	for _, id := range r.transcripts() {
		if id != first {
			moved = id
		}
	}
	if moved == "" {
		t.Skipf("Claude Code %s kept session %s (transcripts %v): no switch to follow", ClaudeVersion, first, r.transcripts())
	}
	t.Logf("session switch: %s -> %s (transcripts %v)", first, moved, r.transcripts())
	// Not fatal: without it the restart below shows what the model loses.
	for deadline := time.Now().Add(10 * time.Second); r.session() != moved; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("launch.json names session %s, not the CLI's %s", r.session(), moved)
			break
		}
	}
	r.turn("after the switch theta")
	turns = append(turns, "after the switch theta")

	old := r.agent().Term
	if err := r.eng.RestartAgent("claude"); err != nil {
		t.Fatal(err)
	}
	fresh := func() bool { a, ok := r.eng.Agent("claude"); return ok && a.Term != nil && a.Term != old }
	before := len(r.srv.Turns())
	if offer {
		// The forced offer shows again; the person declines it (Not now
		// keeps the session, checked) and the queued message follows.
		r.waitFor(40*time.Second, "the offer again after the restart", func() bool {
			return fresh() && r.statusIs("waiting") && strings.Contains(r.screen(), "Try the new fullscreen renderer?")
		})
		r.send("after the restart iota")
		if _, err := r.eng.Approve(ctx, "claude", "Not now", ""); err != nil {
			t.Fatalf("approve the offer after the restart: %v\n%s", err, r.diagnose())
		}
	} else {
		r.waitFor(40*time.Second, "the restarted agent ready and idle", func() bool { return fresh() && r.statusIs("idle") })
		r.send("after the restart iota")
	}
	r.waitFor(40*time.Second, "iota at the model", func() bool { return r.countPrompts("after the restart iota") == 1 })
	var body string
	for _, q := range r.srv.Turns()[before:] {
		if strings.Contains(string(q.Body), "after the restart iota") {
			body = string(q.Body)
			break
		}
	}
	for _, s := range turns {
		if !strings.Contains(body, s) {
			t.Errorf("the request after the restart lacks %q: not the session switched to (%s)\n%s", s, moved, r.diagnose())
		}
	}
	if strings.Contains(body, "before the clear zeta") {
		t.Errorf("the request after the restart carries the turn before /clear: the old session %s was resumed\n%s", first, r.diagnose())
	}
	if ts := r.transcripts(); !slices.Contains(ts, moved) {
		t.Errorf("the switched-to transcript %s is gone: %v", moved, ts)
	}
}

// turn sends text through the queue and waits for its turn to end.
func (r *rig) turn(text string) {
	r.t.Helper()
	r.send(text)
	r.waitFor(30*time.Second, text+" at the model", func() bool { return r.countPrompts(text) == 1 })
	r.waitFor(30*time.Second, "idle after "+text, func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
}

// session returns the session id office's launch.json names for the agent.
func (r *rig) session() string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(engine.AgentDir(r.state, r.cli), "launch.json"))
	if err != nil {
		r.t.Fatal(err)
	}
	var rec struct {
		Session string `json:"session_id"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		r.t.Fatal(err)
	}
	return rec.Session
}

// transcripts lists the session transcripts Claude wrote in the sandbox.
func (r *rig) transcripts() []string {
	m, _ := filepath.Glob(filepath.Join(r.sb.Home, ".claude", "projects", "*", "*.jsonl"))
	for i := range m {
		m[i] = strings.TrimSuffix(filepath.Base(m[i]), ".jsonl")
	}
	return m
}
