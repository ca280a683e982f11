package pool

// filter.go sits between a PTY and vt10x. vt10x mis-executes a number of
// sequences that agent CLIs really send (measured on the pinned CLIs of
// README's "Tested CLI versions"); the Filter is a small VT parser that hands
// vt10x only what it handles correctly, rewrites what it would get wrong,
// answers the queries vt10x cannot, and tracks the modes vt10x does not expose.

import (
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// WidePlaceholder is the rune the Filter writes after every double-width rune
// so that vt10x, which advances one column per rune, advances two: the screen
// cell to the right of a wide rune holds WidePlaceholder. It is U+FDD0, a
// Unicode noncharacter (never part of interchanged text, unlike the private-use
// area where Nerd Font icons live). A WidePlaceholder sent by the child itself
// is turned into U+FFFD so it can never be mistaken for a placeholder.
// Snapshot reports placeholder cells as Width-0 cells.
const WidePlaceholder rune = '\uFDD0'

// MouseMode is the mouse reporting a child has asked for: a tracking level in
// the low bits (MouseNone, MouseX10, MouseButton, MouseDrag, MouseAny, at most
// one) plus the encoding flags MouseSGR and MouseURXVT. Use Tracking, SGR and
// URXVT to take it apart.
type MouseMode uint8

// Mouse tracking levels (mutually exclusive) and encoding flags (OR-ed in).
const (
	// MouseNone: no mouse reporting (the default, and after any ?9/?1000/?1002/?1003 reset).
	MouseNone MouseMode = 0
	// MouseX10: ?9h, press only.
	MouseX10 MouseMode = 1
	// MouseButton: ?1000h, press and release.
	MouseButton MouseMode = 2
	// MouseDrag: ?1002h, press, release and motion while a button is down.
	MouseDrag MouseMode = 3
	// MouseAny: ?1003h, all motion.
	MouseAny MouseMode = 4
	// MouseSGR: ?1006h, reports use the SGR encoding (CSI < b;x;y M/m).
	MouseSGR MouseMode = 0x10
	// MouseURXVT: ?1015h, reports use the urxvt encoding.
	MouseURXVT MouseMode = 0x20

	mouseTrackMask MouseMode = 0x0f
)

// Tracking returns the tracking level alone (MouseNone … MouseAny).
func (m MouseMode) Tracking() MouseMode { return m & mouseTrackMask }

// SGR reports whether the SGR encoding flag (?1006) is set.
func (m MouseMode) SGR() bool { return m&MouseSGR != 0 }

// URXVT reports whether the urxvt encoding flag (?1015) is set.
func (m MouseMode) URXVT() bool { return m&MouseURXVT != 0 }

// Modes are the terminal modes and strings a child has set, as seen in its
// output stream by the Filter (vt10x exposes none of BracketedPaste,
// SyncOutput or OSCState, and gets AltScreen wrong). The zero value is the
// state of a freshly started terminal. Modes is comparable with ==.
type Modes struct {
	// BracketedPaste: ?2004h is in effect; wrap pastes in ESC[200~ … ESC[201~.
	BracketedPaste bool
	// SyncOutput: ?2026h is in effect, the child is in the middle of a frame.
	SyncOutput bool
	// AltScreen: the alternate screen (?1049h, ?1047h or ?47h) is shown.
	AltScreen bool
	// AppCursor: ?1h (DECCKM) is in effect; cursor keys send ESC O A … .
	AppCursor bool
	// FocusEvents: ?1004h is in effect; the child wants ESC[I / ESC[O.
	FocusEvents bool
	// Mouse is the requested mouse reporting.
	Mouse MouseMode
	// Title is the last window title set with OSC 0 or OSC 2 (made valid
	// UTF-8). An empty OSC 0 clears it.
	Title string
	// OSCState is the state= field of the last OSC 7501 (Codex:
	// "OSC 7501;state=working:app=codex" gives "working").
	OSCState string
	// KittyKeys are the kitty keyboard flags in effect (the top of the
	// stack the child pushed with CSI > flags u, changed with CSI = flags;
	// mode u, popped with CSI < n u); 0 means legacy key encoding.
	KittyKeys uint8
	// CursorShape is the last DECSCUSR (CSI Ps SP q) parameter, 0-6: 0 the
	// terminal's default, 1/2 block, 3/4 underline, 5/6 bar (odd blinks).
	CursorShape uint8
}

// maxKittyStack bounds the kitty keyboard flag stack; a deeper push
// drops the oldest entry, as terminals do.
const maxKittyStack = 8

// Limits of the Filter.
const (
	// maxStringLen is the longest OSC payload kept; a longer string
	// sequence is dropped whole.
	maxStringLen = 4096
	// oscKeep is the largest string buffer kept between strings (titles are
	// short; a 4 KiB buffer per agent would be kept for nothing).
	oscKeep = 256
	// maxCSILen bounds the bytes between ESC[ and the final byte; longer
	// sequences are dropped (vt10x cuts at 256 and would print the rest).
	maxCSILen = 120
	// maxParams bounds the parameters of one CSI sequence.
	maxParams = 48
	// maxParam is the largest numeric parameter passed on: vt10x loops
	// once per count (CSI 999999999 I took 3.9 s).
	maxParam = 9999
	// maxRepeat bounds REP (CSI Ps b), which the Filter expands itself.
	maxRepeat = 1024
	// sgrSplit: an SGR being rebuilt is closed and a new one started once
	// it is this long, keeping every sequence under vt10x's 256-byte limit.
	sgrSplit = 200
)

// Parser states.
const (
	stGround   uint8 = iota
	stEsc            // after ESC
	stEscInter       // ESC, intermediates
	stCSI            // ESC [
	stOSC            // ESC ] payload
	stOSCEsc         // ESC inside an OSC
	stStr            // DCS, SOS, PM, APC, ESC k: ignored up to ST
	stStrEsc         // ESC inside an ignored string
)

// Parameter flags.
const (
	paramSub = 1 // the parameter followed ':' (a sub-parameter)
)

// Replies the Filter gives itself.
const (
	replyDA1   = "\x1b[?62;22c"
	replyDA2   = "\x1b[>1;10;0c"
	replyOSC10 = "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"
	replyOSC11 = "\x1b]11;rgb:0000/0000/0000\x1b\\"
)

// Filter turns raw PTY output into a stream vt10x can parse safely, and
// answers the terminal queries vt10x cannot. It is a VT parser (ground, ESC,
// CSI and string states) whose state carries across calls: a sequence or a
// UTF-8 rune split between two reads is handled, and feeding a stream one
// byte at a time gives exactly the output of feeding it whole. A Filter is
// not safe for concurrent use; it belongs to the goroutine reading the PTY.
// Create one with NewFilter.
//
// What vt10x gets, by kind of input:
//   - Text: complete runes only (an incomplete tail waits for the next
//     call; invalid bytes become U+FFFD). A double-width rune is followed by
//     WidePlaceholder. Zero-width runes are dropped, and so is the rune after
//     a ZWJ and an emoji modifier after a wide rune, so 👩‍💻 and 👍🏽 take two
//     cells as in a real terminal.
//   - C0 controls: BS, HT, LF, VT, FF, CR pass; the rest (BEL, SO, SI, NUL,
//     CAN, SUB, ...) are dropped; CAN and SUB abort a sequence. BEL is
//     recorded as the agent's notification (notify.go).
//   - ESC: IND, NEL, HTS, RI, DECSC, DECRC, DECKPAM, DECKPNM, RIS, G0
//     designation and DECALN pass; everything else is dropped.
//   - CSI: parameters are rebuilt: values clamped to 9999, empty ones
//     filled with the default, 0 counts made 1, colon sub-parameters dropped
//     (SGR: turned into the semicolon form). Dropped: any sequence with an
//     intermediate byte or a misplaced parameter byte ('-' counts included),
//     longer than 120 bytes or with more than 48 parameters; every CSI u and
//     CSI s with a prefix or parameters (kitty keyboard, DECSLRM); every '>',
//     '<' and '=' sequence (modifyOtherKeys, XTVERSION, ...); '?' sequences
//     other than h, l, J, K; finals vt10x does not know (t, q, x, ...).
//     DEC private modes vt10x does not use (2004, 2026, 1015, ...) are
//     tracked and removed from the sequence; a reset of 47/1047/1049 while
//     the alternate screen is not shown is removed. REP (CSI b) is expanded
//     (at most 1024 repeats).
//   - SGR: 38/48 colours in colon or semicolon form become 38;5;n or
//     38;2;r;g;b, truecolour with r=g=0 gets g=1 (vt10x would read it as a
//     palette index), 58 (underline colour) and blink (5, 6, 25) are dropped,
//     4:0 becomes 24, 4:n becomes 4, and dim (2, ignored by vt10x) is
//     carried by vt10x's blink bit: 2 becomes 5, 22 becomes 22;25.
//   - OSC: 0 and 2 set Modes.Title and pass as OSC 2; 7501 sets
//     Modes.OSCState; 10;? and 11;? are answered; 9, 777;notify and 99 are
//     recorded as the agent's notifications (notify.go); all others are dropped, as
//     are DCS, SOS, PM, APC and ESC k strings. A string longer than 4 KiB is
//     dropped whole.
//   - Queries answered through reply and dropped: DA1 (CSI c, CSI 0 c) with
//     ESC[?62;22c, DA2 (CSI > c) with ESC[>1;10;0c, OSC 10/11 with white and
//     black, DECRQM (CSI ? Ps $ p) with Ps;0 (not recognised), except 2004
//     and 2026 which report 1 (set) or 2 (reset). XTVERSION and the kitty
//     query get no answer. DSR and CPR pass for vt10x to answer.
type Filter struct {
	state uint8

	// UTF-8 decoder (ground state only): u[:un] is an incomplete rune.
	u     [4]byte
	un    uint8
	uneed uint8

	// ESC intermediates.
	escInter  byte
	escInterN uint8

	// CSI being collected: parameters go straight into pv/pf/pn.
	csiLen    int   // bytes between ESC [ and the final byte so far
	csiBad    bool  // drop the sequence at its final byte
	csiPrefix byte  // '<', '=', '>' or '?' in first position, else 0
	csiInter  byte  // the first intermediate byte (0x20-0x2f)
	csiInterN int   // number of intermediate bytes
	csiCur    int32 // parameter being read, -1 while empty
	csiFlag   uint8 // flags of the parameter being read
	csiParams bool  // a parameter byte was seen

	// OSC payload being collected.
	osc     []byte // grown while a string is collected, up to maxStringLen
	oscOver bool

	// Parsed CSI parameters: pv[i] is -1 when empty.
	pv [maxParams]int32
	pf [maxParams]uint8
	pn int

	// SGR rebuilding.
	sgrSeq int
	sgrN   int

	// Printing.
	cond     runewidth.Condition
	dropNext bool // a ZWJ was seen: drop the next non-ASCII rune
	lastWide bool
	lastRune rune // for REP; 0 before anything was printed
	dimMaybe bool // vt10x's blink bit (our dim) may be set

	modes   Modes
	reply   []byte
	replied bool

	// kitty is the kitty keyboard flag stack below modes.KittyKeys.
	kitty  [maxKittyStack]uint8
	kittyN int

	// notes are the agent's own notifications seen (notify.go); k99 a
	// kitty notification whose chunks are not all in.
	notes []Note
	k99   Note
}

// NewFilter returns a Filter in the ground state with all modes off. Widths
// come from a runewidth.Condition of its own with EastAsianWidth false
// (ambiguous-width runes are one column, as in the UTF-8 locales agent CLIs
// run in); the environment is never consulted.
func NewFilter() *Filter {
	return &Filter{
		// StrictEmojiNeutral only matters when EastAsianWidth is set; it
		// is set here because it selects runewidth's lookup table.
		cond: runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true},
	}
}

// Modes returns the modes seen so far in the stream.
func (f *Filter) Modes() Modes { return f.modes }

// Process consumes p, raw bytes read from a PTY, appends to dst what vt10x
// may safely parse, and returns the extended slice. reply holds the answers to
// terminal queries found in p (DA1, DA2, OSC 10/11, DECRQM), in stream order,
// to be written back to the PTY; it is the Filter's own buffer, valid until
// the next call. DSR and CPR (CSI 5n, CSI 6n) are passed on for vt10x to
// answer through its writer.
//
// The output consists of complete UTF-8 runes and complete escape sequences
// only, so vt10x is back in its ground state after every call. Text is never
// dropped except zero-width runes (combining marks, variation selectors, ZWJ
// and the rune a ZWJ joins, emoji skin-tone modifiers); invalid bytes become
// U+FFFD; every double-width rune is followed by WidePlaceholder. The
// sequences rewritten and removed are listed under Filter.
func (f *Filter) Process(dst, p []byte) (out []byte, reply []byte) {
	f.reply = f.reply[:0]
	dst, _ = f.process(dst, p, false)
	f.replied = false
	return dst, f.reply
}

// process is Process, optionally returning right after the first sequence
// that produced a reply, so that the caller can keep the filter's answers and
// vt10x's (CPR) in stream order. It returns the number of bytes consumed,
// which is len(p) unless stopAtReply cut it short. Replies are appended to
// f.reply.
func (f *Filter) process(dst, p []byte, stopAtReply bool) ([]byte, int) {
	i := 0
	for i < len(p) {
		if f.state == stGround {
			if f.un == 0 {
				// Fast path: a run of plain text is copied as is.
				j := i
				for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
					j++
				}
				var r rune
				size := 0
				if j < len(p) && p[j] >= 0x80 && (j > i || !f.dropNext) {
					j, r, size = textRun(&f.cond, p, j)
				}
				if j > i {
					dst = append(dst, p[i:j]...)
					if c := p[j-1]; c < 0x80 {
						f.lastRune = rune(c)
					} else {
						f.lastRune, _ = utf8.DecodeLastRune(p[i:j])
					}
					f.lastWide = false
					f.dropNext = false
					i = j
					if i == len(p) {
						break
					}
				}
				if size == 0 && p[i] >= 0x80 {
					r, size = utf8.DecodeRune(p[i:])
				}
				if size > 1 {
					// A complete, valid rune print may change.
					dst = f.print(dst, r)
					i += size
					continue
				}
			}
			b := p[i]
			if b == 0x1b && f.un == 0 && i+1 < len(p) && p[i+1] == '[' {
				// Fast path: ESC [ straight into the CSI state.
				f.dropNext = false
				f.enterCSI()
				i += 2
				continue
			}
			if b >= 0x80 || f.un > 0 {
				var again bool
				dst, again = f.utf8Byte(dst, b)
				if !again {
					i++
				}
				continue
			}
			dst = f.control(dst, b)
			i++
			continue
		}
		if f.state == stCSI {
			if i = f.csiScan(p, i); i == len(p) {
				break
			}
		}
		var again bool
		dst, again = f.step(dst, p[i])
		if !again {
			i++
		}
		if stopAtReply && f.replied {
			f.replied = false
			return dst, i
		}
	}
	return dst, i
}

// textRun returns the end of the run of plain text starting at p[i], a
// multi-byte rune: printable ASCII and complete, valid runes one column wide
// (by c), which print would pass unchanged, so the run is copied whole. It
// stops before anything else: a control, an incomplete or invalid sequence, a
// zero-width or wide rune, WidePlaceholder, an emoji modifier. When it stopped
// at a complete, valid rune, that rune and its size are returned too (size is
// 0 otherwise). The caller makes sure that no ZWJ is pending before p[i].
func textRun(c *runewidth.Condition, p []byte, i int) (end int, r rune, size int) {
	j := i
	// prev is the encoding of the last rune found narrow: box-drawing and
	// spinner runes come in runs, and a repeat is recognised by its bytes.
	var prev [utf8.UTFMax]byte
	prevN := 0
	for j < len(p) {
		b := p[j]
		if b >= 0x20 && b < 0x7f {
			j++
			continue
		}
		if b < 0x80 {
			return j, 0, 0
		}
		if prevN > 0 && b == prev[0] && j+prevN <= len(p) && string(p[j+1:j+prevN]) == string(prev[1:prevN]) {
			j += prevN
			continue
		}
		r, size := utf8.DecodeRune(p[j:])
		if size == 1 {
			return j, 0, 0
		}
		if r == WidePlaceholder || (r >= 0x1f3fb && r <= 0x1f3ff) || c.RuneWidth(r) != 1 {
			return j, r, size
		}
		prevN = copy(prev[:], p[j:j+size])
		j += size
	}
	return j, 0, 0
}

// step handles one byte in a state other than ground. again means the byte
// was not consumed and must be handled once more in the new state.
func (f *Filter) step(dst []byte, b byte) (out []byte, again bool) {
	switch f.state {
	case stEsc:
		return f.escByte(dst, b)
	case stEscInter:
		return f.escInterByte(dst, b)
	case stCSI:
		return f.csiByte(dst, b), false
	case stOSC:
		return f.oscByte(dst, b), false
	case stOSCEsc:
		dst = f.oscDispatch(dst)
		if b == '\\' {
			f.state = stGround
			return dst, false
		}
		// ESC ended the string; the byte after it starts a new sequence.
		f.state = stEsc
		return dst, true
	case stStr:
		switch b {
		case 0x1b:
			f.state = stStrEsc
		case 0x07, 0x18, 0x1a:
			f.state = stGround
		}
		return dst, false
	case stStrEsc:
		if b == '\\' {
			f.state = stGround
			return dst, false
		}
		f.state = stEsc
		return dst, true
	}
	f.state = stGround
	return dst, true
}

// utf8Byte feeds one byte to the incremental UTF-8 decoder (ground state).
// A byte that cannot continue the pending sequence ends it as U+FFFD and is
// handed back (again) to be handled on its own.
func (f *Filter) utf8Byte(dst []byte, b byte) (out []byte, again bool) {
	if f.un == 0 {
		var need uint8
		switch {
		case b >= 0xc2 && b <= 0xdf:
			need = 2
		case b >= 0xe0 && b <= 0xef:
			need = 3
		case b >= 0xf0 && b <= 0xf4:
			need = 4
		default:
			return f.print(dst, utf8.RuneError), false
		}
		f.u[0] = b
		f.un = 1
		f.uneed = need
		return dst, false
	}
	lo, hi := byte(0x80), byte(0xbf)
	if f.un == 1 {
		switch f.u[0] {
		case 0xe0:
			lo = 0xa0
		case 0xed:
			hi = 0x9f
		case 0xf0:
			lo = 0x90
		case 0xf4:
			hi = 0x8f
		}
	}
	if b < lo || b > hi {
		f.un = 0
		return f.print(dst, utf8.RuneError), true
	}
	f.u[f.un] = b
	f.un++
	if f.un < f.uneed {
		return dst, false
	}
	r, _ := utf8.DecodeRune(f.u[:f.un])
	f.un = 0
	return f.print(dst, r), false
}

// print appends one printable rune (not ASCII control) with its width fixed
// up for vt10x.
func (f *Filter) print(dst []byte, r rune) []byte {
	if r == WidePlaceholder {
		r = utf8.RuneError
	}
	w := f.cond.RuneWidth(r)
	if w == 0 {
		// Combining marks, variation selectors, C1 controls, ZWJ: a
		// real terminal gives them no cell of their own.
		if r == 0x200d {
			f.dropNext = true
		}
		return dst
	}
	if f.dropNext {
		f.dropNext = false
		if r >= 0x80 {
			// The rune a ZWJ joins is drawn in its predecessor's cells.
			return dst
		}
	}
	if r >= 0x1f3fb && r <= 0x1f3ff && f.lastWide {
		// An emoji modifier (skin tone) after an emoji: one grapheme.
		return dst
	}
	dst = utf8.AppendRune(dst, r)
	f.lastRune = r
	f.lastWide = w == 2
	if f.lastWide {
		dst = utf8.AppendRune(dst, WidePlaceholder)
	}
	return dst
}

// control handles a C0 control or DEL in the ground state (and the C0
// controls executed in the middle of an escape sequence).
func (f *Filter) control(dst []byte, b byte) []byte {
	f.dropNext = false
	switch b {
	case '\b', '\t', '\n', '\v', '\f', '\r':
		dst = append(dst, b)
	case 0x1b:
		f.state = stEsc
	case 0x07:
		f.note(Note{Kind: NoteBell})
	}
	// BEL, SO, SI, CAN, SUB, NUL, DEL and the other C0 codes are dropped:
	// vt10x ignores most of them but prints some as glyphs in the DEC
	// graphics charset.
	return dst
}

func (f *Filter) escByte(dst []byte, b byte) (out []byte, again bool) {
	switch {
	case b == 0x1b:
		// ESC ESC: the first one is abandoned.
	case b == 0x18 || b == 0x1a:
		f.state = stGround
	case b < 0x20:
		dst = f.control(dst, b)
	case b == 0x7f:
	case b >= 0x80:
		f.state = stGround
		return dst, true
	case b <= 0x2f:
		f.escInter = b
		f.escInterN = 1
		f.state = stEscInter
	case b == '[':
		f.enterCSI()
	case b == ']':
		f.state = stOSC
		f.osc = f.osc[:0]
		f.oscOver = false
	case b == 'P', b == 'X', b == '^', b == '_', b == 'k':
		// DCS, SOS, PM, APC, and screen's title (which vt10x also
		// treats as a string): ignored up to ST.
		f.state = stStr
	default:
		f.state = stGround
		switch b {
		case 'D', 'E', 'H', 'M', '7', '8', '=', '>':
			dst = append(dst, 0x1b, b)
			if b == '8' {
				f.dimMaybe = true // DECRC restores the saved attributes
			}
		case 'c':
			// RIS: vt10x resets its modes, alternate screen flag included.
			dst = append(dst, 0x1b, b)
			f.modes.BracketedPaste = false
			f.modes.SyncOutput = false
			f.modes.AltScreen = false
			f.modes.AppCursor = false
			f.modes.FocusEvents = false
			f.modes.Mouse = MouseNone
			f.modes.KittyKeys, f.kittyN = 0, 0
			f.modes.CursorShape = 0
			f.dimMaybe = false
		}
		// Anything else (ESC \ alone, SS2/SS3, DECID, ...) is dropped:
		// vt10x has nothing for it, and would print the byte after
		// some of them.
	}
	return dst, false
}

// enterCSI starts collecting a CSI sequence.
func (f *Filter) enterCSI() {
	f.state = stCSI
	f.csiLen = 0
	f.csiBad = false
	f.csiPrefix = 0
	f.csiInterN = 0
	f.csiCur = -1
	f.csiFlag = 0
	f.csiParams = false
	f.pn = 0
}

func (f *Filter) escInterByte(dst []byte, b byte) (out []byte, again bool) {
	switch {
	case b == 0x1b:
		f.state = stEsc
	case b == 0x18 || b == 0x1a:
		f.state = stGround
	case b < 0x20:
		dst = f.control(dst, b)
	case b <= 0x2f:
		if f.escInterN < 255 {
			f.escInterN++
		}
	case b <= 0x7e:
		f.state = stGround
		if f.escInterN == 1 {
			switch {
			case f.escInter == '(':
				// G0 charset: vt10x knows DEC graphics and ASCII.
				dst = append(dst, 0x1b, '(', b)
			case f.escInter == '#' && b == '8':
				dst = append(dst, 0x1b, '#', '8')
			}
		}
		// G1-G3 designations (vt10x would print their final byte),
		// ESC % G and the rest are dropped.
	case b == 0x7f:
	default:
		f.state = stGround
		return dst, true
	}
	return dst, false
}

func (f *Filter) csiByte(dst []byte, b byte) []byte {
	switch {
	case b >= 0x40 && b <= 0x7e:
		f.state = stGround
		if !f.csiBad {
			dst = f.dispatchCSI(dst, b)
		}
	case b >= 0x20 && b <= 0x3f:
		f.csiCollect(b)
	case b == 0x1b:
		f.state = stEsc
	case b == 0x18 || b == 0x1a:
		f.state = stGround
	case b < 0x20:
		dst = f.control(dst, b)
	case b == 0x7f:
	default:
		f.csiBad = true
	}
	return dst
}

// csiScan collects the parameter and intermediate bytes (0x20-0x3f) of a
// CSI sequence starting at p[i], and returns the index of the first other
// byte. It is csiCollect unrolled for speed; both must agree.
func (f *Filter) csiScan(p []byte, i int) int {
	cur, n := f.csiCur, f.csiLen
	for ; i < len(p); i++ {
		c := p[i]
		if c >= '0' && c <= '9' && f.csiInterN == 0 {
			if cur < 0 {
				cur = 0
			}
			if cur = cur*10 + int32(c-'0'); cur > maxParam {
				cur = maxParam
			}
			f.csiParams = true
			n++
			continue
		}
		if c == ';' && f.csiInterN == 0 {
			// pushParam, with the parameter in cur.
			if f.pn == maxParams {
				f.csiBad = true
			} else {
				f.pv[f.pn], f.pf[f.pn] = cur, f.csiFlag
				f.pn++
			}
			cur, f.csiFlag = -1, 0
			f.csiParams = true
			n++
			continue
		}
		if c < 0x20 || c > 0x3f {
			break
		}
		f.csiCur, f.csiLen = cur, n
		f.csiCollect(c)
		cur, n = f.csiCur, f.csiLen
	}
	if n > maxCSILen {
		f.csiBad = true
	}
	f.csiCur, f.csiLen = cur, n
	return i
}

// csiCollect takes one parameter or intermediate byte (0x20-0x3f) of a CSI
// sequence. Parameters are parsed as they come (values saturate at
// maxParam); a parameter byte after an intermediate, a prefix byte after the
// first position, too many parameters or too many bytes make the sequence
// bad (dropped at its final byte).
func (f *Filter) csiCollect(c byte) {
	f.csiLen++
	if f.csiLen > maxCSILen {
		f.csiBad = true
	}
	switch {
	case c <= 0x2f:
		if f.csiInterN == 0 {
			f.csiInter = c
		}
		f.csiInterN++
		return
	case f.csiInterN > 0:
		f.csiBad = true // parameter byte after an intermediate
		return
	case c <= '9':
		if f.csiCur < 0 {
			f.csiCur = 0
		}
		if f.csiCur = f.csiCur*10 + int32(c-'0'); f.csiCur > maxParam {
			f.csiCur = maxParam
		}
		f.csiParams = true
	case c == ';' || c == ':':
		f.csiParams = true
		f.pushParam()
		if c == ':' {
			f.csiFlag = paramSub
		}
	default: // '<' '=' '>' '?'
		if f.csiLen == 1 {
			f.csiPrefix = c
		} else {
			f.csiBad = true
		}
	}
}

// pushParam ends the parameter being read.
func (f *Filter) pushParam() {
	if f.pn == maxParams {
		f.csiBad = true
	} else {
		f.pv[f.pn], f.pf[f.pn] = f.csiCur, f.csiFlag
		f.pn++
	}
	f.csiCur, f.csiFlag = -1, 0
}

// param returns main parameter i (sub-parameters not counted) or -1.
func (f *Filter) param(i int) int32 {
	for k := 0; k < f.pn; k++ {
		if f.pf[k]&paramSub != 0 {
			continue
		}
		if i == 0 {
			return f.pv[k]
		}
		i--
	}
	return -1
}

// onlyDefault reports whether the sequence has no parameter but an empty or
// zero first one.
func (f *Filter) onlyDefault() bool {
	return f.pn == 0 || (f.pn == 1 && f.pv[0] <= 0)
}

func (f *Filter) addReply(s string) {
	f.reply = append(f.reply, s...)
	f.replied = true
}

func (f *Filter) dispatchCSI(dst []byte, final byte) []byte {
	if f.csiParams {
		f.pushParam()
		if f.csiBad {
			return dst
		}
	}
	prefix := f.csiPrefix
	if f.csiInterN > 0 {
		// Only DECRQM is understood; every other sequence with an
		// intermediate (DECSCUSR, DECSTR, '-' counts, ...) is dropped,
		// since vt10x ignores intermediates and would run the final.
		if f.csiInterN == 1 && f.csiInter == '$' && final == 'p' && (prefix == 0 || prefix == '?') && f.pn >= 1 {
			f.replyDECRQM(prefix == '?')
		}
		if f.csiInterN == 1 && f.csiInter == ' ' && final == 'q' && prefix == 0 {
			// DECSCUSR: tracked for the person's cursor, not passed on.
			if v := f.param(0); v <= 6 {
				f.modes.CursorShape = uint8(max(v, 0))
			}
		}
		return dst
	}
	switch prefix {
	case 0:
		return f.csiPlain(dst, final, f.csiParams)
	case '?':
		switch final {
		case 'h', 'l':
			return f.decset(dst, final == 'h')
		case 'J', 'K':
			// DECSED/DECSEL: erase (vt10x ignores the '?' here).
			return f.emitCSI(dst, final, 0)
		}
		// ?u (kitty query), ?m, ?s, ?r, ?n, ...: dropped.
		return dst
	case '>':
		if final == 'c' && f.onlyDefault() {
			f.addReply(replyDA2)
		}
		if final == 'u' {
			f.kittyPush(uint8(max(f.param(0), 0)))
		}
		// XTVERSION (>q), kitty push (>u), modifyOtherKeys (>m), ...:
		// dropped without an answer (kitty pushes are tracked).
		return dst
	case '<':
		if final == 'u' {
			f.kittyPop(int(max(f.param(0), 1)))
		}
		return dst
	case '=':
		if final == 'u' {
			f.kittySet(uint8(max(f.param(0), 0)), f.param(1))
		}
	}
	// Other '<' and '=' sequences are dropped.
	return dst
}

// kittyPush pushes flags on the kitty keyboard stack (CSI > flags u).
func (f *Filter) kittyPush(flags uint8) {
	if f.kittyN == maxKittyStack {
		copy(f.kitty[:], f.kitty[1:])
		f.kittyN--
	}
	f.kitty[f.kittyN] = f.modes.KittyKeys
	f.kittyN++
	f.modes.KittyKeys = flags & 31
}

// kittyPop pops n entries (CSI < n u); popping past the bottom resets.
func (f *Filter) kittyPop(n int) {
	for ; n > 0; n-- {
		if f.kittyN == 0 {
			f.modes.KittyKeys = 0
			return
		}
		f.kittyN--
		f.modes.KittyKeys = f.kitty[f.kittyN]
	}
}

// kittySet changes the flags in effect (CSI = flags ; mode u): mode 1 (the
// default) sets them, 2 adds them, 3 removes them.
func (f *Filter) kittySet(flags uint8, mode int32) {
	flags &= 31
	switch mode {
	case 2:
		f.modes.KittyKeys |= flags
	case 3:
		f.modes.KittyKeys &^= flags
	default:
		f.modes.KittyKeys = flags
	}
}

// csiPlain handles a CSI sequence without prefix or intermediates.
func (f *Filter) csiPlain(dst []byte, final byte, hasParams bool) []byte {
	switch final {
	case 'c':
		if f.onlyDefault() {
			f.addReply(replyDA1)
		}
		return dst
	case 'u', 's':
		// With parameters these are kitty keyboard sets and DECSLRM,
		// which vt10x would run as restore/save cursor.
		if !hasParams {
			dst = append(dst, 0x1b, '[', final)
			if final == 'u' {
				f.dimMaybe = true
			}
		}
		return dst
	case 'm':
		return f.sgr(dst)
	case 'b':
		return f.rep(dst)
	case 'r':
		dst = append(dst, 0x1b, '[')
		if f.pn > 0 {
			top := f.param(0)
			if top < 1 {
				top = 1
			}
			dst = appendInt(dst, top)
			if bottom := f.param(1); bottom > 0 {
				dst = append(dst, ';')
				dst = appendInt(dst, bottom)
			}
		}
		return append(dst, 'r')
	case '@', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'L', 'M', 'P',
		'S', 'T', 'X', 'Z', 'a', 'd', 'e', 'f', '`':
		// Counts and positions: empty and 0 mean 1 (vt10x takes 0
		// literally for some, e.g. CSI 0 X erases the cell to the left).
		return f.emitCSI(dst, final, 1)
	case 'J', 'K', 'g', 'n', 'h', 'l':
		return f.emitCSI(dst, final, 0)
	}
	// Everything vt10x does not know (t, q, x, p, ...) is dropped.
	return dst
}

// emitCSI appends ESC [ main-params final, empty parameters (and zeros when
// def is 1) replaced by def, sub-parameters dropped.
func (f *Filter) emitCSI(dst []byte, final byte, def int32) []byte {
	dst = append(dst, 0x1b, '[')
	first := true
	for i := 0; i < f.pn; i++ {
		if f.pf[i]&paramSub != 0 {
			continue
		}
		v := f.pv[i]
		if v < 0 || (v == 0 && def == 1) {
			v = def
		}
		if !first {
			dst = append(dst, ';')
		}
		first = false
		dst = appendInt(dst, v)
	}
	return append(dst, final)
}

// decset tracks DEC private modes and passes on the ones vt10x handles,
// minus a reset of the alternate screen while it is not shown (vt10x would
// switch to it).
func (f *Filter) decset(dst []byte, set bool) []byte {
	start := len(dst)
	dst = append(dst, 0x1b, '[', '?')
	n := 0
	for i := 0; i < f.pn; i++ {
		if f.pf[i]&paramSub != 0 {
			continue
		}
		v := f.pv[i]
		if v < 0 {
			v = 0
		}
		pass := false
		switch v {
		case 1:
			f.modes.AppCursor = set
			pass = true
		case 9, 1000, 1002, 1003:
			f.modes.Mouse &^= mouseTrackMask
			if set {
				switch v {
				case 9:
					f.modes.Mouse |= MouseX10
				case 1000:
					f.modes.Mouse |= MouseButton
				case 1002:
					f.modes.Mouse |= MouseDrag
				default:
					f.modes.Mouse |= MouseAny
				}
			}
			pass = true
		case 1006:
			f.modes.Mouse = setFlag(f.modes.Mouse, MouseSGR, set)
			pass = true
		case 1015:
			f.modes.Mouse = setFlag(f.modes.Mouse, MouseURXVT, set)
		case 1004:
			f.modes.FocusEvents = set
			pass = true
		case 2004:
			f.modes.BracketedPaste = set
		case 2026:
			f.modes.SyncOutput = set
		case 47, 1047, 1049:
			if set || f.modes.AltScreen {
				f.modes.AltScreen = set
				pass = true
				if v == 1049 && !set {
					f.dimMaybe = true
				}
			}
		case 5, 6, 7, 25, 1048:
			pass = true
			if v == 1048 && !set {
				f.dimMaybe = true
			}
		}
		if pass {
			if n > 0 {
				dst = append(dst, ';')
			}
			dst = appendInt(dst, v)
			n++
		}
	}
	if n == 0 {
		return dst[:start]
	}
	if set {
		return append(dst, 'h')
	}
	return append(dst, 'l')
}

func setFlag(m, flag MouseMode, on bool) MouseMode {
	if on {
		return m | flag
	}
	return m &^ flag
}

// replyDECRQM answers CSI ? Ps $ p (private) or CSI Ps $ p (ANSI).
func (f *Filter) replyDECRQM(private bool) {
	ps := f.pv[0]
	if ps < 0 {
		ps = 0
	}
	state := int32(0) // not recognised
	if private {
		switch ps {
		case 2004:
			state = 2
			if f.modes.BracketedPaste {
				state = 1
			}
		case 2026:
			state = 2
			if f.modes.SyncOutput {
				state = 1
			}
		}
	}
	f.reply = append(f.reply, 0x1b, '[')
	if private {
		f.reply = append(f.reply, '?')
	}
	f.reply = appendInt(f.reply, ps)
	f.reply = append(f.reply, ';')
	f.reply = appendInt(f.reply, state)
	f.reply = append(f.reply, '$', 'y')
	f.replied = true
}

// sgr rebuilds an SGR sequence in the form vt10x understands: colon
// sub-parameters become the semicolon form, truecolour with r=g=0 gets g=1
// (vt10x would store it as a palette index), underline colour (58) goes, and
// dim (2, which vt10x ignores) is carried by vt10x's blink bit: 2 becomes 5,
// 22 becomes 22;25 while dim may be on, and real blink (5, 6, 25) is dropped.
func (f *Filter) sgr(dst []byte) []byte {
	if f.pn == 0 {
		f.dimMaybe = false
		return append(dst, 0x1b, '[', 'm')
	}
	start := len(dst)
	dst = append(dst, 0x1b, '[')
	f.sgrSeq = start
	f.sgrN = 0
	for i := 0; i < f.pn; {
		v := f.pv[i]
		if v < 0 {
			v = 0
		}
		j := i + 1
		for j < f.pn && f.pf[j]&paramSub != 0 {
			j++
		}
		next := j
		switch v {
		case 38, 48, 58:
			var mode, a, g, b int32 = -1, -1, -1, -1
			if j > i+1 { // colon form: 38:5:n, 38:2::r:g:b, 38:2:r:g:b
				mode = f.sub(i+1, j)
				switch mode {
				case 5:
					a = f.sub(i+2, j)
				case 2:
					k := i + 2
					if j-i >= 6 {
						k = i + 3 // colour space id present
					}
					a, g, b = f.sub(k, j), f.sub(k+1, j), f.sub(k+2, j)
				}
			} else { // semicolon form
				mode = f.sub(i+1, f.pn)
				switch mode {
				case 5:
					a = f.sub(i+2, f.pn)
					next = i + 3
				case 2:
					a, g, b = f.sub(i+2, f.pn), f.sub(i+3, f.pn), f.sub(i+4, f.pn)
					next = i + 5
				}
				if next > f.pn {
					next = f.pn
				}
			}
			if v == 58 {
				break
			}
			switch {
			case mode == 5 && a >= 0 && a <= 255:
				dst = f.sgrStart(dst)
				dst = appendInt(dst, v)
				dst = append(dst, ';', '5', ';')
				dst = appendInt(dst, a)
			case mode == 2 && a >= 0 && a <= 255 && g >= 0 && g <= 255 && b >= 0 && b <= 255:
				if a == 0 && g == 0 {
					g = 1
				}
				dst = f.sgrStart(dst)
				dst = appendInt(dst, v)
				dst = append(dst, ';', '2', ';')
				dst = appendInt(dst, a)
				dst = append(dst, ';')
				dst = appendInt(dst, g)
				dst = append(dst, ';')
				dst = appendInt(dst, b)
			}
		case 0:
			f.dimMaybe = false
			dst = f.sgrStart(dst)
			dst = append(dst, '0')
		case 2:
			f.dimMaybe = true
			dst = f.sgrStart(dst)
			dst = append(dst, '5')
		case 5, 6, 25:
		case 22:
			dst = f.sgrStart(dst)
			if f.dimMaybe {
				dst = append(dst, '2', '2', ';', '2', '5')
				f.dimMaybe = false
			} else {
				dst = append(dst, '2', '2')
			}
		case 4:
			dst = f.sgrStart(dst)
			if j > i+1 && f.pv[i+1] == 0 {
				dst = append(dst, '2', '4') // 4:0 is "no underline"
			} else {
				dst = append(dst, '4')
			}
		default:
			dst = f.sgrStart(dst)
			dst = appendInt(dst, v)
		}
		i = next
	}
	if f.sgrN == 0 {
		return dst[:start]
	}
	return append(dst, 'm')
}

// sub returns parameter k if k < end, as a value >= 0, or -1.
func (f *Filter) sub(k, end int) int32 {
	if k >= end {
		return -1
	}
	if v := f.pv[k]; v > 0 {
		return v
	}
	return 0
}

// sgrStart begins one attribute group in the SGR being rebuilt, closing the
// sequence and opening a new one when it grows long.
func (f *Filter) sgrStart(dst []byte) []byte {
	if f.sgrN > 0 {
		if len(dst)-f.sgrSeq > sgrSplit {
			dst = append(dst, 'm', 0x1b, '[')
			f.sgrSeq = len(dst) - 2
			f.sgrN = 0
		} else {
			dst = append(dst, ';')
		}
	}
	f.sgrN++
	return dst
}

// rep expands REP (CSI Ps b), which vt10x does not know, by repeating the last
// printed rune.
func (f *Filter) rep(dst []byte) []byte {
	if f.lastRune == 0 {
		return dst
	}
	n := f.param(0)
	if n < 1 {
		n = 1
	}
	if n > maxRepeat {
		n = maxRepeat
	}
	for ; n > 0; n-- {
		dst = utf8.AppendRune(dst, f.lastRune)
		if f.lastWide {
			dst = utf8.AppendRune(dst, WidePlaceholder)
		}
	}
	return dst
}

func (f *Filter) oscByte(dst []byte, b byte) []byte {
	switch {
	case b == 0x07:
		f.state = stGround
		return f.oscDispatch(dst)
	case b == 0x1b:
		f.state = stOSCEsc
	case b == 0x18 || b == 0x1a:
		f.state = stGround
	case b < 0x20:
		// C0 controls inside a string are ignored.
	case len(f.osc) < maxStringLen:
		f.osc = append(f.osc, b)
	default:
		f.oscOver = true // dropped whole at its end
	}
	return dst
}

// oscDispatch acts on a complete OSC: 0/2 set the title (and are passed on),
// 7501 sets OSCState, 10/11 queries are answered; everything else (colour
// sets, OSC 4/8/52/133, ...) is dropped.
func (f *Filter) oscDispatch(dst []byte) []byte {
	buf := f.osc
	if cap(f.osc) > oscKeep {
		f.osc = nil // a long string's buffer is not kept for the next title
	}
	if f.oscOver {
		return dst
	}
	k, num := 0, 0
	for k < len(buf) && buf[k] >= '0' && buf[k] <= '9' {
		if num < 100000 {
			num = num*10 + int(buf[k]-'0')
		}
		k++
	}
	if k == 0 {
		return dst
	}
	var arg []byte
	if k < len(buf) {
		if buf[k] != ';' {
			return dst
		}
		arg = buf[k+1:]
	}
	switch num {
	case 0, 2:
		if string(arg) != f.modes.Title {
			f.modes.Title = cleanString(arg)
		}
		dst = append(dst, 0x1b, ']', '2', ';')
		dst = append(dst, f.modes.Title...)
		dst = append(dst, 0x07)
	case 10:
		if string(arg) == "?" {
			f.addReply(replyOSC10)
		}
	case 11:
		if string(arg) == "?" {
			f.addReply(replyOSC11)
		}
	case 7501:
		if v, ok := oscField(arg, "state="); ok && string(v) != f.modes.OSCState {
			f.modes.OSCState = cleanString(v)
		}
	case 9, 777, 99:
		f.oscNote(num, arg)
	}
	return dst
}

// oscField returns the value of the first ':'- or ';'-separated field of arg
// that starts with key.
func oscField(arg []byte, key string) ([]byte, bool) {
	for len(arg) > 0 {
		end := 0
		for end < len(arg) && arg[end] != ':' && arg[end] != ';' {
			end++
		}
		field := arg[:end]
		if len(field) >= len(key) && string(field[:len(key)]) == key {
			return field[len(key):], true
		}
		if end == len(arg) {
			break
		}
		arg = arg[end+1:]
	}
	return nil, false
}

// cleanString returns b as valid UTF-8 without WidePlaceholder (control
// bytes never reach an OSC payload).
func cleanString(b []byte) string {
	s := string(b)
	for _, r := range s {
		if r == utf8.RuneError || r == WidePlaceholder {
			out := make([]rune, 0, len(s))
			for _, r := range s { // invalid bytes range as RuneError
				if r == WidePlaceholder {
					r = utf8.RuneError
				}
				out = append(out, r)
			}
			return string(out)
		}
	}
	return s
}

// appendInt appends the decimal form of v >= 0.
func appendInt(dst []byte, v int32) []byte {
	switch {
	case v < 10:
		return append(dst, byte('0'+v))
	case v < 100:
		return append(dst, byte('0'+v/10), byte('0'+v%10))
	case v < 1000:
		return append(dst, byte('0'+v/100), byte('0'+v/10%10), byte('0'+v%10))
	}
	var buf [10]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[i:]...)
}
