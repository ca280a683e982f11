// Package records reads what an agent CLI itself wrote down about its
// conversation: the prompts it received and the replies it gave. office uses
// it as the evidence that a delivery reached the CLI (a prompt with our text,
// recorded after we began typing it), to settle a delivery a crash
// interrupted, and for the child's real last reply in a parent's notice.
//
// One reader per record kind (a profile's `records` key):
//
//   - "claude": the hook log office keeps for the agent (HookLog: the
//     UserPromptSubmit and Stop hook payloads Claude Code hands to
//     `office hook`), then the session transcript, a JSONL file under
//     ~/.claude/projects/.
//   - "codex": the session rollout, a JSONL file under
//     $CODEX_HOME/sessions/YYYY/MM/DD/ (default ~/.codex).
//   - "gemini": the chat record, a JSONL file under
//     ~/.gemini/tmp/PROJECT/chats/.
//
// docs/evidence.md says what each pinned CLI version writes and where. Every
// read is bounded (MaxRead bytes from the end of a file, MaxText bytes of one
// text) and a line that does not parse is skipped: a CLI writing while we
// read, or a crash mid-line, never makes a read fail.
package records

import (
	"strings"
	"time"
	"unicode"
)

// The record kinds (a profile's `records` key).
const (
	KindClaude = "claude"
	KindCodex  = "codex"
	KindGemini = "gemini"
)

// Kinds lists the record kinds this package reads.
func Kinds() []string { return []string{KindClaude, KindCodex, KindGemini} }

// Limits on what is read.
const (
	// MaxRead bounds how much of one record file is read, from its end: the
	// recent turns are what evidence and replies need.
	MaxRead = 4 << 20
	// MaxText bounds one prompt or reply kept from a record.
	MaxText = 256 << 10
	// MaxFiles bounds how many candidate files a locator looks at.
	MaxFiles = 64
)

// Roles of an Entry.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	// RoleHanded is a message a turn-end hook handed over (issue 27,
	// docs/channels.md): Claude Code's and Codex's Stop, Gemini CLI's
	// AfterAgent answered with a reason the CLI went on with. Nobody typed
	// it, so Received and First, which look for typed prompts, never
	// return one; Handed looks only at these.
	RoleHanded = "handed"
	// RoleTool is a tool call or its result: work a turn did that has no
	// text of its own (Text names the kind of step). Only OnlyReply reads
	// it; every other reader keeps to prompts and replies.
	RoleTool = "tool"
)

// Entry is one prompt the CLI received or one reply it gave.
type Entry struct {
	// Role is RoleUser or RoleAssistant.
	Role string
	// Text is the prompt or reply text (at most MaxText bytes).
	Text string
	// At is when the CLI recorded it (zero when the record has no time).
	At time.Time
	// Source names where it was read ("hook", "transcript", "session record").
	Source string
}

// Source names used in Entry.Source: the evidence words office shows.
const (
	SourceHook       = "hook"
	SourceTranscript = "transcript"
	SourceSession    = "session record"
)

// Skew is how much earlier than the start of typing a record may be dated
// and still count: records are dated by the CLI's own clock, some only to the
// second (same machine, so only granularity matters).
const Skew = time.Second

// Received returns the first prompt in es that carries text and was recorded
// at or after since (less Skew). Text is compared with white space collapsed
// (a CLI may trim, turn tabs into spaces, or join pasted lines); a prompt
// that contains the text counts too (the CLI may put the person's own draft
// around it). skip says which entries were already taken as another
// message's evidence (by index); nil skips none.
func Received(es []Entry, text string, since time.Time, skip map[int]bool) (Entry, int, bool) {
	want := Normalize(text)
	if want == "" {
		return Entry{}, -1, false
	}
	from := since.Add(-Skew)
	for i, e := range es {
		if e.Role != RoleUser || skip[i] {
			continue
		}
		if !since.IsZero() && !e.At.IsZero() && e.At.Before(from) {
			continue
		}
		if strings.Contains(Normalize(e.Text), want) {
			return e, i, true
		}
	}
	return Entry{}, -1, false
}

// Handed returns the first message in es that a turn-end hook handed over
// (RoleHanded) recorded at or after since (less Skew) whose text is text:
// equal with white space collapsed, never merely containing it (the CLI
// hands the reason on whole, nothing of the person's around it). kind is
// the record kind (KindClaude, …): Claude Code records the reason with its
// own escaping (claudeHookForm), which is applied to text first. A typed
// prompt is never one: the readers tell the two apart by how the CLI
// records each (docs/evidence.md). skip is as for Received.
func Handed(kind string, es []Entry, text string, since time.Time, skip map[int]bool) (Entry, int, bool) {
	if kind == KindClaude {
		text = claudeHookForm(text)
	}
	want := Normalize(text)
	if want == "" {
		return Entry{}, -1, false
	}
	from := since.Add(-Skew)
	for i, e := range es {
		if e.Role != RoleHanded || skip[i] {
			continue
		}
		if !since.IsZero() && !e.At.IsZero() && e.At.Before(from) {
			continue
		}
		if Normalize(e.Text) == want {
			return e, i, true
		}
	}
	return Entry{}, -1, false
}

// First returns the first prompt in es recorded at or after since (less
// Skew) and before until, and whether its text is text, compared with white
// space collapsed (Normalize): equal, not contained. It is the record a late
// record of one typing can only be: a prompt after it, or one that merely
// contains the text (the person's own sentence around it), is not that
// typing's. A zero until bounds nothing; with one, an undated prompt cannot
// be placed before it and is not returned. ok is false when no prompt is
// recorded in that span.
func First(es []Entry, text string, since, until time.Time) (e Entry, ok, same bool) {
	from := since.Add(-Skew)
	for _, e := range es {
		if e.Role != RoleUser || sessionContext(e.Text) {
			continue
		}
		if !since.IsZero() && !e.At.IsZero() && e.At.Before(from) {
			continue
		}
		if !until.IsZero() && (e.At.IsZero() || !e.At.Before(until)) {
			continue
		}
		return e, true, Normalize(text) != "" && Normalize(unwrapPaste(e.Text)) == Normalize(text)
	}
	return Entry{}, false, false
}

// sessionContexts open the context a CLI records as a user entry of its own
// just before a session's first prompt (Codex 0.171.0, Gemini 0.61.0;
// testdata): nobody typed it, so it is no prompt First may stop at.
var sessionContexts = []string{"<environment_context>", "<session_context>"}

// sessionContext reports whether a user entry's text is such a context.
func sessionContext(text string) bool {
	t := strings.TrimSpace(text)
	for _, c := range sessionContexts {
		if strings.HasPrefix(t, c) {
			return true
		}
	}
	return false
}

// The wrapper Claude Code puts around a long paste in its transcript, the
// text inside verbatim (docs/realcli.md): `<pasted_content id="d422">` …
// `</pasted_content id="d422">`.
const (
	pasteOpen  = "<pasted_content id=\""
	pasteClose = "</pasted_content id=\""
	pasteEnd   = "\">"
)

// unwrapPaste returns what s's paste wrapper holds, s itself when it is not
// one wrapped paste.
func unwrapPaste(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, pasteOpen) || !strings.HasSuffix(t, pasteEnd) {
		return s
	}
	from := strings.Index(t, pasteEnd) + len(pasteEnd)
	to := strings.LastIndex(t, pasteClose)
	if to < from {
		return s
	}
	return t[from:to]
}

// LastReply returns the last assistant entry recorded at or after since (a
// zero since takes any).
func LastReply(es []Entry, since time.Time) (Entry, bool) {
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		if e.Role != RoleAssistant || strings.TrimSpace(e.Text) == "" {
			continue
		}
		if !since.IsZero() && !e.At.IsZero() && e.At.Before(since.Add(-Skew)) {
			return Entry{}, false
		}
		return e, true
	}
	return Entry{}, false
}

// OnlyReply reports whether reply is all that es records of the turn of
// prompt, typed at since: every entry dated at or after since (less Skew),
// or undated, is the prompt itself (its hook and transcript copies) or a
// reply whose text is reply, and there is at least one such reply. Any
// other entry (a reply with other text, a tool call or result, another
// prompt) means the turn did work; so does an undated one, which cannot be
// placed before the prompt. It is what says a CLI refused a prompt without
// running any of it.
func OnlyReply(es []Entry, prompt string, since time.Time, reply string) bool {
	from := since.Add(-Skew)
	want, p := Normalize(reply), Normalize(prompt)
	if want == "" {
		return false
	}
	seen := false
	for _, e := range es {
		if !e.At.IsZero() && e.At.Before(from) {
			continue
		}
		switch {
		case e.Role == RoleUser && p != "" && strings.Contains(Normalize(unwrapPaste(e.Text)), p):
		case e.Role == RoleAssistant && Normalize(e.Text) == want:
			seen = true
		default:
			return false
		}
	}
	return seen
}

// Normalize collapses every run of white space in s into one space and
// trims it.
func Normalize(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// bound cuts s to MaxText bytes on a rune boundary.
func bound(s string) string {
	if len(s) <= MaxText {
		return s
	}
	cut := MaxText
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// parseTime reads an RFC 3339 time; zero when s is not one.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
