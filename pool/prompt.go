package pool

// prompt.go finds an agent CLI's input row on a snapshot (the rows each
// pinned CLI draws are noted in configs/profiles.toml).

import "strings"

// DefaultRule is the rule rune PromptSpec uses when Rule is 0 (U+2500, the
// rules around Claude Code's prompt).
const DefaultRule = '─'

// PromptSpec says how to find an agent's input row on its screen.
type PromptSpec struct {
	// Marker is the prompt's leading text, e.g. "❯" (Claude Code), "›"
	// (Codex) or ">" (Gemini CLI, at Column 1). A no-break space in the
	// screen matches a space in Marker. Empty means "no known prompt".
	Marker string
	// Column is the cell column where Marker starts.
	Column int
	// BetweenRules requires a rule row directly above the marker row and
	// another one below it (after any continuation rows of a multi-line
	// input); transcript rows that repeat the marker are not framed so.
	BetweenRules bool
	// Rule is the rune rule rows are drawn with; 0 means DefaultRule.
	Rule rune
	// RuleBelow is the rune of the rule under the input when it differs
	// from Rule (Gemini CLI: ▄ above, ▀ below); 0 means Rule.
	RuleBelow rune
	// Placeholders are texts the CLI draws on an empty input row when it
	// does not draw them dim (dim text is never read, see FindPrompt). A
	// prompt text equal to one of them reads as "" (empty).
	Placeholders []string
}

// FindPrompt locates the input row described by spec.
//
// It scans from the bottom up for the last row whose cells from
// spec.Column on spell spec.Marker and, with spec.BetweenRules, whose row
// directly above is a rule row and which is followed, after zero or more
// continuation rows, by a rule row (a rule row is one whose first non-blank
// cells, two or more of them or the rest of the row, are the rule rune).
// It then returns ok=true, that row, and the input text: the rest of the
// marker row with no-break spaces turned into spaces and ghost text (dim
// cells, a caret drawn over dim text) left out, trimmed, plus with
// BetweenRules the continuation rows (each with the indentation of the first
// row's text removed and trailing spaces trimmed) joined by "\n", the whole
// trimmed of surrounding white space. "" means an empty prompt.
//
// When spec.Marker is empty or no row matches, the prompt cannot be read:
// FindPrompt returns ok=false with the cursor row and its text (no-break
// spaces turned into spaces, trimmed) as a hint only.
func (s *Snapshot) FindPrompt(spec PromptSpec) (row int, text string, ok bool) {
	row, text, ok = s.findPrompt(spec)
	if ok {
		for _, p := range spec.Placeholders {
			if p != "" && text == p {
				return row, "", true
			}
		}
	}
	return row, text, ok
}

func (s *Snapshot) findPrompt(spec PromptSpec) (row int, text string, ok bool) {
	rule := spec.Rule
	if rule == 0 {
		rule = DefaultRule
	}
	below := spec.RuleBelow
	if below == 0 {
		below = rule
	}
	if spec.Marker != "" {
		for y := s.Rows - 1; y >= 0; y-- {
			textCol, match := s.matchMarker(y, spec.Column, spec.Marker)
			if !match {
				continue
			}
			if !spec.BetweenRules {
				return y, s.promptLine(y, textCol, true), true
			}
			if !s.isRuleRow(y-1, rule) {
				continue
			}
			end := y + 1
			for end < s.Rows && !s.isRuleRow(end, below) {
				end++
			}
			if end >= s.Rows {
				continue
			}
			var b strings.Builder
			b.WriteString(s.promptLine(y, textCol, true))
			for r := y + 1; r < end; r++ {
				b.WriteByte('\n')
				b.WriteString(s.promptLine(r, s.indentEnd(r, textCol+1), false))
			}
			return y, strings.TrimSpace(b.String()), true
		}
	}
	y := s.CursorY
	return y, s.promptLine(y, 0, true), false
}

// matchMarker reports whether row y spells marker from column col on, and
// the column after it.
func (s *Snapshot) matchMarker(y, col int, marker string) (next int, ok bool) {
	row := s.row(y)
	if col < 0 || col >= len(row) {
		return 0, false
	}
	x := col
	for _, m := range marker {
		for x < len(row) && row[x].Width == 0 {
			x++
		}
		if x >= len(row) || normSpace(row[x].Rune) != normSpace(m) {
			return 0, false
		}
		x++
	}
	return x, true
}

// indentEnd returns the column of the first non-blank cell of row y, but no
// further right than limit (the marker row's text column: marker plus one
// space), so that only the indentation a continuation row shares with the
// marker row's text is dropped.
func (s *Snapshot) indentEnd(y, limit int) int {
	row := s.row(y)
	x := 0
	for x < limit && x < len(row) && (normSpace(row[x].Rune) == ' ' && row[x].Width != 0) {
		x++
	}
	return x
}

// promptLine returns row y's text from column from on, no-break spaces
// turned into spaces, trailing spaces trimmed (and leading ones when trim).
// Ghost text is not text: a dim cell reads as a space, and so does a
// reverse-video cell (a drawn caret) whose next cell is dim, as when a CLI
// draws its caret over the first letter of a dim placeholder or suggestion.
func (s *Snapshot) promptLine(y, from int, trim bool) string {
	row := s.row(y)
	if from > len(row) {
		from = len(row)
	}
	var b strings.Builder
	for x := from; x < len(row); x++ {
		c := row[x]
		if c.Width == 0 {
			continue
		}
		if ghostCell(row, x) {
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(normSpace(c.Rune))
	}
	if trim {
		return strings.TrimSpace(b.String())
	}
	return strings.TrimRight(b.String(), " ")
}

// isRuleRow reports whether row y's first non-blank cells are the rule rune:
// at least two of them, or all the rest of the row.
func (s *Snapshot) isRuleRow(y int, rule rune) bool {
	row := s.row(y)
	x := 0
	for x < len(row) && (row[x].Width == 0 || normSpace(row[x].Rune) == ' ') {
		x++
	}
	n := 0
	for k := x; k < len(row) && row[k].Rune == rule; k++ {
		n++
	}
	return n >= 2 || (n == 1 && x+1 == len(row))
}

// cellsText returns the text of row y's cells in columns [from, to), ghost
// text read as spaces (as promptLine), nothing trimmed.
func (s *Snapshot) cellsText(y, from, to int) string {
	row := s.row(y)
	to = min(to, len(row))
	var b strings.Builder
	for x := max(from, 0); x < to; x++ {
		switch {
		case row[x].Width == 0:
		case ghostCell(row, x):
			b.WriteByte(' ')
		default:
			b.WriteRune(normSpace(row[x].Rune))
		}
	}
	return b.String()
}

// ghostCell reports whether row[x] is ghost text (see promptLine).
func ghostCell(row []Cell, x int) bool {
	c := row[x]
	if c.Attr&AttrDim != 0 {
		return true
	}
	if c.Attr&AttrReverse == 0 {
		return false
	}
	for k := x + 1; k < len(row); k++ {
		if row[k].Width != 0 {
			return row[k].Attr&AttrDim != 0 && row[k].Rune != ' '
		}
	}
	return false
}

func normSpace(r rune) rune {
	if r == '\u00a0' || r == 0 {
		return ' '
	}
	return r
}
