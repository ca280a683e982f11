package automation

// The screen gate (docs/design.md §2, "types only into a screen it positively
// knows"): for a profile that defines its prompt, automation types only when
// the screen shows that prompt, its row found and empty, and no dialog. A
// dialog is recognised by its text (the profile's waiting patterns, read by
// the judge) and here by its shape: the footer hints and option lists every
// CLI's selection dialogs draw, so a dialog no profile has seen yet holds
// delivery too. A screen that shows neither is unknown and holds.

import (
	"regexp"
	"strings"
)

// ScreenKind is what the screen gate found.
type ScreenKind int

// The screen gate's findings.
const (
	// ScreenPrompt: the profile's prompt row is found and empty, and no
	// dialog shape is on the screen: typing may go ahead.
	ScreenPrompt ScreenKind = iota
	// ScreenDialog: a dialog's shape is on the screen (ScreenReading.Shape).
	ScreenDialog
	// ScreenUnknown: neither the profile's prompt nor a dialog: the screen
	// is one office does not know (a CLI still drawing, a new screen).
	ScreenUnknown
	// ScreenPromptText: the prompt row is found but holds text (someone's
	// draft, or a placeholder the profile does not list).
	ScreenPromptText
)

// String returns the finding as a hold or status line says it.
func (k ScreenKind) String() string {
	switch k {
	case ScreenPrompt:
		return "prompt"
	case ScreenDialog:
		return "dialog"
	case ScreenPromptText:
		return "text on the prompt"
	}
	return "unknown screen"
}

// ScreenReading is the screen gate's answer.
type ScreenReading struct {
	// Kind is what was found; Shape names the dialog shape (ScreenDialog).
	Kind  ScreenKind
	Shape string
}

// Typable reports whether the gate lets typing go ahead.
func (r ScreenReading) Typable() bool { return r.Kind == ScreenPrompt }

// dialogHints are the footer hints of CLI selection dialogs, matched as
// written (case matters: Gemini's busy line "esc to cancel" is no dialog).
// Claude Code draws "Enter to confirm · Esc to cancel" under its trust,
// first-run and picker dialogs, "↑/↓ to choose" under its offers.
var dialogHints = []string{
	"Enter to confirm",
	"Esc to cancel",
	"↑/↓ to choose",
	"↑↓ to choose",
	"Enter to select",
}

// optionRow is a numbered option row: an optional pointer or radio mark,
// then "N." or "N)" and a label.
var optionRow = regexp.MustCompile(`^\s*([❯›>▶●○◯])?\s*(\d{1,2})[.)]\s+\S`)

// pointerRow is an unnumbered option under a pointer, indented (a past
// prompt in a transcript starts at the left edge): its indent, the pointer
// and an ASCII space, a label.
var pointerRow = regexp.MustCompile(`^( +)[❯›▶] \S`)

// DialogShape reports whether text (the screen, rows joined by "\n") shows
// a dialog by its shape, and names the shape: a dialog footer hint
// (dialogHints); a list of numbered options, consecutive rows "1." and "2."
// at least, one of them marked by a pointer (❯ › > ▶) or a radio bullet (●):
// a numbered list in an agent's reply has no pointer; or unnumbered options,
// an indented row under a pointer with another option at its label's column
// next to it (Claude Code 2.1.332's offers draw no footer on a full screen).
func DialogShape(text string) (string, bool) {
	for _, h := range dialogHints {
		if strings.Contains(text, h) {
			return h, true
		}
	}
	rows := strings.Split(text, "\n")
	for i := 0; i+1 < len(rows); i++ {
		a := optionRow.FindStringSubmatch(rows[i])
		if a == nil || a[2] != "1" {
			continue
		}
		b := optionRow.FindStringSubmatch(rows[i+1])
		if b == nil || b[2] != "2" {
			continue
		}
		if a[1] != "" || b[1] != "" {
			return "numbered options", true
		}
	}
	for i, r := range rows {
		m := pointerRow.FindStringSubmatch(r)
		if m == nil {
			continue
		}
		// Another option at the pointer's label column, above or below.
		other := m[1] + "  "
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(rows) && strings.HasPrefix(rows[j], other) && len(rows[j]) > len(other) && rows[j][len(other)] != ' ' {
				return "options under a pointer", true
			}
		}
	}
	return "", false
}

// ReadScreen is the screen gate for a profile that defines its prompt: text
// is the screen, row and rowOK the prompt row as read (rowOK false: the row
// was not found). A dialog shape decides first (its option rows can look like
// a prompt row), then the prompt row: found and empty is ScreenPrompt, found
// with text ScreenPromptText, not found ScreenUnknown. With the prompt found
// and empty, only the rows from the prompt down are looked at for a shape: a
// dialog replaces the prompt or sits at or below it, never above an empty
// one, and the rows above are the transcript, whose past prompts (`❯ 1. fix
// foo` / `  2. fix bar`) and replies (`● 1. Fixed foo`) draw the shape of
// numbered options.
func ReadScreen(text, row string, rowOK bool) ScreenReading {
	reading := ReadPromptRow(row, rowOK)
	shapes := text
	switch reading {
	case PromptEmpty:
		shapes = fromEmptyPrompt(text)
	case PromptHasText:
		// The same rule with text on the prompt (office's own, just typed,
		// when the drain checks again before its Enter): the rows above the
		// prompt row are the transcript.
		shapes = fromRow(text, row)
	}
	if shape, ok := DialogShape(shapes); ok {
		return ScreenReading{Kind: ScreenDialog, Shape: shape}
	}
	switch reading {
	case PromptEmpty:
		return ScreenReading{Kind: ScreenPrompt}
	case PromptHasText:
		return ScreenReading{Kind: ScreenPromptText}
	}
	return ScreenReading{Kind: ScreenUnknown}
}

// fromEmptyPrompt returns text from its last row that draws an empty prompt
// (a prompt marker and nothing but prompt chrome) down; all of text when no
// row does (a prompt drawn with a placeholder, or found by the cursor).
func fromEmptyPrompt(text string) string {
	rows := strings.Split(text, "\n")
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.ContainsAny(rows[i], promptMarkers) && !PromptRowHasText(rows[i]) {
			return strings.Join(rows[i:], "\n")
		}
	}
	return text
}

// fromRow returns text from its last row that reads as row (the prompt row,
// trimmed) down; else from its last row that shows a prompt marker (a
// dialog's pointer row keeps its options below it); all of text when no row
// does.
func fromRow(text, row string) string {
	rows := strings.Split(text, "\n")
	if want := strings.TrimSpace(row); want != "" {
		for i := len(rows) - 1; i >= 0; i-- {
			if strings.TrimSpace(rows[i]) == want {
				return strings.Join(rows[i:], "\n")
			}
		}
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.ContainsAny(rows[i], promptMarkers) {
			return strings.Join(rows[i:], "\n")
		}
	}
	return text
}

// ScreenHead returns the screen's first n non-blank rows, each trimmed of
// trailing space and cut to width runes: what a notice quotes of a screen.
func ScreenHead(text string, n, width int) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \u00a0")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if r := []rune(l); len(r) > width {
			l = string(r[:width]) + "…"
		}
		out = append(out, l)
		if len(out) == n {
			break
		}
	}
	return out
}
