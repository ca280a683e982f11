package pool

// history_capture.go feeds a History from a Screen. vt10x keeps no
// scrollback: a line scrolled off the top of its screen is cleared in place.
// So the Filter's output is scanned on its way into vt10x, and just before an
// operation that will scroll the main screen's top row away, that row is
// copied out.
//
// What scrolls the top row away (vt10x's own rules): a line feed (LF, VT,
// FF), IND (ESC D) or NEL (ESC E) with the cursor on the scroll region's
// bottom row; a rune written with a wrap pending on that row (autowrap); and
// SU (CSI n S). These feed history when the main screen is shown and the
// scroll region starts at row 0 (full screen, or a region with a status area
// below it, as in xterm); a region starting lower scrolls a part of the screen
// only, and the alternate screen never feeds history. A resize that shrinks
// the screen above the cursor slides its top rows away: they are captured
// too (Screen.Resize). Deleting lines (CSI M), erasing and clearing the
// screen are not scrolling and add nothing.
//
// Cost: the scan reads each byte once and does a few comparisons; vt10x's
// cursor is consulted (a separate vt10x write up to that point) only when an
// operation could scroll and the scan no longer knows where the cursor is
// (after a cursor movement it does not follow), or when the cursor is on the
// bottom row. Text, carriage returns, backspaces and SGR are followed without
// asking vt10x. While capture cannot apply (alternate screen, region not at
// row 0) only ESC is looked for.

import (
	"bytes"
	"strings"
	"time"

	"github.com/hinshun/vt10x"
)

// capture is a Screen's history feed: the History, and what the scan knows
// of vt10x's state between two writes. It is guarded by the Screen's mutex.
type capture struct {
	h   *History
	now func() time.Time

	top, bottom int  // vt10x's scroll region (tracked from the stream)
	alt         bool // the alternate screen is shown

	known    bool // x, y, wrapNext are vt10x's cursor
	x, y     int
	wrapNext bool
	autowrap bool // DECAWM, as of the last sync
	crlf     bool // LNM, as of the last sync
	origin   bool // DECOM, as of the last sync
	retired  bool // the final screen went into history (retireHistory)
	// alwaysSync asks vt10x at every step instead of following the cursor
	// (tests check the scan against it).
	alwaysSync bool

	row []Cell // scratch: one row read out of vt10x
	rec []byte // scratch: its encoding

	// main is a copy of the main screen's rows (AppendLine form) taken
	// when the alternate screen was shown: vt10x gives no access to them
	// while it is, yet slides them on a resize (captureResize) and keeps
	// them when the output ends (retireHistory).
	main [][]byte
}

// CaptureHistory makes s append to h every line that leaves the top of its
// main screen, from now on (see the file comment above for exactly which).
// now stamps each line (nil means time.Now). Call it before the Screen is
// shared with other goroutines (before the first Feed): History reads what
// it sets without taking the Screen's lock.
func (s *Screen) CaptureHistory(h *History, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist = &capture{h: h, now: now, bottom: s.rows - 1, alt: s.vt.Mode()&vt10x.ModeAltScreen != 0}
}

// History returns the History s feeds, or nil. It does not wait for the
// Screen's lock (a Feed may hold it for a while): a view calls it per frame.
func (s *Screen) History() *History {
	if s.hist == nil {
		return nil
	}
	return s.hist.h
}

// vt10x's unexported cursor state bit for origin mode (DECOM).
const vtCursorOrigin = 1 << 2

// moveTo follows vt10x's moveTo: the cursor clamped to the screen (to the
// scroll region in origin mode), the pending wrap cleared.
func (c *capture) moveTo(s *Screen, x, y int) {
	miny, maxy := 0, s.rows-1
	if c.origin {
		miny, maxy = c.top, c.bottom
	}
	c.x, c.y, c.wrapNext = clampInt(x, 0, s.cols-1), clampInt(y, miny, maxy), false
}

// active reports whether a scroll now would feed history.
func (c *capture) active() bool { return !c.alt && c.top == 0 }

// vtRaw is vt10x's Write (Screen.vtWrite contains its panics).
func (s *Screen) vtRaw(b []byte) {
	if len(b) > 0 {
		_, _ = s.vt.Write(b)
	}
}

// sync reads vt10x's cursor and modes into c.
func (c *capture) sync(s *Screen) {
	cur := s.vt.Cursor()
	m := s.vt.Mode()
	c.x, c.y, c.wrapNext = cur.X, cur.Y, cur.State&vtCursorWrapNext != 0
	c.origin = cur.State&vtCursorOrigin != 0
	c.autowrap, c.crlf, c.alt = m&vt10x.ModeWrap != 0, m&vt10x.ModeCRLF != 0, m&vt10x.ModeAltScreen != 0
	c.known = true
}

// captureWrite writes b, complete runes and sequences from the Filter, to
// vt10x, copying each row that is about to scroll off into the History.
func (s *Screen) captureWrite(b []byte) {
	c := s.hist
	pend := 0 // b[pend:i] is not written yet
	for i := 0; i < len(b); {
		if !c.active() {
			k := bytes.IndexByte(b[i:], 0x1b)
			if k < 0 {
				break
			}
			i = s.captureEsc(b, i+k, &pend)
			continue
		}
		if c.alwaysSync && c.known {
			s.vtRaw(b[pend:i])
			pend = i
			c.known = false
		}
		switch ch := b[i]; {
		case ch >= 0x20:
			j, n := i+1, 1
			for j < len(b) && b[j] >= 0x20 {
				if b[j]&0xc0 != 0x80 {
					n++
				}
				j++
			}
			if !c.text(n, s.cols) {
				s.vtRaw(b[pend:i])
				s.captureText(b[i:j], n)
				pend = j
			}
			i = j
		case ch == '\n' || ch == '\v' || ch == '\f':
			s.captureLF(b, i, &pend, lfPlain)
			i++
		case ch == '\r':
			c.x, c.wrapNext = 0, false
			i++
		case ch == '\b':
			c.x, c.wrapNext = max(c.x-1, 0), false
			i++
		case ch == 0x1b:
			i = s.captureEsc(b, i, &pend)
		default: // HT: tab stops are not followed
			c.known = false
			i++
		}
	}
	s.vtRaw(b[pend:])
}

// text follows n runes of text written at the known cursor and reports
// whether that was possible without asking vt10x (no wrap can scroll).
func (c *capture) text(n, cols int) bool {
	switch {
	case !c.known:
		return false
	case !c.autowrap:
		c.wrapNext = c.wrapNext || c.x+n >= cols
		c.x = min(c.x+n, cols-1)
		return true
	case c.wrapNext:
		return false
	case c.x+n < cols:
		c.x += n
		return true
	case c.x+n == cols:
		c.x, c.wrapNext = cols-1, true
		return true
	}
	return false
}

// captureText writes t, n runes of text, whose wrapping may scroll: it is
// cut where a wrap on the region's bottom row scrolls, and the top row is
// captured at each cut.
func (s *Screen) captureText(t []byte, n int) {
	c := s.hist
	c.sync(s)
	if !c.active() || !c.autowrap || c.y > c.bottom {
		s.vtRaw(t)
		c.known = false
		return
	}
	// Runes that fit before the first wrap on the bottom row.
	avail := (c.bottom - c.y) * s.cols
	if !c.wrapNext {
		avail += s.cols - c.x
	}
	for n > avail {
		k := runeOffset(t, avail)
		s.vtRaw(t[:k])
		t, n = t[k:], n-avail
		c.captureRows(s, 1)
		avail = s.cols // the next rune scrolls, then the row takes cols runes
	}
	s.vtRaw(t)
	c.sync(s)
}

// runeOffset returns the byte offset of rune n in t.
func runeOffset(t []byte, n int) int {
	for i := range t {
		if t[i]&0xc0 != 0x80 {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return len(t)
}

// Line feed kinds: LF/VT/FF (to column 0 only in LNM mode), IND (column
// kept), NEL (column 0).
const (
	lfPlain = iota
	lfIndex
	lfNextLine
)

// captureLF handles a line feed at b[i]: if the cursor is on the region's
// bottom row, what is written so far goes to vt10x and the top row into the
// history before the line feed scrolls it away.
func (s *Screen) captureLF(b []byte, i int, pend *int, kind int) {
	c := s.hist
	if !c.known {
		s.vtRaw(b[*pend:i])
		*pend = i
		c.sync(s)
		if !c.active() {
			c.known = false
			return
		}
	}
	if c.y == c.bottom {
		s.vtRaw(b[*pend:i])
		*pend = i
		c.captureRows(s, 1)
		if kind == lfIndex {
			// vt10x's IND on the bottom row scrolls and leaves the
			// cursor alone, a pending wrap included.
			return
		}
	} else {
		c.y = min(c.y+1, s.rows-1)
	}
	if kind == lfNextLine || (kind == lfPlain && c.crlf) {
		c.x = 0
	}
	c.wrapNext = false
}

// maxScanParams bounds the parameters captureEsc reads (the Filter sends at
// most 48; the ones that matter come first).
const maxScanParams = 16

// captureEsc handles the sequence starting at b[i] (ESC) and returns the
// index after it. The Filter sends only complete sequences, in the forms
// listed on Filter.
func (s *Screen) captureEsc(b []byte, i int, pend *int) int {
	c := s.hist
	if i+1 >= len(b) {
		return len(b)
	}
	switch b[i+1] {
	case '[':
		return s.captureCSI(b, i, pend)
	case ']': // OSC 2 title, ended by BEL
		if k := bytes.IndexByte(b[i:], 0x07); k >= 0 {
			return i + k + 1
		}
		return len(b)
	case '(', '#':
		return min(i+3, len(b))
	case 'D', 'E':
		if c.active() {
			kind := lfIndex
			if b[i+1] == 'E' {
				kind = lfNextLine
			}
			s.captureLF(b, i, pend, kind)
		}
	case 'c': // RIS
		c.top, c.bottom, c.alt, c.known = 0, s.rows-1, false, false
		c.main = c.main[:0]
	case 'M', '8': // RI, DECRC
		c.known = false
	}
	return i + 2
}

// captureCSI handles the CSI sequence at b[i].
func (s *Screen) captureCSI(b []byte, i int, pend *int) int {
	c := s.hist
	j := i + 2
	priv := j < len(b) && b[j] == '?'
	if priv {
		j++
	}
	var p [maxScanParams]int
	np, cur, has := 0, 0, false
	for ; j < len(b); j++ {
		ch := b[j]
		if ch >= '0' && ch <= '9' {
			cur, has = cur*10+int(ch-'0'), true
			continue
		}
		if ch == ';' {
			if np < len(p) {
				p[np] = cur
				np++
			}
			cur, has = 0, false
			continue
		}
		break
	}
	if has && np < len(p) {
		p[np] = cur
		np++
	}
	if j >= len(b) {
		return len(b)
	}
	final := b[j]
	end := j + 1
	switch {
	case priv && (final == 'h' || final == 'l'):
		for _, v := range p[:np] {
			switch v {
			case 47, 1047, 1049:
				if final == 'h' && !c.alt {
					s.vtRaw(b[*pend:i])
					*pend = i
					c.copyMain(s)
				}
				if final == 'l' {
					c.main = c.main[:0]
				}
				c.alt, c.known = final == 'h', false
			case 6, 7, 1048:
				c.known = false
			}
		}
	case priv:
	case final == 'S':
		if c.active() {
			n := 1
			if np > 0 && p[0] > 0 {
				n = p[0]
			}
			s.vtRaw(b[*pend:i])
			*pend = i
			c.captureRows(s, min(n, c.bottom-c.top+1))
		}
	case final == 'r':
		top, bottom := 1, s.rows
		if np > 0 && p[0] > 0 {
			top = p[0]
		}
		if np > 1 && p[1] > 0 {
			bottom = p[1]
		}
		top, bottom = clampInt(top-1, 0, s.rows-1), clampInt(bottom-1, 0, s.rows-1)
		if top > bottom {
			top, bottom = bottom, top
		}
		c.top, c.bottom, c.known = top, bottom, false
	case final == 'm' || final == 'K' || final == 'J' || final == 'X' || final == '@' ||
		final == 'P' || final == 'L' || final == 'M' || final == 'T' || final == 'g' || final == 'n':
		// Attributes, erasing, inserting and deleting: the cursor stays.
	case c.known && strings.IndexByte("ABeCaDEFG`Hfd", final) >= 0:
		// Cursor movements (the Filter sends counts and positions >= 1).
		n := 1
		if np > 0 && p[0] > 0 {
			n = p[0]
		}
		switch final {
		case 'A':
			c.moveTo(s, c.x, c.y-n)
		case 'B', 'e':
			c.moveTo(s, c.x, c.y+n)
		case 'C', 'a':
			c.moveTo(s, c.x+n, c.y)
		case 'D':
			c.moveTo(s, c.x-n, c.y)
		case 'E':
			c.moveTo(s, 0, c.y+n)
		case 'F':
			c.moveTo(s, 0, c.y-n)
		case 'G', '`':
			c.moveTo(s, n-1, c.y)
		case 'd':
			c.moveTo(s, c.x, c.abs(n-1))
		default: // H, f
			col := 1
			if np > 1 && p[1] > 0 {
				col = p[1]
			}
			c.moveTo(s, col-1, c.abs(n-1))
		}
	default:
		c.known = false
	}
	return end
}

// abs is vt10x's moveAbsTo row: relative to the region in origin mode.
func (c *capture) abs(y int) int {
	if c.origin {
		return y + c.top
	}
	return y
}

// captureRows copies rows 0..n-1 of the screen into the History.
func (c *capture) captureRows(s *Screen, n int) {
	at := c.now().UnixMilli()
	if cap(c.row) < s.cols {
		c.row = make([]Cell, s.cols)
	}
	row := c.row[:s.cols]
	for y := 0; y < n && y < s.rows; y++ {
		c.readRow(s, y, row)
		c.rec = AppendLine(c.rec[:0], row)
		c.h.appendLine(at, c.rec)
	}
}

// readRow copies row y into row as Snapshot does (setCell, then
// normaliseWide when a wide rune or placeholder is in it), converting each
// run of one style once.
func (c *capture) readRow(s *Screen, y int, row []Cell) {
	var last vt10x.Glyph
	wide := false
	for x := range row {
		g := s.vt.Cell(x, y)
		cell := &row[x]
		if x > 0 && g.Mode == last.Mode && g.FG == last.FG && g.BG == last.BG {
			*cell = row[x-1]
			cell.Rune, cell.Width = g.Char, 1
			if g.Char == 0 {
				cell.Rune = ' '
			}
		} else {
			setCell(cell, g)
			last = g
		}
		if g.Char >= 0x1100 {
			wide = true
		}
	}
	if wide {
		s.normaliseWide(row)
	}
}

// captureResize captures the rows vt10x will slide off the top of the main
// screen when it shrinks to cols×rows (it keeps the cursor's row on screen),
// and resets what the scan knows: vt10x resets the scroll region on a
// resize. While the alternate screen is shown, vt10x slides the hidden main
// screen by the alternate cursor's row: those rows come from the copy taken
// when it was shown, which is slid and cut to the new size like vt10x's.
func (s *Screen) captureResize(cols, rows int) {
	c := s.hist
	if c == nil {
		return
	}
	slide := s.vt.Cursor().Y - rows + 1
	switch {
	case s.vt.Mode()&vt10x.ModeAltScreen == 0:
		if slide > 0 {
			c.captureRows(s, slide)
		}
	case len(c.main) > 0:
		at := c.now().UnixMilli()
		if slide > 0 {
			slide = min(slide, len(c.main))
			for _, rec := range c.main[:slide] {
				c.h.appendLine(at, rec)
			}
			c.main = c.main[slide:]
		}
		c.main = c.main[:min(len(c.main), rows)]
		if cols < s.cols {
			for i, rec := range c.main {
				c.row, _ = DecodeLine(rec, c.row[:0])
				if len(c.row) > cols {
					c.main[i] = AppendLine(nil, c.row[:cols])
				}
			}
		}
	}
	c.top, c.bottom, c.known = 0, rows-1, false
}

// copyMain copies the main screen's rows into c.main (it is about to be
// hidden by the alternate screen).
func (c *capture) copyMain(s *Screen) {
	c.main = c.main[:0]
	if cap(c.row) < s.cols {
		c.row = make([]Cell, s.cols)
	}
	row := c.row[:s.cols]
	for y := 0; y < s.rows; y++ {
		c.readRow(s, y, row)
		c.main = append(c.main, AppendLine(nil, row))
	}
}

// retireHistory moves the main screen's rows, down to the last one not
// blank, into the history: called once the agent's output has ended, so the
// last screen survives the agent (and a restart of the office). The screen
// still shows them; SnapshotAfterHistory then reports it as not live.
func (s *Screen) retireHistory() {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.hist
	if c == nil || c.retired {
		return
	}
	c.retired = true
	if s.vt.Mode()&vt10x.ModeAltScreen != 0 {
		// The main screen is hidden: its rows as they were when hidden.
		main := c.main
		for len(main) > 0 && len(main[len(main)-1]) == 0 {
			main = main[:len(main)-1]
		}
		at := c.now().UnixMilli()
		for _, rec := range main {
			c.h.appendLine(at, rec)
		}
		return
	}
	last := -1
	for y := 0; y < s.rows; y++ {
		for x := 0; x < s.cols; x++ {
			if g := s.vt.Cell(x, y); (g.Char != ' ' && g.Char != 0) || g.BG != vt10x.DefaultBG {
				last = y
				break
			}
		}
	}
	c.captureRows(s, last+1)
}

// SnapshotAfterHistory copies the screen into dst (as Snapshot) together with
// the history's total at that moment, so that the history's lines before
// total followed by the screen's rows are the agent's output with nothing
// doubled or missing. live is false when there is no history, or the screen
// has been retired into it (the agent's output ended): then the screen's rows
// are already its last lines.
func (s *Screen) SnapshotAfterHistory(dst *Snapshot) (total int64, live bool) {
	h := s.History()
	if h == nil {
		s.Snapshot(dst)
		return 0, false
	}
	// A line scrolling off (or the screen retiring) between reading total
	// and copying the screen would be counted twice or not at all: retry
	// until neither moved.
	retired := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.hist.retired
	}
	for try := 0; ; try++ {
		r1 := retired()
		_, t1 := h.Bounds()
		s.Snapshot(dst)
		_, total = h.Bounds()
		r2 := retired()
		if (t1 == total && r1 == r2) || try == 8 {
			return total, !r2
		}
	}
}

// History returns the History the terminal feeds (Options.History), or nil.
func (t *Terminal) History() *History { return t.screen.History() }

// SnapshotAfterHistory is Screen.SnapshotAfterHistory of the terminal's screen.
func (t *Terminal) SnapshotAfterHistory(dst *Snapshot) (total int64, live bool) {
	return t.screen.SnapshotAfterHistory(dst)
}
