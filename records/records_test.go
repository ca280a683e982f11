package records

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyTo copies a testdata file to dst (making its folders).
func copyTo(t *testing.T, name, dst string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func prompts(es []Entry) []string {
	var out []string
	for _, e := range es {
		if e.Role == RoleUser && !strings.HasPrefix(e.Text, "<") {
			out = append(out, e.Text)
		}
	}
	return out
}

// The files below were written by the pinned CLIs (two turns, "evidence
// probe one", a restart with resume, "evidence probe two"; docs/evidence.md).
func TestReadRealRecords(t *testing.T) {
	const session = "76b53e5f-afa4-48b3-9fcb-344283626b46"
	cases := []struct {
		kind, file, dst string
		loc             func(home string) Locator
	}{
		{KindClaude, "claude-2.1.197.jsonl", ".claude/projects/-tmp-T-proj/" + session + ".jsonl",
			func(h string) Locator { return Locator{Kind: KindClaude, Home: h, SessionID: session} }},
		{KindCodex, "codex-0.171.0.jsonl", ".codex/sessions/2026/12/01/rollout-2026-12-01T08-47-32-01a230c9-aaec-7ea0-9c9e-e76d83eb76af.jsonl",
			func(h string) Locator { return Locator{Kind: KindCodex, Home: h, Dir: "/tmp/T/proj"} }},
		{KindGemini, "gemini-0.61.0.jsonl", ".gemini/tmp/proj/chats/session-2026-12-01T08-49-fd2455f9.jsonl",
			func(h string) Locator {
				return Locator{Kind: KindGemini, Home: h, SessionID: "fd2455f9-c42f-4633-932e-c73380b8c145"}
			}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			home := t.TempDir()
			copyTo(t, c.file, filepath.Join(home, c.dst))
			es, err := Read(c.loc(home))
			if err != nil {
				t.Fatal(err)
			}
			if got := prompts(es); strings.Join(got, "|") != "evidence probe one|evidence probe two" {
				t.Fatalf("prompts = %q", got)
			}
			r, ok := LastReply(es, time.Time{})
			if !ok || r.Text != "Fake reply done." {
				t.Fatalf("last reply = %+v, %v", r, ok)
			}
			e, _, ok := Received(es, "evidence  probe\ttwo", time.Time{}, nil)
			if !ok || e.At.IsZero() {
				t.Fatalf("received = %+v, %v", e, ok)
			}
			// Dated after the second prompt: neither counts.
			if _, _, ok := Received(es, "evidence probe one", e.At.Add(time.Minute), nil); ok {
				t.Fatal("a prompt recorded before typing began counted as evidence")
			}
			if _, _, ok := Received(es, "never typed", time.Time{}, nil); ok {
				t.Fatal("a text never sent counted as received")
			}
		})
	}
}

func TestCodexRolloutOfAnotherFolderIsNotRead(t *testing.T) {
	home := t.TempDir()
	copyTo(t, "codex-0.171.0.jsonl", filepath.Join(home, ".codex/sessions/2026/12/01/rollout-x.jsonl"))
	es, err := Read(Locator{Kind: KindCodex, Home: home, Dir: "/elsewhere"})
	if err != nil || len(es) != 0 {
		t.Fatalf("entries %v, err %v", es, err)
	}
}

func TestHookLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), HookLogFile)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	payload := `{"session_id":"s1","transcript_path":"/nowhere.jsonl","hook_event_name":"UserPromptSubmit","prompt":"hello there"}`
	r, ok := HookFromPayload("UserPromptSubmit", []byte(payload), at)
	if !ok || r.Prompt != "hello there" || r.Session != "s1" {
		t.Fatalf("%+v %v", r, ok)
	}
	if err := AppendHook(path, r); err != nil {
		t.Fatal(err)
	}
	stop, ok := HookFromPayload("Stop", []byte(`{"hook_event_name":"Stop","last_assistant_message":"done it"}`), at.Add(time.Second))
	if !ok {
		t.Fatal("Stop not read")
	}
	if err := AppendHook(path, stop); err != nil {
		t.Fatal(err)
	}
	if _, ok := HookFromPayload("PreToolUse", []byte(`{}`), at); ok {
		t.Fatal("PreToolUse carries no evidence")
	}
	// A line cut short by a crash is skipped.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"event":"UserPromptSubmit","prom`)
	f.Close()
	es, err := Read(Locator{Kind: KindClaude, HookLog: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Source != SourceHook || es[1].Text != "done it" {
		t.Fatalf("%+v", es)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

func TestHookLogRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	os.WriteFile(target, nil, 0o600)
	path := filepath.Join(dir, HookLogFile)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if err := AppendHook(path, HookRecord{Event: HookPromptSubmit, Prompt: "x"}); err == nil {
		t.Fatal("appended through a symlink")
	}
}

func TestReceivedSkipsTakenEntries(t *testing.T) {
	es := []Entry{{Role: RoleUser, Text: "yes"}, {Role: RoleUser, Text: "yes"}}
	_, i, _ := Received(es, "yes", time.Time{}, nil)
	_, j, ok := Received(es, "yes", time.Time{}, map[int]bool{i: true})
	if !ok || j == i {
		t.Fatalf("second yes: %d %d %v", i, j, ok)
	}
	if _, _, ok := Received(es, "yes", time.Time{}, map[int]bool{0: true, 1: true}); ok {
		t.Fatal("a taken entry counted twice")
	}
}

func TestUnknownKind(t *testing.T) {
	if _, err := Read(Locator{Kind: "vim"}); err == nil || !strings.Contains(err.Error(), `"vim"`) {
		t.Fatalf("err %v", err)
	}
}
