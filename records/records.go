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
