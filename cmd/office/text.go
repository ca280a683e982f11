package main

// text.go is how stored text is shown on a terminal: a listing never prints
// a control character or an invalid byte as it is, so no body, title or name
// can break a column or drive the terminal (move the cursor, change its
// title, clear it).

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// cell returns s as one table cell of at most max runes: newlines shown as
// ⏎, tabs as a space, other controls and invalid bytes escaped (\x1b,
// \u009b, \xff), cut with … when longer. max <= 0: no cut.
func cell(s string, max int) string {
	s = escape(s, false)
	if max > 0 && utf8.RuneCountInString(s) > max {
		return string([]rune(s)[:max-1]) + "…"
	}
	return s
}

// safeText returns s for printing whole (mail show, inbox show): newlines
// and tabs are kept, other controls and invalid bytes escaped.
func safeText(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || isControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepLines, r == '\t' && keepLines:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString("⏎")
		case r == '\t':
			b.WriteByte(' ')
		case r == '\r' && keepLines:
			// a CR would move the cursor back over the line: drop it
		case r < 0x80 && isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case isControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

// isControl reports whether r is a C0 control, DEL or a C1 control.
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }

// newTable is the tabwriter every listing uses: two spaces between columns.
func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }
