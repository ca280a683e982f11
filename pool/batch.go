package pool

// batch.go: what the Filter's output costs vt10x. vt10x allocates twice for
// every rune it parses, text and escape sequences alike (the arguments of a
// debug log it never writes), so its cost is the number of runes it is fed.
// Agent CLIs redraw far more than they change: Ink erases its live region
// and writes it again every frame, a full-screen TUI addresses, erases and
// recolours every row of every frame, and most rows come out as they were.
//
// So the Screen does not hand such output to vt10x as it comes. It follows
// the common operations itself, on a copy of the rows they touch (the
// batch): text, SGR, cursor movement (CUP, CUU … VPA, CR, BS, and a line
// feed that does not scroll), erasing (EL, ED, ECH). At the end of each
// Filter output, or before anything it does not follow, it compares the
// copy with vt10x's cells and writes to vt10x only the cells that differ
// (positioned, in their attributes), then the cursor's final position and
// attributes. Everything else (scrolling, modes, OSC, tabs, ESC sequences,
// a wrap, the charset) goes to vt10x as before, after the batch so far is
// written: the screen, the cursor and its attributes end exactly where
// vt10x fed the whole output would leave them (TestBatchMatchesVT10x on the
// benchmark's streams, FuzzBatchMatchesVT10x on any). The semantics
// followed are vt10x's own (its clear, moveTo, setChar and setAttr), bugs
// included, not a terminal's.

import (
	"reflect"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/hinshun/vt10x"
)

// More of vt10x's glyph mode bits (snapshot.go has the others).
const (
	vtAttrGfx = 1 << 3
	// vtAttrSettable are the bits SGR sets and clears.
	vtAttrSettable = vtAttrReverse | vtAttrUnderline | vtAttrBold | vtAttrItalic | vtAttrBlink
)

// Kinds of batch cells.
const (
	cellVT      uint8 = iota // as vt10x has it (not written by the batch)
	cellPrinted              // a rune written with attr
	cellCleared              // erased with attr
)

// bcell is one cell of the batch's copy: how it was last written.
type bcell struct {
	attr vt10x.Glyph // the cursor's attributes then; Char is the rune (printed)
	kind uint8
}

// glyph is what vt10x holds for the cell (its setChar and clear).
func (c *bcell) glyph() vt10x.Glyph {
	g := c.attr
	if c.kind == cellCleared {
		g.Char = ' '
		return g
	}
	if g.Mode&vtAttrBold != 0 && g.FG < 8 {
		g.FG += 8
	}
	if g.Mode&vtAttrReverse != 0 {
		g.FG, g.BG = c.attr.BG, c.attr.FG
	}
	return g
}

// batch is the state of one batch: the cursor as vt10x would have it, the
// modes it depends on (read when the batch opens; only sequences the batch
// does not follow change them), and the rows written so far.
type batch struct {
	cols, rows int
	x, y       int
	wrapNext   bool
	attr       vt10x.Glyph
	autowrap   bool
	crlf       bool

	start   vt10x.Cursor // vt10x's cursor when the batch opened
	cells   []bcell      // rows×cols; a row is valid once loaded
	loaded  []bool
	touched []int // loaded rows, in order
	out     []byte
	have    []vt10x.Glyph // a row of vt10x's (vtRow's scratch)
	blank   []vt10x.Glyph // a row as a scroll clears it
	args    [maxParams]int
}

// batches are shared by every Screen: a batch lives only inside one Feed.
var batches = sync.Pool{New: func() any { return new(batch) }}

// region is the scroll region as vt10x has it, followed from the stream
// (vt10x does not expose it); a line feed is followed only while it is
// known.
type region struct {
	top, bottom int
	known       bool
}

// batchWrite writes the Filter's output b to vt10x through the batch.
func (s *Screen) batchWrite(b []byte) {
	if s.cols < 2 || s.noBatch {
		s.write(b)
		return
	}
	bt := batches.Get().(*batch)
	open := false
	done := 0 // b[:done] is in vt10x (an open batch's cells are not)
	defer func() {
		if r := recover(); r != nil {
			// A fault of the batch's own: count it like vt10x's, write
			// the rest of this read to vt10x as it is (from the start of
			// the open batch, whose cells it never got), and this
			// screen's output too from now on. What was followed of
			// vt10x's state (the region, the history's cursor) may be
			// half applied: it is asked again. The batch, half written,
			// is not reused.
			s.panics.Add(1)
			s.noBatch = true
			s.region.known = false
			if s.hist != nil {
				s.hist.known = false
			}
			s.write(b[done:])
			return
		}
		batches.Put(bt)
	}()
	for i := 0; i < len(b); {
		if !open {
			if !s.openBatch(bt) {
				// vt10x's state is one the batch does not follow: this
				// operation goes to vt10x as it is.
				j := opEnd(b, i)
				s.write(b[i:j])
				done = j
				s.followOp(b[i:j])
				if s.stuck() {
					// A state that lasts (origin mode, the line drawing
					// charset, attributes SGR cannot set): the text up to
					// the next sequence, which may end it, goes too.
					k := j
					for k < len(b) && b[k] != 0x1b {
						k++
					}
					s.write(b[j:k])
					done, j = k, k
				}
				i = j
				continue
			}
			open = true
		}
		if s.batchHook != nil {
			s.batchHook(i)
		}
		j, ok := s.batchOp(bt, b, i)
		if !ok {
			s.flushBatch(bt)
			open = false
			done = i
			j = opEnd(b, i)
			s.write(b[i:j])
			done = j
			s.followOp(b[i:j])
		}
		i = j
	}
	if open {
		s.flushBatch(bt)
	}
}

// followOp follows what op, an operation the batch does not follow and
// vt10x has just been written, does to the scroll region.
func (s *Screen) followOp(op []byte) {
	if len(op) >= 2 && op[0] == 0x1b {
		switch op[1] {
		case 'c': // RIS
			s.region = region{0, s.rows - 1, true}
		case '[':
			if op[len(op)-1] == 'r' {
				s.followDECSTBM(op)
			}
		}
	}
}

// followDECSTBM applies vt10x's DECSTBM (csi.go: setScroll of arg(0,1)-1
// and arg(1,rows)-1, a private one ignored) to the followed region.
func (s *Screen) followDECSTBM(op []byte) {
	var a [maxParams]int
	args, ok := parseArgs(op[2:len(op)-1], a[:0])
	if !ok {
		s.region.known = false
		return
	}
	if len(op) > 2 && op[2] == '?' {
		return
	}
	top := clampInt(argOr(args, 0, 1)-1, 0, s.rows-1)
	bottom := clampInt(argOr(args, 1, s.rows)-1, 0, s.rows-1)
	if top > bottom {
		top, bottom = bottom, top
	}
	s.region = region{top, bottom, true}
}

// parseArgs reads CSI parameters as vt10x does (split at ';', each read
// with strconv.Atoi, stopping at the first that is not a number). ok is
// false when p holds anything but digits and ';' (a private marker in
// front excepted), or a number too long to be sure of.
func parseArgs(p []byte, args []int) ([]int, bool) {
	if len(p) > 0 && p[0] == '?' {
		p = p[1:]
	}
	if len(p) == 0 {
		return args, true
	}
	stopped := false
	v, digits := 0, 0
	for k := 0; k <= len(p); k++ {
		if k == len(p) || p[k] == ';' {
			if digits == 0 {
				stopped = true // Atoi("") fails: vt10x stops here
			}
			if !stopped && len(args) < cap(args) {
				args = append(args, v)
			} else if !stopped {
				return args, false
			}
			v, digits = 0, 0
			continue
		}
		c := p[k]
		if c < '0' || c > '9' || digits >= 9 {
			return args, false
		}
		v, digits = v*10+int(c-'0'), digits+1
	}
	return args, true
}

// argOr is vt10x's csiEscape.arg.
func argOr(args []int, i, def int) int {
	if i >= len(args) || i < 0 {
		return def
	}
	return args[i]
}

// opEnd returns the end of the operation at b[i]: a control byte, a
// complete escape sequence as the Filter writes them, or a rune (with the
// WidePlaceholder after it, if there is one).
func opEnd(b []byte, i int) int {
	c := b[i]
	switch {
	case c == 0x1b:
		if i+1 >= len(b) {
			return len(b)
		}
		switch n := b[i+1]; {
		case n == '[':
			for j := i + 2; j < len(b); j++ {
				if b[j] >= 0x40 && b[j] <= 0x7e {
					return j + 1
				}
			}
			return len(b)
		case n == ']':
			for j := i + 2; j < len(b); j++ {
				if b[j] == 0x07 {
					return j + 1
				}
				if b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\' {
					return j + 2
				}
			}
			return len(b)
		case n >= 0x20 && n <= 0x2f:
			return min(i+3, len(b))
		default:
			return i + 2
		}
	case c < 0x80:
		return i + 1
	default:
		_, size := utf8.DecodeRune(b[i:])
		j := i + size
		if j+len(placeholderUTF8) <= len(b) && string(b[j:j+len(placeholderUTF8)]) == string(placeholderUTF8) {
			j += len(placeholderUTF8)
		}
		return j
	}
}

// reproducible reports whether SGR can set the cursor's attributes to a
// (the batch writes cells in their attributes through SGR).
func reproducible(a vt10x.Glyph) bool {
	return a.Mode&^vtAttrSettable == 0 &&
		(a.FG < 1<<24 || a.FG == vt10x.DefaultFG) && (a.BG < 1<<24 || a.BG == vt10x.DefaultBG)
}

// stuck reports whether vt10x is in a state the batch does not follow
// that text cannot end (only a sequence can).
func (s *Screen) stuck() bool {
	cur := s.vt.Cursor()
	return cur.State&vtCursorOrigin != 0 || !reproducible(cur.Attr)
}

// openBatch starts a batch at vt10x's present state, or reports that the
// state is one it does not follow (origin mode, a wrap pending, the line
// drawing charset or attributes SGR cannot set).
func (s *Screen) openBatch(bt *batch) bool {
	cur := s.vt.Cursor()
	if cur.State&(vtCursorOrigin|vtCursorWrapNext) != 0 || !reproducible(cur.Attr) {
		return false
	}
	m := s.vt.Mode()
	bt.cols, bt.rows = s.cols, s.rows
	bt.x, bt.y, bt.wrapNext = cur.X, cur.Y, false
	bt.attr = cur.Attr
	bt.attr.Char = 0
	bt.start = cur
	bt.autowrap, bt.crlf = m&vt10x.ModeWrap != 0, m&vt10x.ModeCRLF != 0
	if n := s.cols * s.rows; cap(bt.cells) < n {
		bt.cells = make([]bcell, n)
	} else {
		bt.cells = bt.cells[:n]
	}
	if cap(bt.loaded) < s.rows {
		bt.loaded = make([]bool, s.rows)
	} else {
		bt.loaded = bt.loaded[:s.rows]
	}
	return true
}

// row returns row y of the batch's copy; a row the batch had not touched
// yet is all cellVT.
func (s *Screen) row(bt *batch, y int) []bcell {
	r := bt.cells[y*bt.cols : (y+1)*bt.cols]
	if !bt.loaded[y] {
		clear(r)
		bt.loaded[y] = true
		bt.touched = append(bt.touched, y)
	}
	return r
}

// vtLines returns vt10x's rows of the screen shown (its lines field, which
// swaps with the alternate screen's and is replaced on a resize), or nil when
// this vt10x keeps none where this version does (an unexported field, read
// like vtDirtyRows; TestVTLinesFound pins it). The batch compares its cells
// with them under the Screen's lock, where vt10x writes them only inside
// Write.
func vtLines(vt vt10x.Terminal) *[][]vt10x.Glyph {
	v := reflect.ValueOf(vt)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	st := v.Elem().FieldByName("State")
	if !st.IsValid() || st.Kind() != reflect.Pointer || st.IsNil() {
		return nil
	}
	f := st.Elem().FieldByName("lines")
	if !f.IsValid() || f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.Slice ||
		f.Type().Elem().Elem() != reflect.TypeFor[vt10x.Glyph]() || !f.CanAddr() {
		return nil
	}
	return (*[][]vt10x.Glyph)(unsafe.Pointer(f.UnsafeAddr()))
}

// vtRow returns vt10x's row y as it holds it.
func (s *Screen) vtRow(y int, scratch []vt10x.Glyph) []vt10x.Glyph {
	if s.lines != nil {
		if l := *s.lines; y < len(l) && len(l[y]) == s.cols {
			return l[y]
		}
	}
	scratch = scratch[:0]
	for x := 0; x < s.cols; x++ {
		scratch = append(scratch, s.vt.Cell(x, y))
	}
	return scratch
}

// moveTo is vt10x's moveTo outside origin mode.
func (bt *batch) moveTo(x, y int) {
	bt.x, bt.y, bt.wrapNext = clampInt(x, 0, bt.cols-1), clampInt(y, 0, bt.rows-1), false
}

// clear is vt10x's clear: the rectangle erased in the cursor's attributes.
func (s *Screen) clear(bt *batch, x0, y0, x1, y1 int) {
	if x0 > x1 {
		x0, x1 = x1, x0
	}
	if y0 > y1 {
		y0, y1 = y1, y0
	}
	x0, x1 = clampInt(x0, 0, bt.cols-1), clampInt(x1, 0, bt.cols-1)
	y0, y1 = clampInt(y0, 0, bt.rows-1), clampInt(y1, 0, bt.rows-1)
	for y := y0; y <= y1; y++ {
		r := s.row(bt, y)
		for x := x0; x <= x1; x++ {
			r[x] = bcell{attr: bt.attr, kind: cellCleared}
		}
	}
}

// batchOp follows the operation at b[i] in the batch and returns where the
// next one starts, or ok false (nothing done) when the batch does not
// follow it.
func (s *Screen) batchOp(bt *batch, b []byte, i int) (next int, ok bool) {
	c := b[i]
	switch {
	case c >= 0x20 && c < 0x7f:
		// A run of ASCII text.
		if bt.attr.Mode&vtAttrGfx != 0 {
			return i, false
		}
		j := i
		r := s.row(bt, bt.y)
		for j < len(b) && b[j] >= 0x20 && b[j] < 0x7f {
			if bt.wrapNext && bt.autowrap {
				if j == i {
					return i, false
				}
				return j, true
			}
			s.put(bt, r, rune(b[j]))
			j++
		}
		return j, true
	case c >= 0x80:
		if bt.attr.Mode&vtAttrGfx != 0 || (bt.wrapNext && bt.autowrap) {
			return i, false
		}
		ch, size := utf8.DecodeRune(b[i:])
		j := i + size
		wide := j+len(placeholderUTF8) <= len(b) && string(b[j:j+len(placeholderUTF8)]) == string(placeholderUTF8)
		if (wide || ch == WidePlaceholder) && bt.x == bt.cols-1 && bt.autowrap {
			// Screen.write's wrap before a wide rune in the last column.
			return i, false
		}
		r := s.row(bt, bt.y)
		s.put(bt, r, ch)
		if wide {
			if bt.wrapNext && bt.autowrap {
				return i, false // cannot happen: the check above
			}
			s.put(bt, r, WidePlaceholder)
			j += len(placeholderUTF8)
		}
		return j, true
	case c == '\r':
		bt.moveTo(0, bt.y)
		return i + 1, true
	case c == '\b':
		bt.moveTo(bt.x-1, bt.y)
		return i + 1, true
	case c == '\n' || c == '\v' || c == '\f':
		if !s.region.known || bt.y == s.region.bottom {
			return i, false // it may scroll
		}
		x := bt.x
		if bt.crlf {
			x = 0
		}
		bt.moveTo(x, bt.y+1)
		return i + 1, true
	case c == 0x1b && i+1 < len(b) && b[i+1] == '[':
		return s.batchCSI(bt, b, i)
	}
	return i, false
}

// put is vt10x's parse of a printable rune once no wrap is due: setChar,
// then the cursor one to the right or a wrap pending.
func (s *Screen) put(bt *batch, r []bcell, ch rune) {
	a := bt.attr
	a.Char = ch
	r[bt.x] = bcell{attr: a, kind: cellPrinted}
	if bt.x+1 < bt.cols {
		bt.moveTo(bt.x+1, bt.y)
	} else {
		bt.wrapNext = true
	}
}

// batchCSI follows the CSI sequence at b[i] (vt10x's handleCSI for the
// finals below, outside origin mode).
func (s *Screen) batchCSI(bt *batch, b []byte, i int) (next int, ok bool) {
	end := opEnd(b, i)
	seq := b[i:end]
	if len(seq) < 3 || seq[2] == '?' {
		if string(seq) == "\x1b[?25l" || string(seq) == "\x1b[?25h" {
			// The cursor's visibility is a mode bit only: it goes to
			// vt10x now, the batch's cells and cursor do not depend on it.
			s.vtWrite(seq)
			return end, true
		}
		return i, false
	}
	final := seq[len(seq)-1]
	args, pok := parseArgs(seq[2:len(seq)-1], bt.args[:0])
	if !pok {
		return i, false
	}
	switch final {
	case 'm':
		bt.setAttr(args)
	case 'H', 'f':
		bt.moveTo(argOr(args, 1, 1)-1, argOr(args, 0, 1)-1)
	case 'A':
		bt.moveTo(bt.x, bt.y-max(argOr(args, 0, 1), 1))
	case 'B', 'e':
		bt.moveTo(bt.x, bt.y+max(argOr(args, 0, 1), 1))
	case 'C', 'a':
		bt.moveTo(bt.x+max(argOr(args, 0, 1), 1), bt.y)
	case 'D':
		bt.moveTo(bt.x-max(argOr(args, 0, 1), 1), bt.y)
	case 'E':
		bt.moveTo(0, bt.y+argOr(args, 0, 1))
	case 'F':
		bt.moveTo(0, bt.y-argOr(args, 0, 1))
	case 'G', '`':
		bt.moveTo(argOr(args, 0, 1)-1, bt.y)
	case 'd':
		bt.moveTo(bt.x, argOr(args, 0, 1)-1)
	case 'K', 'J', 'X':
		if bt.wrapNext {
			// An erase keeps a pending wrap, which the batch can set
			// again only by writing the last column's rune.
			return i, false
		}
		switch final {
		case 'K':
			switch argOr(args, 0, 0) {
			case 0:
				s.clear(bt, bt.x, bt.y, bt.cols-1, bt.y)
			case 1:
				s.clear(bt, 0, bt.y, bt.x, bt.y)
			case 2:
				s.clear(bt, 0, bt.y, bt.cols-1, bt.y)
			}
		case 'J':
			switch argOr(args, 0, 0) {
			case 0:
				s.clear(bt, bt.x, bt.y, bt.cols-1, bt.y)
				if bt.y < bt.rows-1 {
					s.clear(bt, 0, bt.y+1, bt.cols-1, bt.rows-1)
				}
			case 1:
				if bt.y > 1 {
					s.clear(bt, 0, 0, bt.cols-1, bt.y-1)
				}
				s.clear(bt, 0, bt.y, bt.x, bt.y)
			case 2:
				s.clear(bt, 0, 0, bt.cols-1, bt.rows-1)
			}
		case 'X':
			s.clear(bt, bt.x, bt.y, bt.x+argOr(args, 0, 1)-1, bt.y)
		}
	default:
		return i, false
	}
	return end, true
}

// setAttr is vt10x's setAttr (SGR) on the batch's cursor attributes.
func (bt *batch) setAttr(attr []int) {
	if len(attr) == 0 {
		attr = []int{0}
	}
	a := &bt.attr
	for i := 0; i < len(attr); i++ {
		switch v := attr[i]; {
		case v == 0:
			a.Mode &^= vtAttrSettable
			a.FG, a.BG = vt10x.DefaultFG, vt10x.DefaultBG
		case v == 1:
			a.Mode |= vtAttrBold
		case v == 3:
			a.Mode |= vtAttrItalic
		case v == 4:
			a.Mode |= vtAttrUnderline
		case v == 5 || v == 6:
			a.Mode |= vtAttrBlink
		case v == 7:
			a.Mode |= vtAttrReverse
		case v == 21 || v == 22:
			a.Mode &^= vtAttrBold
		case v == 23:
			a.Mode &^= vtAttrItalic
		case v == 24:
			a.Mode &^= vtAttrUnderline
		case v == 25 || v == 26:
			a.Mode &^= vtAttrBlink
		case v == 27:
			a.Mode &^= vtAttrReverse
		case v == 38 || v == 48:
			col, ok := vt10x.Color(0), false
			if i+2 < len(attr) && attr[i+1] == 5 {
				i += 2
				col, ok = vt10x.Color(attr[i]), attr[i] >= 0 && attr[i] <= 255
			} else if i+4 < len(attr) && attr[i+1] == 2 {
				i += 4
				r, g, b := attr[i-2], attr[i-1], attr[i]
				ok = r >= 0 && r <= 255 && g >= 0 && g <= 255 && b >= 0 && b <= 255
				col = vt10x.Color(r<<16 | g<<8 | b)
			}
			if ok && v == 38 {
				a.FG = col
			} else if ok {
				a.BG = col
			}
		case v == 39:
			a.FG = vt10x.DefaultFG
		case v == 49:
			a.BG = vt10x.DefaultBG
		case v >= 30 && v <= 37:
			a.FG = vt10x.Color(v - 30)
		case v >= 40 && v <= 47:
			a.BG = vt10x.Color(v - 40)
		case v >= 90 && v <= 97:
			a.FG = vt10x.Color(v - 90 + 8)
		case v >= 100 && v <= 107:
			a.BG = vt10x.Color(v - 100 + 8)
		}
	}
}

// flushBatch writes to vt10x what the batch changed: each cell that differs
// from vt10x's, then the cursor and its attributes.
func (s *Screen) flushBatch(bt *batch) {
	out := bt.out[:0]
	ex, ey, ewrap := bt.start.X, bt.start.Y, false
	eattr := bt.start.Attr
	eattr.Char = 0
	moveTo := func(x, y int) {
		if ex != x || ey != y || ewrap {
			out = append(out, 0x1b, '[')
			out = appendInt(out, int32(y+1))
			out = append(out, ';')
			out = appendInt(out, int32(x+1))
			out = append(out, 'H')
			ex, ey, ewrap = x, y, false
		}
	}
	setAttr := func(a vt10x.Glyph) {
		a.Char = 0
		if a != eattr {
			out = appendSGRChange(out, eattr, a)
			eattr = a
		}
	}
	// Rows that moved up by one (a log in a region): vt10x scrolls them
	// there (SU in a region set for it) instead of being written them again.
	top, bottom := s.shiftedRows(bt)
	scrollAttr := eattr // what the scroll clears the new row in
	if top >= 0 {
		out = append(out, 0x1b, '[')
		out = appendInt(out, int32(top+1))
		out = append(out, ';')
		out = appendInt(out, int32(bottom+1))
		out = append(out, "r\x1b[S\x1b["...)
		out = appendInt(out, int32(s.region.top+1))
		out = append(out, ';')
		out = appendInt(out, int32(s.region.bottom+1))
		out = append(out, 'r')
		ex, ey, ewrap = 0, 0, false // DECSTBM homes the cursor
	}
	for _, y := range bt.touched {
		r := bt.cells[y*bt.cols : (y+1)*bt.cols]
		bt.have = s.vtRow(y, bt.have)
		have := bt.have
		switch {
		case top >= 0 && y >= top && y < bottom:
			bt.loaded[y] = false
			continue // scrolled into place
		case top >= 0 && y == bottom:
			// Cleared by the scroll in the attributes then.
			have = bt.blank[:0]
			for range bt.cols {
				have = append(have, vt10x.Glyph{Char: ' ', Mode: scrollAttr.Mode, FG: scrollAttr.FG, BG: scrollAttr.BG})
			}
			bt.blank = have
		}
		for x := 0; x < bt.cols; x++ {
			c := &r[x]
			if c.kind == cellVT || c.glyph() == have[x] {
				continue
			}
			moveTo(x, y)
			setAttr(c.attr)
			if c.kind == cellCleared {
				n := 1
				for x+n < bt.cols && r[x+n].kind == cellCleared && r[x+n].attr == c.attr {
					n++
				}
				out = append(out, 0x1b, '[')
				out = appendInt(out, int32(n))
				out = append(out, 'X')
				x += n - 1
				continue
			}
			out = utf8.AppendRune(out, c.attr.Char)
			if ex+1 < bt.cols {
				ex++
			} else {
				ewrap = true
			}
		}
		bt.loaded[y] = false
	}
	bt.touched = bt.touched[:0]
	if bt.wrapNext {
		// Set the pending wrap again: the last column's rune written last.
		c := &bt.cells[bt.y*bt.cols+bt.cols-1]
		if !(ex == bt.cols-1 && ey == bt.y && ewrap) {
			moveTo(bt.cols-1, bt.y)
			setAttr(c.attr)
			out = utf8.AppendRune(out, c.attr.Char)
			ewrap = true
		}
	} else {
		moveTo(bt.x, bt.y)
	}
	setAttr(bt.attr)
	bt.out = out
	if len(out) > 0 {
		s.vtWrite(out)
	}
}

// minShift is the fewest rows moved up by one for which the batch has
// vt10x scroll them (three escape sequences) instead of writing them again.
const minShift = 3

// shiftedRows finds the longest run of rows top..bottom-1 that the batch
// leaves exactly as vt10x's rows top+1..bottom are now, with row bottom
// written whole by the batch (a log scrolled by one line inside a frame):
// scrolling the region top..bottom up by one puts them in place. It
// returns -1, -1 when there is none worth it, or when a scroll could
// feed history (a region at row 0) or the region to restore is not known.
func (s *Screen) shiftedRows(bt *batch) (top, bottom int) {
	if s.lines == nil || !s.region.known || len(bt.touched) < minShift+1 {
		return -1, -1
	}
	lines := *s.lines
	if len(lines) != bt.rows {
		return -1, -1
	}
	// same reports whether the batch's row y is vt10x's row y+1.
	same := func(y int) bool {
		r, old, next := bt.cells[y*bt.cols:(y+1)*bt.cols], lines[y], lines[y+1]
		if !bt.loaded[y] {
			return slicesEqual(old, next)
		}
		for x := range r {
			want := old[x]
			if r[x].kind != cellVT {
				want = r[x].glyph()
			}
			if want != next[x] {
				return false
			}
		}
		return true
	}
	// whole reports whether the batch wrote every cell of row y.
	whole := func(y int) bool {
		if !bt.loaded[y] {
			return false
		}
		for _, c := range bt.cells[y*bt.cols : (y+1)*bt.cols] {
			if c.kind == cellVT {
				return false
			}
		}
		return true
	}
	top, bottom = -1, -1
	best := 0
	for y := 1; y < bt.rows-1; {
		if !same(y) {
			y++
			continue
		}
		start := y
		for y < bt.rows-1 && same(y) {
			y++
		}
		// Rows start..y-1 moved up; row y is the new one.
		if n := y - start; n > best && n >= minShift && whole(y) {
			best, top, bottom = n, start, y
		}
	}
	return top, bottom
}

func slicesEqual(a, b []vt10x.Glyph) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// appendSGRChange appends the SGR that takes vt10x's cursor attributes
// from a to b (both reproducible): only what differs.
func appendSGRChange(dst []byte, a, b vt10x.Glyph) []byte {
	n0 := len(dst)
	dst = append(dst, 0x1b, '[')
	sep := func() {
		if len(dst) > n0+2 {
			dst = append(dst, ';')
		}
	}
	for _, m := range [...]struct {
		bit     int16
		on, off string
	}{{vtAttrBold, "1", "22"}, {vtAttrItalic, "3", "23"}, {vtAttrUnderline, "4", "24"}, {vtAttrBlink, "5", "25"}, {vtAttrReverse, "7", "27"}} {
		if a.Mode&m.bit != b.Mode&m.bit {
			sep()
			if b.Mode&m.bit != 0 {
				dst = append(dst, m.on...)
			} else {
				dst = append(dst, m.off...)
			}
		}
	}
	if a.FG != b.FG {
		sep()
		dst = appendColor(dst, "38", "39", b.FG, vt10x.DefaultFG)
	}
	if a.BG != b.BG {
		sep()
		dst = appendColor(dst, "48", "49", b.BG, vt10x.DefaultBG)
	}
	return append(dst, 'm')
}

// appendColor appends the SGR parameters for colour c: code;5;n,
// code;2;r;g;b or, for def, reset.
func appendColor(dst []byte, code, reset string, c, def vt10x.Color) []byte {
	switch {
	case c == def:
		return append(dst, reset...)
	case c < 256:
		dst = append(dst, code...)
		dst = append(dst, ";5;"...)
		return appendInt(dst, int32(c))
	default:
		dst = append(dst, code...)
		dst = append(dst, ";2;"...)
		dst = appendInt(dst, int32(c>>16&0xff))
		dst = append(dst, ';')
		dst = appendInt(dst, int32(c>>8&0xff))
		dst = append(dst, ';')
		return appendInt(dst, int32(c&0xff))
	}
}
