package records

import (
	"strings"
	"unicode"
)

// How each pinned CLI records a message its turn-end hook handed over
// (docs/channels.md, docs/evidence.md; records/testdata/channel-*.jsonl).

// claudeHookLabel opens the transcript line Claude Code 2.1.332 writes for
// a Stop hook's block: a "user" line with isMeta and hookText whose content
// is this label, then the reason. Other hooks' feedback (TaskCompleted,
// TeammateIdle) has another label and is no hand-over.
const claudeHookLabel = "Stop hook feedback:\n"

// claudeHandedLine reads the text of such a line: ok only for a user line
// marked isMeta and hookText whose content opens with the label.
func claudeHandedLine(isMeta, hookText bool, content string) (string, bool) {
	if !isMeta || !hookText || !strings.HasPrefix(content, claudeHookLabel) {
		return "", false
	}
	return content[len(claudeHookLabel):], true
}

// claudeHookForm is s as Claude Code 2.1.332 writes a hook's reason into
// the transcript and the model's system reminder (read from its code, the
// transcript's form of a reason without these is checked by
// TestClaudeChannel): every "<" that opens a system-reminder tag (white
// space and a "/" allowed between, any case) becomes "&lt;", so a reason
// cannot close the reminder; then the first "<" that ends the text (white
// space and a "/" allowed after it) does too.
func claudeHookForm(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && opensReminder(s[i+1:]) {
			b.WriteString("&lt;")
			continue
		}
		b.WriteByte(s[i])
	}
	s = b.String()
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && endsText(s[i+1:]) {
			return s[:i] + "&lt;" + s[i+1:]
		}
	}
	return s
}

// opensReminder reports whether rest (what follows a "<") is white space,
// an optional "/" and white space, then "system-reminder" (any case) and
// no further letter, digit or "_".
func opensReminder(rest string) bool {
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	if r, ok := strings.CutPrefix(rest, "/"); ok {
		rest = strings.TrimLeftFunc(r, unicode.IsSpace)
	}
	const tag = "system-reminder"
	if len(rest) < len(tag) || !strings.EqualFold(rest[:len(tag)], tag) {
		return false
	}
	rest = rest[len(tag):]
	return rest == "" || !isWordByte(rest[0])
}

// endsText reports whether rest is white space, an optional "/" and white
// space, and nothing more.
func endsText(rest string) bool {
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	if r, ok := strings.CutPrefix(rest, "/"); ok {
		rest = strings.TrimLeftFunc(r, unicode.IsSpace)
	}
	return rest == ""
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// codexHookPromptOpen opens the user message Codex 0.171.0 sends the model
// for a Stop hook's block, the reason XML-escaped inside:
// `<hook_prompt hook_run_id="stop:0:…">R</hook_prompt>`. The rollout keeps
// it as a user response_item; the reason verbatim is in the HookPrompt
// event beside it, which is what Handed reads. The message itself is no
// typed prompt.
const (
	codexHookPromptOpen  = "<hook_prompt hook_run_id=\""
	codexHookPromptClose = "</hook_prompt>"
)

// codexHookPrompt reports whether a rollout user message is such a hook
// prompt.
func codexHookPrompt(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, codexHookPromptOpen) && strings.HasSuffix(t, codexHookPromptClose)
}

// geminiBlocked opens the warning Gemini CLI 0.61.0 records when an
// AfterAgent hook denies the turn's end; the reason follows, and the next
// user message, the reason itself, is the continuation it sends (a hook
// that gives a systemMessage shows that instead, and its continuation
// reads as a prompt).
const geminiBlocked = "Agent execution blocked: "
