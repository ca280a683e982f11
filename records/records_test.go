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
		{KindClaude, "claude-2.1.332.jsonl", ".claude/projects/-tmp-T-proj/" + session + ".jsonl",
			func(h string) Locator { return Locator{Kind: KindClaude, Home: h, SessionID: session} }},
		{KindCodex, "codex-0.171.0.jsonl", ".codex/sessions/2026/12/01/rollout-2026-12-01T08-47-32-01a230c9-aaec-7ea0-9c9e-e76d83eb76af.jsonl",
			func(h string) Locator { return Locator{Kind: KindCodex, Home: h, Dir: "/tmp/T/proj"} }},
		{KindGemini, "gemini-0.61.0.jsonl", ".gemini/tmp/proj/chats/session-2026-12-01T08-49-fd2455f9.jsonl",
			func(h string) Locator {
				return Locator{Kind: KindGemini, Home: h, SessionID: "fd2455f9-c42f-4633-932e-c73380b8c145"}
			}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
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
			// The first prompt since just before the session's first is
			// that prompt: the context a CLI records before it is no
			// prompt (Codex, Gemini).
			one, _, _ := Received(es, "evidence probe one", time.Time{}, nil)
			if f, ok, same := First(es, "evidence probe one", one.At.Add(-Skew/2), time.Time{}); !ok || !same {
				t.Fatalf("First before the first prompt = %q %v %v, want it", f.Text, ok, same)
			}
			if f, ok, same := First(es, "evidence probe two", one.At.Add(-Skew/2), time.Time{}); !ok || same {
				t.Fatalf("First of the second prompt since the first = %q %v %v, want the first, not it", f.Text, ok, same)
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
	if _, ok := HookFromPayload("Notification", []byte(`{}`), at); ok {
		t.Fatal("Notification carries no evidence")
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

// Claude Code 2.1.332 records (and sends the model) a long paste wrapped:
// "\n\n<pasted_content id=\"d422\">\nTEXT\n</pasted_content id=\"d422\">\n"
// (checked on the real binary: the text inside is verbatim, nothing
// escaped). The wrapped text is still the text received.
func TestReceivedSeesThroughThePasteWrapper(t *testing.T) {
	text := "esc <b>&amp; \"q\" line 0\nesc <b>&amp; \"q\" line 1"
	at := time.Date(2026, 12, 1, 21, 39, 0, 0, time.UTC)
	es := []Entry{{Role: RoleUser, At: at, Text: "\n\n<pasted_content id=\"d422\">\n" + text + "\n</pasted_content id=\"d422\">\n"}}
	if _, _, ok := Received(es, text, at.Add(-time.Second), nil); !ok {
		t.Fatal("a wrapped paste is not seen as received")
	}
	if _, _, ok := Received(es, "pasted_content nothing else", at.Add(-time.Second), nil); ok {
		t.Fatal("the wrapper itself matched another text")
	}
}

// First is the one record a late record of a typing can be: the first prompt
// since it, equal to the text (white space collapsed), before the bound.
func TestFirstIsTheFirstPromptSinceAndEqual(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	old := Entry{Role: RoleUser, Text: "run the tests", At: at(-10)}
	reply := Entry{Role: RoleAssistant, Text: "run the tests", At: at(1)}
	for _, c := range []struct {
		name     string
		es       []Entry
		until    time.Time
		ok, same bool
		text     string
	}{
		{"only older prompts", []Entry{old}, time.Time{}, false, false, ""},
		{"the text, white space aside", []Entry{old, reply, {Role: RoleUser, Text: " run  the\ttests\n", At: at(2)}}, time.Time{}, true, true, " run  the\ttests\n"},
		{"a prompt that contains it is not it", []Entry{{Role: RoleUser, Text: "don't run the tests yet", At: at(2)}}, time.Time{}, true, false, "don't run the tests yet"},
		{"the text after another prompt is not it", []Entry{{Role: RoleUser, Text: "hi", At: at(2)}, {Role: RoleUser, Text: "run the tests", At: at(3)}}, time.Time{}, true, false, "hi"},
		{"a wrapped paste of the text", []Entry{{Role: RoleUser, Text: "\n<pasted_content id=\"d4\">\nrun the tests\n</pasted_content id=\"d4\">\n", At: at(2)}}, time.Time{}, true, true,
			"\n<pasted_content id=\"d4\">\nrun the tests\n</pasted_content id=\"d4\">\n"},
		{"a wrapped paste of more", []Entry{{Role: RoleUser, Text: "<pasted_content id=\"d4\">run the tests now</pasted_content id=\"d4\">", At: at(2)}}, time.Time{}, true, false,
			"<pasted_content id=\"d4\">run the tests now</pasted_content id=\"d4\">"},
		{"within Skew before since", []Entry{{Role: RoleUser, Text: "run the tests", At: at(0).Add(-Skew / 2)}}, time.Time{}, true, true, "run the tests"},
		{"at or after until", []Entry{{Role: RoleUser, Text: "run the tests", At: at(5)}}, at(5), false, false, ""},
		{"before until", []Entry{{Role: RoleUser, Text: "run the tests", At: at(4)}}, at(5), true, true, "run the tests"},
		{"undated, with until", []Entry{{Role: RoleUser, Text: "run the tests"}}, at(5), false, false, ""},
	} {
		e, ok, same := First(c.es, "run the tests", t0, c.until)
		if ok != c.ok || same != c.same || e.Text != c.text {
			t.Errorf("%s: First = %q %v %v, want %q %v %v", c.name, e.Text, ok, same, c.text, c.ok, c.same)
		}
	}
}

// OnlyReply is true only when the turn recorded the reply and nothing else:
// a tool call (in a transcript, a rollout, a chat record or the hook log) or
// a reply of other text says the turn did work.
func TestOnlyReply(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ts := func(d int) string { return at.Add(time.Duration(d) * time.Second).Format(time.RFC3339Nano) }
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	banner := "You've hit your limit"
	claude := func(lines ...string) []Entry {
		es, err := readLines(write("c.jsonl", lines...), 0, claudeLine)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	user := `{"type":"user","timestamp":"` + ts(1) + `","message":{"role":"user","content":"the probe"}}`
	old := `{"type":"assistant","timestamp":"` + ts(-60) + `","message":{"role":"assistant","content":[{"type":"text","text":"earlier work"}]}}`
	bannerLine := `{"type":"assistant","timestamp":"` + ts(9) + `","message":{"role":"assistant","content":[{"type":"text","text":"` + banner + `"}]}}`
	toolUse := `{"type":"assistant","timestamp":"` + ts(3) + `","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}`
	toolResult := `{"type":"user","timestamp":"` + ts(4) + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`
	text := `{"type":"assistant","timestamp":"` + ts(2) + `","message":{"role":"assistant","content":[{"type":"text","text":"I will run the tests"}]}}`
	for _, tc := range []struct {
		name string
		es   []Entry
		want bool
	}{
		{"banner alone", claude(old, user, bannerLine), true},
		{"a tool call before the banner", claude(old, user, toolUse, bannerLine), false},
		{"a tool result before the banner", claude(user, toolResult, bannerLine), false},
		{"text before the banner", claude(user, text, bannerLine), false},
		{"no reply", claude(old, user), false},
		{"hook log: banner alone", []Entry{{Role: RoleUser, Text: "the probe", At: at}, {Role: RoleAssistant, Text: banner, At: at.Add(time.Second)}}, true},
		{"hook log: a tool call", []Entry{{Role: RoleUser, Text: "the probe", At: at}, {Role: RoleTool, At: at}, {Role: RoleAssistant, Text: banner, At: at.Add(time.Second)}}, false},
	} {
		if got := OnlyReply(tc.es, "the probe", at, banner); got != tc.want {
			t.Errorf("%s: OnlyReply %v, want %v (entries %+v)", tc.name, got, tc.want, tc.es)
		}
	}
	// Codex's function calls and Gemini's tool calls are tool entries.
	codex, err := readLines(write("x.jsonl",
		`{"timestamp":"`+ts(2)+`","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}"}}`,
		`{"timestamp":"`+ts(3)+`","type":"response_item","payload":{"type":"function_call_output","output":"ok"}}`), 0, codexLine)
	if err != nil || len(codex) != 2 || codex[0].Role != RoleTool || codex[1].Role != RoleTool {
		t.Errorf("codex tool lines read as %+v (%v)", codex, err)
	}
	gem, err := readGemini(write("g.jsonl",
		`{"sessionId":"s"}`,
		`{"timestamp":"`+ts(2)+`","type":"gemini","content":"","toolCalls":[{"name":"run_shell_command"}]}`), 0)
	if err != nil || len(gem) != 1 || gem[0].Role != RoleTool {
		t.Errorf("gemini tool calls read as %+v (%v)", gem, err)
	}
	// The hook log keeps PreToolUse.
	if r, ok := HookFromPayload(HookPreToolUse, []byte(`{"tool_name":"Bash"}`), at); !ok {
		t.Error("PreToolUse not kept")
	} else if e, ok := r.entry(); !ok || e.Role != RoleTool {
		t.Errorf("PreToolUse as %+v", e)
	}
}
