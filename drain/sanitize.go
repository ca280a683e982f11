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

// Typeable reports whether anything but white space is left of s once its
// escape sequences are removed whole (withoutEscapes) and the rest goes
// through Sanitize: a body of only controls (NUL, C1, ESC) would be dropped
// at delivery as "nothing left to type", and one of only escape sequences
// (`ESC[2J ESCc`) would type their tails (`[2Jc`), text nobody wrote, so
// the door refuses both.
func Typeable(s string) bool {
	return strings.TrimSpace(Sanitize(withoutEscapes(s), true)) != ""
}

// withoutEscapes returns s with every ESC-introduced sequence removed whole
// (ECMA-48): a CSI (ESC [ parameters intermediates final), a string control
// (OSC ESC ], DCS ESC P, SOS ESC X, PM ESC ^, APC ESC _) up to its BEL or
// ST (ESC \; unterminated: to the end), and any other escape (ESC,
// intermediates 0x20-0x2F, one final byte 0x30-0x7E, as ESC c or ESC ( B).
// A lone ESC at the end is removed too.
func withoutEscapes(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			i++
			continue
		}
		i++
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '[':
			i++
			for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
				i++ // parameters and intermediates
			}
			if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
				i++ // the final byte
			}
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			i++
			for i < len(s) && s[i] != 0x07 && !strings.HasPrefix(s[i:], "\x1b\\") {
				i++
			}
			if i < len(s) && s[i] == 0x07 {
				i++
			} else if i < len(s) {
				i += 2
			}
		default:
			for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
				i++
			}
			if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
				i++
			}
		}
	}
	return b.String()
}
