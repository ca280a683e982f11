package automation

// The screen as the judge reads it: rows of text, handed over one at a time,
// so the caller keeps each row's text between readings and copies nothing
// per judgment (a caller reads only the rows that changed, never a full
// snapshot per read).

import "strings"

// Rows is a screen's text, one row at a time: Len rows, Row(i) the text of
// row i (0 at the top) with no "\n" in it. The text the patterns are matched
// in is the rows joined with "\n"; blank rows at the end count for nothing.
// Row must not change what it returns while the judge runs. A nil Rows is a
// blank screen.
type Rows interface {
	Len() int
	Row(i int) string
}

// Lines is a Rows over a text whose rows are separated by "\n" (for tests,
// and callers that hold the text already).
type Lines []string

// TextRows splits text at "\n" into Lines.
func TextRows(text string) Lines {
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// Len returns the number of rows.
func (l Lines) Len() int { return len(l) }

// Row returns row i.
func (l Lines) Row(i int) string { return l[i] }

// ScreenHas reports whether s occurs in the text of rows (their Row texts
// joined with "\n", blank rows at the end dropped): a pattern without "\n"
// within one row, a pattern with "\n" across consecutive rows. A blank s
// never occurs.
func ScreenHas(rows Rows, s string) bool {
	if s == "" || rows == nil {
		return false
	}
	n := rows.Len()
	if !strings.Contains(s, "\n") {
		for i := 0; i < n; i++ {
			if strings.Contains(rows.Row(i), s) {
				return true
			}
		}
		return false
	}
	for n > 0 && rows.Row(n-1) == "" {
		n--
	}
	parts := strings.Split(s, "\n")
	last := len(parts) - 1
	for i := 0; i+last < n; i++ {
		if !strings.HasSuffix(rows.Row(i), parts[0]) || !strings.HasPrefix(rows.Row(i+last), parts[last]) {
			continue
		}
		match := true
		for k := 1; k < last && match; k++ {
			match = rows.Row(i+k) == parts[k]
		}
		if match {
			return true
		}
	}
	return false
}

// findPattern returns the first non-blank pattern that occurs on screen
// (ScreenHas).
func findPattern(screen Rows, patterns []string) (string, bool) {
	for _, p := range patterns {
		if ScreenHas(screen, p) {
			return p, true
		}
	}
	return "", false
}
