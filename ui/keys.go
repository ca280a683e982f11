package ui

// keys.go decodes the person's raw bytes into keys for office's own boxes
// (composer, queue panel, lists, the key after the prefix). Keys for an agent
// are never decoded: they go through raw (input.go).

import (
	"bytes"
	"unicode/utf8"
)

// keyKind says what a key is.
type keyKind uint8

const (
	keyUnknown keyKind = iota
	keyRune            // a printable rune (alt set for Alt+rune)
	keyEnter           // Enter alone
	keyNewline         // Alt+Enter, Shift+Enter, Ctrl-J: a new line in the composer
	keyBackspace
	keyDelete
	keyEsc
	keyTab
	keyBackTab
	keyUp
	keyDown
	keyLeft
	keyRight
	keyHome
	keyEnd
	keyPgUp
	keyPgDn
	keyCtrl  // Ctrl+letter: r is the lower-case letter (or the byte + '@')
	keyPaste // text of a bracketed paste (possibly one part of it)
)

// key is one decoded key.
type key struct {
	kind keyKind
	r    rune
	alt  bool
	text string // keyPaste only
}

// is reports whether k is the plain rune r.
func (k key) is(r rune) bool { return k.kind == keyRune && !k.alt && k.r == r }

// keyDecoder decodes chunks of raw input, remembering an unfinished
// bracketed paste across chunks.
type keyDecoder struct {
	pasting bool
}

// decode returns the keys in p.
func (d *keyDecoder) decode(p []byte) []key {
	var out []key
	for len(p) > 0 {
		if d.pasting {
			i := bytes.Index(p, pasteEnd)
			if i < 0 {
				out = append(out, key{kind: keyPaste, text: string(p)})
				return out
			}
			if i > 0 {
				out = append(out, key{kind: keyPaste, text: string(p[:i])})
			}
			d.pasting = false
			p = p[i+len(pasteEnd):]
			continue
		}
		if bytes.HasPrefix(p, pasteStart) {
			d.pasting = true
			p = p[len(pasteStart):]
			continue
		}
		k, n := decodeKey(p)
		out = append(out, k)
		p = p[n:]
	}
	return out
}

// decodeKey decodes the key at the start of p (len(p) > 0) and returns it
// with the number of bytes it took. A lone ESC at the end of a chunk is Esc.
func decodeKey(p []byte) (key, int) {
	b := p[0]
	switch {
	case b == 0x1b:
		return decodeEsc(p)
	case b == '\r':
		return key{kind: keyEnter}, 1
	case b == '\n':
		return key{kind: keyNewline}, 1
	case b == 0x7f || b == 0x08:
		return key{kind: keyBackspace}, 1
	case b == '\t':
		return key{kind: keyTab}, 1
	case b < 0x20:
		r := rune(b) + '@'
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return key{kind: keyCtrl, r: r}, 1
	}
	r, n := utf8.DecodeRune(p)
	if r == utf8.RuneError && n <= 1 {
		return key{kind: keyUnknown}, 1
	}
	return key{kind: keyRune, r: r}, n
}

// decodeEsc decodes a key starting with ESC.
func decodeEsc(p []byte) (key, int) {
	if len(p) == 1 {
		return key{kind: keyEsc}, 1
	}
	switch c := p[1]; {
	case c == '[':
		return decodeCSI(p)
	case c == 'O' && len(p) >= 3:
		switch p[2] {
		case 'A':
			return key{kind: keyUp}, 3
		case 'B':
			return key{kind: keyDown}, 3
		case 'C':
			return key{kind: keyRight}, 3
		case 'D':
			return key{kind: keyLeft}, 3
		case 'H':
			return key{kind: keyHome}, 3
		case 'F':
			return key{kind: keyEnd}, 3
		}
		return key{kind: keyUnknown}, 3
	case c == '\r' || c == '\n':
		return key{kind: keyNewline, alt: true}, 2
	case c == 0x1b:
		return key{kind: keyEsc}, 1
	case c < 0x20 || c == 0x7f:
		k, n := decodeKey(p[1:])
		k.alt = true
		return k, n + 1
	}
	r, n := utf8.DecodeRune(p[1:])
	return key{kind: keyRune, r: r, alt: true}, n + 1
}

// decodeCSI decodes ESC [ params final.
func decodeCSI(p []byte) (key, int) {
	i := 2
	for i < len(p) && p[i] >= 0x20 && p[i] <= 0x3f {
		i++
	}
	if i >= len(p) {
		return key{kind: keyUnknown}, len(p)
	}
	final := p[i]
	params := string(p[2:i])
	n := i + 1
	switch final {
	case 'A':
		return key{kind: keyUp}, n
	case 'B':
		return key{kind: keyDown}, n
	case 'C':
		return key{kind: keyRight}, n
	case 'D':
		return key{kind: keyLeft}, n
	case 'H':
		return key{kind: keyHome}, n
	case 'F':
		return key{kind: keyEnd}, n
	case 'Z':
		return key{kind: keyBackTab}, n
	case 'u':
		if params == "13;2" || params == "13;3" {
			return key{kind: keyNewline}, n // kitty Shift+Enter / Alt+Enter
		}
	case '~':
		switch params {
		case "3":
			return key{kind: keyDelete}, n
		case "5":
			return key{kind: keyPgUp}, n
		case "6":
			return key{kind: keyPgDn}, n
		case "1", "7":
			return key{kind: keyHome}, n
		case "4", "8":
			return key{kind: keyEnd}, n
		case "27;2;13", "27;3;13":
			return key{kind: keyNewline}, n // xterm modifyOtherKeys Shift+Enter
		}
	}
	return key{kind: keyUnknown}, n
}
