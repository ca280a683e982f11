package records

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// channelMsg is the message the channel tests (test/realcli/channel_test.go,
// runChannel) hand over through each CLI's turn-end hook; "<" and "&" show
// each CLI's escaping.
const channelMsg = "CHANNEL-ONE office hands this over: a < b & c"

// The files below are the lines of each pinned CLI's own record from one run
// of its channel test (OFFICE_REALCLI_RECORD=1): a typed task, a message
// handed over at its turn's end, 12 blocks in a row ("CAP-BLOCK K"; Claude
// stops at 9), then three pairs of typed prompts.
var channelRecords = []struct {
	kind, file string
	loc        func(home string) Locator
	dst        string
	// blocks is how many blocks in a row are recorded as handed over
	// (Claude: 8 reach the model, the 9th goes with the next prompt).
	blocks int
}{
	{KindClaude, "channel-claude-2.1.332.jsonl", func(h string) Locator {
		return Locator{Kind: KindClaude, Home: h, SessionID: "s"}
	}, ".claude/projects/-tmp-T-proj/s.jsonl", 9},
	{KindCodex, "channel-codex-0.171.0.jsonl", func(h string) Locator {
		return Locator{Kind: KindCodex, Home: h}
	}, ".codex/sessions/2026/12/02/rollout-2026-12-02T02-35-16-x.jsonl", 12},
	{KindGemini, "channel-gemini-0.61.0.jsonl", func(h string) Locator {
		return Locator{Kind: KindGemini, Home: h, SessionID: "s"}
	}, ".gemini/tmp/proj/chats/session-2026-12-02T02-35-s.jsonl", 12},
}

func TestHandedOnRealRecords(t *testing.T) {
	for _, c := range channelRecords {
		t.Run(c.file, func(t *testing.T) {
			home := t.TempDir()
			copyTo(t, c.file, filepath.Join(home, c.dst))
			es, err := Read(c.loc(home))
			if err != nil {
				t.Fatal(err)
			}
			// The handed-over message: Handed confirms it, dated; the
			// typed-prompt readers never take it.
			e, i, ok := Handed(c.kind, es, channelMsg, time.Time{}, nil)
			if !ok || e.At.IsZero() || e.Role != RoleHanded {
				t.Fatalf("Handed(%q) = %+v, %v\nentries %+v", channelMsg, e, ok, es)
			}
			if _, _, ok := Received(es, channelMsg, time.Time{}, nil); ok {
				t.Error("Received took a handed-over message for a typed prompt")
			}
			if _, _, ok := Received(es, "CHANNEL-ONE", time.Time{}, nil); ok {
				t.Error("Received found a part of a handed-over message")
			}
			// Exactly: a part of it, or more than it, is not it.
			for _, not := range []string{"CHANNEL-ONE", channelMsg + " more", "a < b & c"} {
				if _, _, ok := Handed(c.kind, es, not, time.Time{}, nil); ok {
					t.Errorf("Handed(%q) confirmed a text that is not the handed-over one", not)
				}
			}
			// The same message taken as another's evidence (skip), or
			// handed before since, is not found again.
			if _, _, ok := Handed(c.kind, es, channelMsg, time.Time{}, map[int]bool{i: true}); ok {
				t.Error("a skipped entry was found again")
			}
			if _, _, ok := Handed(c.kind, es, channelMsg, e.At.Add(time.Minute), nil); ok {
				t.Error("a message handed over before since counted")
			}
			if _, _, ok := Handed(c.kind, es, channelMsg, e.At, nil); !ok {
				t.Error("a message handed over at since did not count")
			}
			// The blocks in a row: each that reached the model is there.
			for k := 1; k <= 12; k++ {
				_, _, ok := Handed(c.kind, es, fmt.Sprintf("CAP-BLOCK %d", k), time.Time{}, nil)
				if want := k <= c.blocks; ok != want {
					t.Errorf("CAP-BLOCK %d handed: %v, want %v", k, ok, want)
				}
			}
			// Typed prompts are Received's and First's, never Handed's.
			for _, typed := range []string{"TASK-ONE write the parser", "CAP-TASK go on", "TYPED-PRE-1", "TYPED-NEXT-3"} {
				te, _, ok := Received(es, typed, time.Time{}, nil)
				if !ok || te.Role != RoleUser {
					t.Errorf("Received(%q) = %+v, %v", typed, te, ok)
				}
				if _, _, ok := Handed(c.kind, es, typed, time.Time{}, nil); ok {
					t.Errorf("Handed took the typed prompt %q", typed)
				}
			}
			// First looks past the hand-overs to the next typed prompt.
			if f, ok, same := First(es, "CAP-TASK go on", e.At, time.Time{}); !ok || !same {
				t.Errorf("First after the hand-over = %+v, %v, %v: want the typed CAP-TASK", f, ok, same)
			}
		})
	}
}

// The escaping Claude Code 2.1.332 applies to a hook's reason (read from its
// code): a "<" opening a system-reminder tag, and a "<" that ends the text.
func TestClaudeHookForm(t *testing.T) {
	for in, want := range map[string]string{
		channelMsg:                         channelMsg,
		"a <system-reminder> b":            "a &lt;system-reminder> b",
		"x </system-reminder>":             "x &lt;/system-reminder>",
		"x < / System-Reminder>":           "x &lt; / System-Reminder>",
		"x <system-reminders>":             "x <system-reminders>",
		"x <system-reminder_x>":            "x <system-reminder_x>",
		"ends in <":                        "ends in &lt;",
		"ends in </ ":                      "ends in &lt;/ ",
		"a < b <":                          "a < b &lt;",
		"<system-reminder><":               "&lt;system-reminder>&lt;",
		"":                                 "",
		"no tags & no ends < here, a&lt;b": "no tags & no ends < here, a&lt;b",
	} {
		if got := claudeHookForm(in); got != want {
			t.Errorf("claudeHookForm(%q) = %q, want %q", in, got, want)
		}
	}
	// Handed compares the recorded form.
	es := []Entry{{Role: RoleHanded, Text: "stop &lt;/system-reminder> now"}}
	if _, _, ok := Handed(KindClaude, es, "stop </system-reminder> now", time.Time{}, nil); !ok {
		t.Error("Handed did not apply Claude's escaping")
	}
	if _, _, ok := Handed(KindCodex, es, "stop </system-reminder> now", time.Time{}, nil); ok {
		t.Error("Handed applied Claude's escaping to another CLI's record")
	}
}

// A person typing what looks like a hand-over is still a typed prompt where
// the CLI records it as one: Claude's line without isMeta, Gemini's user
// message with no block warning before it.
func TestHandedNeedsTheCLIsMark(t *testing.T) {
	home := t.TempDir()
	tr := filepath.Join(home, ".claude/projects/p/s.jsonl")
	os.MkdirAll(filepath.Dir(tr), 0o700)
	os.WriteFile(tr, []byte(`{"type":"user","message":{"role":"user","content":"Stop hook feedback:\nX"},"timestamp":"2026-12-02T02:00:00Z"}
{"type":"user","message":{"role":"user","content":"Stop hook feedback:\nY"},"isMeta":true,"timestamp":"2026-12-02T02:00:01Z"}
{"type":"user","message":{"role":"user","content":"TaskCompleted hook feedback:\nZ"},"isMeta":true,"hookText":true,"timestamp":"2026-12-02T02:00:02Z"}
`), 0o600)
	es, err := Read(Locator{Kind: KindClaude, Home: home, SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"X", "Y", "Z"} {
		if _, _, ok := Handed(KindClaude, es, s, time.Time{}, nil); ok {
			t.Errorf("Claude: %q counted as handed over", s)
		}
	}
	if _, _, ok := Received(es, "Stop hook feedback: X", time.Time{}, nil); !ok {
		t.Error("Claude: the person's typed prompt was not received")
	}

	chat := filepath.Join(home, ".gemini/tmp/p/chats/session-x-s.jsonl")
	os.MkdirAll(filepath.Dir(chat), 0o700)
	os.WriteFile(chat, []byte(`{"id":"1","timestamp":"2026-12-02T02:00:00Z","type":"user","content":[{"text":"A"}]}
{"id":"2","timestamp":"2026-12-02T02:00:01Z","type":"warning","content":"Agent execution blocked: B"}
{"id":"3","timestamp":"2026-12-02T02:00:02Z","type":"user","content":[{"text":"C"}]}
{"id":"4","timestamp":"2026-12-02T02:00:03Z","type":"user","content":[{"text":"B"}]}
`), 0o600)
	es, err = Read(Locator{Kind: KindGemini, Home: home, SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"A", "B", "C"} {
		if _, _, ok := Handed(KindGemini, es, s, time.Time{}, nil); ok {
			t.Errorf("Gemini: %q counted as handed over (no block right before it)", s)
		}
		if _, _, ok := Received(es, s, time.Time{}, nil); !ok {
			t.Errorf("Gemini: the typed %q was not received", s)
		}
	}
}
