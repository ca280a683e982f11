package automation

// The prompt-row reading (seed 002 §4, docs/design.md §3): a row that reads empty
// clears a keystroke draft; a row with text office did not type is the
// person's draft, whoever put it there (see Tracker.ObservePrompt); no reading
// is no evidence.

import (
	"strings"
	"unicode"
)

// PromptReading is what the screen says about the prompt row.
type PromptReading int

const (
	// PromptUnknown: the row could not be read; it is no evidence at all.
	PromptUnknown PromptReading = iota
	// PromptEmpty: the row holds only prompt chrome (box drawing, markers, spaces).
	PromptEmpty
	// PromptHasText: the row holds text besides the chrome.
	PromptHasText
)

// String returns "unknown", "empty" or "has text".
func (r PromptReading) String() string {
	switch r {
	case PromptEmpty:
		return "empty"
	case PromptHasText:
		return "has text"
	}
	return "unknown"
}

// PromptRowHasText reports whether row holds text once the prompt chrome is
// removed. Chrome is the seed's PROMPT_CHROME set: box-drawing characters
// U+2500–U+257F, all Unicode white space (U+00A0 and U+3000 included, and
// U+FEFF as in JavaScript's \s), and the prompt markers > ❯ › $ # |.
func PromptRowHasText(row string) bool {
	for _, r := range row {
		if !isPromptChrome(r) {
			return true
		}
	}
	return false
}

// ReadPromptRow turns a prompt row into a reading: PromptUnknown when ok is
// false (the caller could not locate the row), else PromptHasText or
// PromptEmpty according to PromptRowHasText.
func ReadPromptRow(row string, ok bool) PromptReading {
	if !ok {
		return PromptUnknown
	}
	if PromptRowHasText(row) {
		return PromptHasText
	}
	return PromptEmpty
}

// isPromptChrome reports whether r is drawn by a TUI around its input line.
func isPromptChrome(r rune) bool {
	switch {
	case r >= 0x2500 && r <= 0x257F:
		return true
	case unicode.IsSpace(r), r == '\uFEFF':
		return true
	}
	return strings.ContainsRune(promptMarkers, r)
}

// promptMarkers are the runes CLIs and shells draw their prompt with.
const promptMarkers = ">❯›$#|"
