package main

import (
	"strings"
	"time"
	"unicode/utf8"
)

type keyKind int

const (
	keyRune      keyKind = iota // printable rune in r
	keyEnter                    // CR or LF outside a paste
	keyNewline                  // Alt-Enter (ESC CR): insert a newline
	keyBackspace                // 0x7f or 0x08
	keyCtrlU
	keyCtrlC
	keyEsc // a lone ESC
	keyUp
	keyDown
	keyPaste // bracketed paste, text in text
)

// key is one decoded input event.
type key struct {
	kind keyKind
	r    rune
	text string
	t    time.Time // when the read that completed it returned
	// afterPrintable: printable text (or a paste) came earlier in the same
	// read. Only meaningful for keyEnter.
	afterPrintable bool
}

type parseState int

const (
	psGround parseState = iota
	psEsc               // saw ESC
	psCSI               // saw ESC [
	psSS3               // saw ESC O
	psPaste             // inside ESC[200~ … ESC[201~
)

var pasteEnd = []byte("\x1b[201~")

// parser turns raw terminal input into keys. All state survives between
// feed calls, so sequences may be split across reads.
type parser struct {
	st        parseState
	csi       []byte
	utf       []byte // incomplete UTF-8 sequence (ground state)
	paste     []byte
	match     int  // bytes of pasteEnd matched so far
	pasteCR   bool // last paste byte was CR (to fold CRLF)
	t         time.Time
	printable bool
	out       []key
}

// feed parses one read.
func (p *parser) feed(b []byte, t time.Time) []key {
	p.out = nil
	p.t = t
	p.printable = false
	for _, c := range b {
		p.byte(c)
	}
	return p.out
}

// pending reports whether the parser waits for more bytes of an escape
// sequence (not a paste), i.e. whether the lone-ESC timer should run.
func (p *parser) pending() bool {
	return p.st == psEsc || p.st == psCSI || p.st == psSS3
}

// timeout ends an incomplete escape sequence: a bare ESC becomes keyEsc,
// an incomplete CSI/SS3 is dropped.
func (p *parser) timeout(t time.Time) []key {
	p.out = nil
	p.t = t
	p.printable = false
	if p.st == psEsc {
		p.emit(key{kind: keyEsc})
	}
	if p.pending() {
		p.st = psGround
	}
	return p.out
}

func (p *parser) emit(k key) {
	k.t = p.t
	if k.kind == keyEnter {
		k.afterPrintable = p.printable
	}
	if k.kind == keyRune || k.kind == keyPaste {
		p.printable = true
	}
	p.out = append(p.out, k)
}

func (p *parser) byte(c byte) {
	switch p.st {
	case psGround:
		p.ground(c)
	case psEsc:
		switch c {
		case '[':
			p.st = psCSI
			p.csi = p.csi[:0]
		case 'O':
			p.st = psSS3
		case 0x1b:
			p.emit(key{kind: keyEsc}) // ESC ESC: first one is a lone Esc
		case '\r', '\n':
			p.st = psGround
			p.emit(key{kind: keyNewline})
		default:
			// Not a sequence we know: the ESC was a lone Esc, and the
			// byte is ordinary input (lenient about coalesced writes).
			p.st = psGround
			p.emit(key{kind: keyEsc})
			p.ground(c)
		}
	case psCSI:
		switch {
		case c >= 0x40 && c <= 0x7e:
			p.st = psGround
			p.csiDone(string(p.csi), c)
		case c < 0x20 || c == 0x7f:
			// Malformed: abandon the sequence, treat the byte normally.
			p.st = psGround
			p.ground(c)
		default:
			if len(p.csi) < 64 {
				p.csi = append(p.csi, c)
			}
		}
	case psSS3:
		p.st = psGround
		switch c {
		case 'A':
			p.emit(key{kind: keyUp})
		case 'B':
			p.emit(key{kind: keyDown})
		}
	case psPaste:
		p.pasteIn(c)
	}
}

func (p *parser) csiDone(params string, final byte) {
	switch final {
	case '~':
		if params == "200" {
			p.st = psPaste
			p.paste = p.paste[:0]
			p.match = 0
			p.pasteCR = false
		}
		// "201~" outside a paste and other keys (Delete, PgUp…) are ignored.
	case 'A':
		p.emit(key{kind: keyUp})
	case 'B':
		p.emit(key{kind: keyDown})
	}
}

func (p *parser) ground(c byte) {
	if c >= 0x80 {
		if utf8.RuneStart(c) {
			p.utf = append(p.utf[:0], c)
		} else if len(p.utf) > 0 {
			p.utf = append(p.utf, c)
		} else {
			return // stray continuation byte
		}
		if utf8.FullRune(p.utf) {
			r, _ := utf8.DecodeRune(p.utf)
			p.utf = p.utf[:0]
			if r != utf8.RuneError && r >= 0xa0 {
				p.emit(key{kind: keyRune, r: r})
			}
		}
		return
	}
	p.utf = p.utf[:0] // an ASCII byte ends any broken sequence
	switch {
	case c == 0x1b:
		p.st = psEsc
	case c == '\r' || c == '\n':
		p.emit(key{kind: keyEnter})
	case c == 0x7f || c == 0x08:
		p.emit(key{kind: keyBackspace})
	case c == 0x15:
		p.emit(key{kind: keyCtrlU})
	case c == 0x03:
		p.emit(key{kind: keyCtrlC})
	case c < 0x20:
		// other control keys (Tab, Ctrl-A, …) are ignored
	default:
		p.emit(key{kind: keyRune, r: rune(c)})
	}
}

func (p *parser) pasteIn(c byte) {
	if c == pasteEnd[p.match] {
		p.match++
		if p.match == len(pasteEnd) {
			p.st = psGround
			p.match = 0
			text := strings.ToValidUTF8(string(p.paste), "")
			p.paste = p.paste[:0]
			p.emit(key{kind: keyPaste, text: text})
		}
		return
	}
	if p.match > 0 {
		// A partial end marker turned out to be paste content.
		for _, m := range pasteEnd[:p.match] {
			p.pasteByte(m)
		}
		p.match = 0
		if c == pasteEnd[0] {
			p.match = 1
			return
		}
	}
	p.pasteByte(c)
}

func (p *parser) pasteByte(c byte) {
	cr := false
	switch {
	case c == '\r':
		p.paste = append(p.paste, '\n')
		cr = true
	case c == '\n':
		if !p.pasteCR {
			p.paste = append(p.paste, '\n')
		}
	case c == '\t':
		p.paste = append(p.paste, c)
	case c < 0x20 || c == 0x7f:
		// drop other control bytes (including a stray ESC)
	default:
		p.paste = append(p.paste, c)
	}
	p.pasteCR = cr
}
