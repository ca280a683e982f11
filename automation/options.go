package automation

// A dialog's options as its screen draws them: what `office approve` picks
// from, and what the drain reads right before it moves the pointer (the
// person may have moved it since the dialog was forwarded).

import (
	"regexp"
	"strings"
)

// DialogOption is one option on a dialog's screen: Num is its number (""
// for an unnumbered one), Pos its place among the options (1, 2, ...),
// Selected whether the pointer is on it.
type DialogOption struct {
	Num, Label string
	Pos        int
	Selected   bool
}

// optionLine is a numbered option row: an optional pointer, the number, the
// label.
var optionLine = regexp.MustCompile(`^\s*(?:([❯>›▶])\s*)?(\d{1,2})[.)]\s+(\S.*?)\s*$`)

// pointerLine is an unnumbered option under the pointer: its indent, the
// label (Claude Code 2.1.332's trust dialog and offers: ` ❯ No, exit`).
var pointerLine = regexp.MustCompile(`^( +)[❯›▶] (\S.*?)\s*$`)

// DialogOptions reads the options from screen text: numbered ones, or,
// with none, the unnumbered block around the pointer (rows at the
// pointer's label column, next to each other).
func DialogOptions(text string) []DialogOption {
	var out []DialogOption
	lines := strings.Split(text, "\n")
	for _, l := range lines {
		if m := optionLine.FindStringSubmatch(l); m != nil {
			out = append(out, DialogOption{Num: m[2], Label: m[3], Pos: len(out) + 1, Selected: m[1] != ""})
		}
	}
	if len(out) > 0 {
		return out
	}
	for i, l := range lines {
		m := pointerLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		col := m[1] + "  "
		first := i
		for first > 0 && isOptionAt(lines[first-1], col) {
			first--
		}
		for j := first; j < len(lines) && (j == i || isOptionAt(lines[j], col)); j++ {
			label := strings.TrimSpace(lines[j])
			if j == i {
				label = m[2]
			}
			out = append(out, DialogOption{Label: label, Pos: len(out) + 1, Selected: j == i})
		}
		if len(out) < 2 {
			return nil
		}
		return out
	}
	return nil
}

// isOptionAt reports whether l is an option row whose label starts at col.
func isOptionAt(l, col string) bool {
	return strings.HasPrefix(l, col) && len(l) > len(col) && l[len(col)] != ' '
}

// IsNumberedOption reports whether l is a numbered option row.
func IsNumberedOption(l string) bool { return optionLine.MatchString(l) }
