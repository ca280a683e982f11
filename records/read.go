package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Locator says where one agent's records are.
type Locator struct {
	// Kind is the record kind (KindClaude, KindCodex, KindGemini).
	Kind string
	// Home is the HOME the agent runs with.
	Home string
	// CodexHome is CODEX_HOME when the agent has one ("" means Home/.codex).
	CodexHome string
	// SessionID is the conversation id office chose (Claude, Gemini).
	SessionID string
	// Dir is the agent's working directory (Codex files its sessions by it).
	Dir string
	// HookLog is the agent's hook log (Claude); "" for none.
	HookLog string
	// Tail bounds how much of the end of each record file is read; 0 means
	// MaxRead. A look for a prompt just typed needs only the recent end.
	Tail int64
}

// Read returns the agent's recorded prompts and replies, oldest first: for
// Claude the hook log's and then the transcript's, for Codex the newest
// session rollout of Dir, for Gemini the chat record of SessionID. A record
// not written yet is no error (no entries). An unknown kind is an error.
func Read(loc Locator) ([]Entry, error) {
	switch loc.Kind {
	case KindClaude:
		var out []Entry
		var transcript string
		if loc.HookLog != "" {
			hs, err := ReadHooks(loc.HookLog)
			if err != nil {
				return nil, err
			}
			for _, h := range hs {
				if e, ok := h.entry(); ok {
					out = append(out, e)
				}
				if h.Transcript != "" && (loc.SessionID == "" || h.Session == loc.SessionID) {
					transcript = h.Transcript
				}
			}
		}
		if transcript == "" {
			transcript = claudeTranscript(loc)
		}
		if transcript != "" {
			es, err := readLines(transcript, loc.Tail, claudeLine)
			if err != nil {
				return nil, err
			}
			out = append(out, es...)
		}
		return out, nil
	case KindCodex:
		f := codexRollout(loc)
		if f == "" {
			return nil, nil
		}
		return readLines(f, loc.Tail, codexLine)
	case KindGemini:
		f := geminiChat(loc)
		if f == "" {
			return nil, nil
		}
		return readGemini(f, loc.Tail)
	}
	return nil, fmt.Errorf("records: unknown record kind %q (known: %s)", loc.Kind, strings.Join(Kinds(), ", "))
}

// tail reads at most max bytes (0: MaxRead) from the end of path, dropping
// a first line cut in the middle. A missing file is (nil, nil).
func tail(path string, max int64) ([]byte, error) {
	if max <= 0 || max > MaxRead {
		max = MaxRead
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	off := int64(0)
	if fi.Size() > max {
		off = fi.Size() - max
	}
	b, err := io.ReadAll(io.NewSectionReader(f, off, max))
	if err != nil {
		return nil, fmt.Errorf("records: read %s: %w", path, err)
	}
	if off > 0 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		} else {
			b = nil
		}
	}
	return b, nil
}

// readLines parses each JSON line of path's tail (max bytes) with parse (a line it
// cannot use gives nothing).
func readLines(path string, max int64, parse func([]byte) []Entry) ([]Entry, error) {
	b, err := tail(path, max)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		out = append(out, parse(line)...)
	}
	return out, nil
}

// newest returns the paths matching glob, newest first by modification time,
// at most MaxFiles of them.
func newest(glob string) []string {
	m, _ := filepath.Glob(glob)
	type f struct {
		p string
		t int64
	}
	fs := make([]f, 0, len(m))
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			fs = append(fs, f{p, fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].t > fs[j].t })
	if len(fs) > MaxFiles {
		fs = fs[:MaxFiles]
	}
	out := make([]string, len(fs))
	for i, x := range fs {
		out[i] = x.p
	}
	return out
}

// texts joins the text of content blocks (a string, or an array of blocks
// with "text" and a type among types; no types: any).
func texts(raw json.RawMessage, types ...string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Text == "" {
			continue
		}
		if len(types) > 0 && !contains(types, b.Type) {
			continue
		}
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ---- Claude Code ----

// claudeTranscript finds the transcript of loc.SessionID.
func claudeTranscript(loc Locator) string {
	if loc.SessionID == "" || loc.Home == "" {
		return ""
	}
	if m := newest(filepath.Join(loc.Home, ".claude", "projects", "*", loc.SessionID+".jsonl")); len(m) > 0 {
		return m[0]
	}
	return ""
}

// claudeLine reads one transcript line: "user" entries whose content is the
// prompt (a string or text blocks; tool results are not prompts) and the
// text blocks of "assistant" entries.
func claudeLine(line []byte) []Entry {
	var l struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		IsMeta    bool   `json:"isMeta"`
		HookText  bool   `json:"hookText"`
		Message   struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil {
		return nil
	}
	if l.IsMeta {
		// A Stop hook's block is the one meta line kept: a message
		// handed over, never a prompt.
		if l.Type != "user" {
			return nil
		}
		if text, ok := claudeHandedLine(l.IsMeta, l.HookText, texts(l.Message.Content, "text")); ok {
			return message(RoleHanded, text, l.Timestamp, SourceTranscript)
		}
		return nil
	}
	var out []Entry
	switch l.Type {
	case "user":
		out = message(RoleUser, texts(l.Message.Content, "text"), l.Timestamp, SourceTranscript)
	case "assistant":
		out = message(RoleAssistant, texts(l.Message.Content, "text"), l.Timestamp, SourceTranscript)
	default:
		return nil
	}
	return append(out, tools(l.Message.Content, l.Timestamp, SourceTranscript, "tool_use", "tool_result")...)
}

// tools is one RoleTool entry per content block of one of types (a tool
// call or its result), Text the block's type.
func tools(raw json.RawMessage, timestamp, source string, types ...string) []Entry {
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []Entry
	for _, b := range blocks {
		if contains(types, b.Type) {
			out = append(out, Entry{Role: RoleTool, Text: b.Type, At: parseTime(timestamp), Source: source})
		}
	}
	return out
}

// message is the one entry of a record line with a prompt or a reply, or
// none when its text is blank.
func message(role, text, timestamp, source string) []Entry {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return []Entry{{Role: role, Text: bound(text), At: parseTime(timestamp), Source: source}}
}

// ---- Codex ----

// codexRollout finds the newest session rollout whose session_meta names
// loc.Dir as its working directory.
func codexRollout(loc Locator) string {
	home := loc.CodexHome
	if home == "" {
		if loc.Home == "" {
			return ""
		}
		home = filepath.Join(loc.Home, ".codex")
	}
	for _, p := range newest(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*.jsonl")) {
		if loc.Dir == "" || codexCwd(p) == filepath.Clean(loc.Dir) {
			return p
		}
	}
	return ""
}

// codexCwd reads the cwd of a rollout's first line (session_meta).
func codexCwd(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 256<<10))
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(b, &l) != nil || l.Type != "session_meta" {
		return ""
	}
	return filepath.Clean(l.Payload.Cwd)
}

// codexTools are the response_item payload types of a tool call or its
// output.
var codexTools = []string{"function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "local_shell_call"}

// codexLine reads one rollout line: a "response_item" message of role user
// (input_text) or assistant (output_text), and the "item_completed" event
// of a HookPrompt (a message a Stop hook handed over, each fragment's text
// verbatim). The user message Codex sends for a HookPrompt (its
// `<hook_prompt>`) is neither: the event stands for it.
func codexLine(line []byte) []Entry {
	var l struct {
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Payload   struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Item    struct {
				Type      string `json:"type"`
				Fragments []struct {
					Text string `json:"text"`
				} `json:"fragments"`
			} `json:"item"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil {
		return nil
	}
	if l.Type == "event_msg" && l.Payload.Type == "item_completed" && l.Payload.Item.Type == "HookPrompt" {
		var out []Entry
		for _, f := range l.Payload.Item.Fragments {
			out = append(out, message(RoleHanded, f.Text, l.Timestamp, SourceSession)...)
		}
		return out
	}
	if l.Type != "response_item" {
		return nil
	}
	if l.Payload.Type != "message" {
		if contains(codexTools, l.Payload.Type) {
			return []Entry{{Role: RoleTool, Text: l.Payload.Type, At: parseTime(l.Timestamp), Source: SourceSession}}
		}
		return nil
	}
	switch l.Payload.Role {
	case "user":
		text := texts(l.Payload.Content, "input_text")
		if codexHookPrompt(text) {
			return nil
		}
		return message(RoleUser, text, l.Timestamp, SourceSession)
	case "assistant":
		return message(RoleAssistant, texts(l.Payload.Content, "output_text"), l.Timestamp, SourceSession)
	}
	return nil
}

// ---- Gemini CLI ----

// geminiChat finds the chat record of loc.SessionID (the file name carries
// the id's first 8 characters).
func geminiChat(loc Locator) string {
	if loc.SessionID == "" || loc.Home == "" {
		return ""
	}
	short := loc.SessionID
	if len(short) > 8 {
		short = short[:8]
	}
	if m := newest(filepath.Join(loc.Home, ".gemini", "tmp", "*", "chats", "session-*-"+short+".json*")); len(m) > 0 {
		return m[0]
	}
	return ""
}

// geminiMessage is one message of a Gemini chat record.
type geminiMessage struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls json.RawMessage `json:"toolCalls"`
}

// entries is the message as entries: its prompt or reply, and a RoleTool
// entry when a reply made tool calls. blocked carries, from one message to
// the next, the reason of an AfterAgent block (its warning) until the user
// message after it: that message, when it is the reason, is the
// continuation Gemini sent, a message handed over (RoleHanded).
func (m geminiMessage) entries(blocked *string) []Entry {
	var e Entry
	e.Text = texts(m.Content)
	switch m.Type {
	case "user":
		e.Role = RoleUser
		if *blocked != "" && e.Text == *blocked {
			e.Role = RoleHanded
		}
		*blocked = ""
	case "gemini":
		e.Role = RoleAssistant
	case "warning":
		if r, ok := strings.CutPrefix(e.Text, geminiBlocked); ok {
			*blocked = r
		}
		return nil
	default:
		return nil
	}
	var out []Entry
	if strings.TrimSpace(e.Text) != "" {
		e.Text, e.At, e.Source = bound(e.Text), parseTime(m.Timestamp), SourceSession
		out = append(out, e)
	}
	var calls []json.RawMessage
	if m.Type == "gemini" && json.Unmarshal(m.ToolCalls, &calls) == nil && len(calls) > 0 {
		out = append(out, Entry{Role: RoleTool, Text: "toolCalls", At: parseTime(m.Timestamp), Source: SourceSession})
	}
	return out
}

// readGemini reads a chat record: a header line, message lines, and "$set"
// lines that replace the whole message list (written when a session is
// resumed) or other fields.
func readGemini(path string, max int64) ([]Entry, error) {
	b, err := tail(path, max)
	if err != nil {
		return nil, err
	}
	var out []Entry
	// blocked is the reason of the last AfterAgent block recorded and not
	// yet followed by a user message.
	blocked := ""
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l struct {
			geminiMessage
			Set *struct {
				Messages *[]geminiMessage `json:"messages"`
			} `json:"$set"`
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		if l.Set != nil {
			if l.Set.Messages != nil {
				out, blocked = out[:0], ""
				for _, m := range *l.Set.Messages {
					out = append(out, m.entries(&blocked)...)
				}
			}
			continue
		}
		out = append(out, l.entries(&blocked)...)
	}
	return out, nil
}
