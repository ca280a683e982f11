package ui

// encode.go turns the person's keys, as Bubble Tea decoded them from the
// outer terminal, back into the bytes the focused agent asked for: the kitty
// keyboard protocol when the agent pushed its flags (so Shift+Enter,
// Ctrl+Enter and Alt+Enter stay apart), application cursor keys after
// DECCKM, bracketed pastes after ?2004h, and otherwise the legacy bytes a
// terminal sends, with LegacyNewline for the Enter variants legacy encoding
// cannot tell apart.

import (
	"strconv"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// LegacyNewline is what Shift+Enter, Ctrl+Enter and Alt+Enter send to an
// agent that did not turn the kitty protocol on: ESC CR (Meta+Enter),
// which Claude Code, Codex and Gemini CLI all read as a new line.
const LegacyNewline = "\x1b\r"

// Kitty keyboard protocol flags (CSI > flags u).
const (
	kittyDisambiguate = 1
	kittyAllAsEscapes = 8
)

// keyModes are the agent's modes that change key encoding.
type keyModes struct {
	kitty     uint8 // kitty flags in effect
	appCursor bool  // DECCKM
}

// csiKeys are keys sent as CSI [1;mods] final (SS3 final without mods in
// application cursor mode for the arrows, Home and End; SS3 for F1-F4).
var csiKeys = map[rune]byte{
	tea.KeyUp: 'A', tea.KeyDown: 'B', tea.KeyRight: 'C', tea.KeyLeft: 'D',
	tea.KeyHome: 'H', tea.KeyEnd: 'F', tea.KeyBegin: 'E',
	tea.KeyF1: 'P', tea.KeyF2: 'Q', tea.KeyF3: 'R', tea.KeyF4: 'S',
}

// tildeKeys are keys sent as CSI number [;mods] ~.
var tildeKeys = map[rune]int{
	tea.KeyInsert: 2, tea.KeyDelete: 3, tea.KeyPgUp: 5, tea.KeyPgDown: 6,
	tea.KeyF5: 15, tea.KeyF6: 17, tea.KeyF7: 18, tea.KeyF8: 19,
	tea.KeyF9: 20, tea.KeyF10: 21, tea.KeyF11: 23, tea.KeyF12: 24,
}

// kittyCodes are the kitty protocol's numbers for keys with a C0 legacy form.
var kittyCodes = map[rune]int{
	tea.KeyEnter: 13, tea.KeyTab: 9, tea.KeyBackspace: 127, tea.KeyEscape: 27, tea.KeySpace: 32,
}

// modParam is the CSI modifier parameter (1 + shift 1, alt 2, ctrl 4, super/meta 8).
func modParam(m tea.KeyMod) int {
	n := 0
	if m.Contains(tea.ModShift) {
		n |= 1
	}
	if m.Contains(tea.ModAlt) {
		n |= 2
	}
	if m.Contains(tea.ModCtrl) {
		n |= 4
	}
	if m.Contains(tea.ModSuper) || m.Contains(tea.ModMeta) {
		n |= 8
	}
	return n + 1
}

// encodeKey returns the bytes for k in modes m, or nil for a key that has
// no encoding (a bare modifier, a key release).
func encodeKey(k tea.Key, m keyModes) []byte {
	mods := k.Mod &^ (tea.ModCapsLock | tea.ModNumLock | tea.ModScrollLock)
	mp := modParam(mods)
	if b, ok := csiKeys[k.Code]; ok {
		ss3 := k.Code >= tea.KeyF1 && k.Code <= tea.KeyF4 ||
			m.appCursor && k.Code != tea.KeyBegin
		switch {
		case mp > 1:
			return []byte("\x1b[1;" + strconv.Itoa(mp) + string(b))
		case ss3:
			return []byte{0x1b, 'O', b}
		}
		return []byte{0x1b, '[', b}
	}
	if n, ok := tildeKeys[k.Code]; ok {
		s := "\x1b[" + strconv.Itoa(n)
		if mp > 1 {
			s += ";" + strconv.Itoa(mp)
		}
		return []byte(s + "~")
	}
	if m.kitty&(kittyDisambiguate|kittyAllAsEscapes) != 0 {
		if b := kittyKey(k, mods, mp, m.kitty); b != nil {
			return b
		}
	}
	return legacyKey(k, mods)
}

// kittyKey is k in the kitty protocol, or nil where the protocol keeps the
// legacy bytes (text and unmodified Enter, Tab, Backspace without flag 8).
func kittyKey(k tea.Key, mods tea.KeyMod, mp int, flags uint8) []byte {
	code, special := kittyCodes[k.Code]
	if !special {
		if k.Code >= tea.KeyExtended || k.Code < 0x20 {
			return nil
		}
		code = int(k.Code)
	}
	all := flags&kittyAllAsEscapes != 0
	plain := mods == 0 || mods == tea.ModShift && !special
	switch {
	case all:
	case k.Code == tea.KeyEscape:
		// Disambiguation sends Esc as CSI 27 u.
	case plain:
		return nil
	}
	s := "\x1b[" + strconv.Itoa(code)
	if mp > 1 {
		s += ";" + strconv.Itoa(mp)
	}
	return []byte(s + "u")
}

// legacyKey is k as a terminal without any protocol sends it.
func legacyKey(k tea.Key, mods tea.KeyMod) []byte {
	alt := mods.Contains(tea.ModAlt)
	ctrl := mods.Contains(tea.ModCtrl)
	shift := mods.Contains(tea.ModShift)
	var b []byte
	switch k.Code {
	case tea.KeyEnter:
		if shift || ctrl || alt {
			return []byte(LegacyNewline)
		}
		b = []byte{'\r'}
	case tea.KeyTab:
		if shift {
			return []byte("\x1b[Z")
		}
		b = []byte{'\t'}
	case tea.KeyBackspace:
		b = []byte{0x7f}
		if ctrl {
			b = []byte{0x08}
		}
	case tea.KeyEscape:
		b = []byte{0x1b}
	case tea.KeySpace:
		b = []byte{' '}
		if ctrl {
			b = []byte{0}
		}
	default:
		if k.Code >= tea.KeyExtended {
			return nil
		}
		switch {
		case ctrl:
			c, ok := ctrlByte(k.Code)
			if !ok {
				return nil
			}
			b = []byte{c}
		case k.Text != "":
			b = []byte(k.Text)
		default:
			r := k.Code
			if shift && k.ShiftedCode != 0 {
				r = k.ShiftedCode
			}
			b = utf8.AppendRune(nil, r)
		}
	}
	if alt {
		b = append([]byte{0x1b}, b...)
	}
	return b
}

// ctrlByte is the C0 byte of Ctrl+r.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 1), true
	case r >= '@' && r <= '_':
		return byte(r - '@'), true
	case r == '?':
		return 0x7f, true
	case r == ' ' || r == '2':
		return 0, true
	case r >= '3' && r <= '7':
		return byte(r-'3') + 0x1b, true
	case r == '8':
		return 0x7f, true
	}
	return 0, false
}

// pasteStart and pasteEnd bracket a paste.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// encodePaste returns a paste for an agent: one bracketed paste when it
// turned bracketed paste on (an end marker inside the text is dropped so
// the text cannot end the paste early), otherwise the text with its line
// ends as CR, as a terminal types them.
func encodePaste(text string, bracketed bool) []byte {
	if bracketed {
		text = strings.ReplaceAll(text, pasteEnd, "")
		return []byte(pasteStart + text + pasteEnd)
	}
	text = strings.ReplaceAll(text, "\r\n", "\r")
	return []byte(strings.ReplaceAll(text, "\n", "\r"))
}
