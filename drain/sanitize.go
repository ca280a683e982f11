package drain

// Sanitizing message text before it reaches a PTY (docs/design.md §2): no
// message may end a bracketed paste early or press a key. The text is
// handled per rune, never per byte, so Chinese (any UTF-8) text survives.

import "strings"

// Sanitize returns s made safe to type. It removes ESC and every other C0
// control (U+0000–U+001F), DEL (U+007F) and every C1 control (U+0080–U+009F),
// except newline and tab; a CR or CR LF becomes one newline; each invalid
// UTF-8 byte becomes U+FFFD. Outside a paste (inPaste false) tabs become
// spaces, since a typed Tab is a key (completion, focus). Everything else,
// including all printable text, is kept in order. The result is valid UTF-8,
// never contains ESC (so never the paste end "ESC[201~"), and Sanitize of the
// result with the same inPaste returns it unchanged.
func Sanitize(s string, inPaste bool) string {
	var b strings.Builder
	b.Grow(len(s))
	prevCR := false
	for _, r := range s { // invalid bytes arrive as utf8.RuneError (U+FFFD)
		cr := false
		switch {
		case r == '\r':
			b.WriteByte('\n')
			cr = true
		case r == '\n':
			if !prevCR {
				b.WriteByte('\n')
			}
		case r == '\t':
			if inPaste {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		case isControl(r):
			// dropped
		default:
			b.WriteRune(r)
		}
		prevCR = cr
	}
	return b.String()
}

// isControl reports whether r is a C0 control, DEL or a C1 control.
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}

// Typeable reports whether anything but white space is left of s after
// Sanitize: a body of only controls (NUL, C1, ESC) would be dropped at
// delivery as "nothing left to type", so the door refuses it instead.
func Typeable(s string) bool {
	return strings.TrimSpace(Sanitize(s, true)) != ""
}
