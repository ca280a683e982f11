package pool

// snapshot.go copies a Screen's cells out of vt10x into plain values that can
// be read without any lock.

import (
	"strings"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Color is a cell colour. Values below 256 are palette indexes (0-15 the
// ANSI colours, 16-255 the xterm cube and greys); DefaultFG and DefaultBG mean
// the terminal's default foreground and background; anything with
// TrueColorFlag set is 24-bit RGB in the low bits (TrueColorFlag|0xRRGGBB).
// The three cases never overlap.
//
// vt10x cannot store a truecolour whose red and green are both 0 (it would
// be read as a palette index), so the Filter sends such colours with green
// 1: RGB(0,0,b) comes back as RGB(0,1,b).
type Color uint32

// Color constants.
const (
	// TrueColorFlag marks a 24-bit colour.
	TrueColorFlag Color = 1 << 24
	// DefaultFG is the default foreground colour.
	DefaultFG Color = 1 << 25
	// DefaultBG is the default background colour.
	DefaultBG Color = 1<<25 + 1
)

// RGB returns the truecolour r, g, b.
func RGB(r, g, b uint8) Color {
	return TrueColorFlag | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// IsDefault reports whether c is DefaultFG or DefaultBG.
func (c Color) IsDefault() bool { return c == DefaultFG || c == DefaultBG }

// Palette returns the palette index when c is one.
func (c Color) Palette() (index uint8, ok bool) {
	if c < 256 {
		return uint8(c), true
	}
	return 0, false
}

// RGB returns the components of a truecolour; ok is false for palette and
// default colours.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	if c&TrueColorFlag == 0 || c.IsDefault() {
		return 0, 0, 0, false
	}
	return uint8(c >> 16), uint8(c >> 8), uint8(c), true
}

// Attr is a set of cell attributes.
type Attr uint8

// Attribute bits. As in vt10x, a cell's colours already include the effect
// of reverse video (FG and BG are swapped, so FG may be DefaultBG) and of
// bold on the eight low ANSI colours (brightened to 8-15): draw FG and BG as
// given; AttrReverse and AttrBold are for information and for weight.
const (
	// AttrBold: SGR 1.
	AttrBold Attr = 1 << iota
	// AttrUnderline: SGR 4.
	AttrUnderline
	// AttrItalic: SGR 3.
	AttrItalic
	// AttrBlink is never set: blink is dropped by the Filter, which uses
	// vt10x's blink bit to carry dim instead (see AttrDim).
	AttrBlink
	// AttrReverse: SGR 7 (colours already swapped).
	AttrReverse
	// AttrDim: SGR 2, faint (grey text of Ink, Codex's placeholder).
	AttrDim
)

// vt10x's unexported glyph mode bits (state.go).
const (
	vtAttrReverse   = 1 << 0
	vtAttrUnderline = 1 << 1
	vtAttrBold      = 1 << 2
	vtAttrItalic    = 1 << 4
	vtAttrBlink     = 1 << 5
)

// Cell is one screen cell.
type Cell struct {
	// Rune is the character drawn; ' ' for a blank cell, 0 in the right
	// half of a wide rune.
	Rune rune
	// FG and BG are the colours to draw (reverse video already applied).
	FG, BG Color
	// Width is 1 for a normal cell, 2 for a wide rune (it covers the cell
	// to its right too) and 0 for that right half, which is not drawn.
	Width uint8
	// Attr holds the attributes.
	Attr Attr
	// (Width and Attr last: 16 bytes a cell, not 20; a 120×40 snapshot is
	// 75 KiB.)
}

// blankCell is what Snapshot.Cell returns out of range.
var blankCell = Cell{Rune: ' ', Width: 1, FG: DefaultFG, BG: DefaultBG}

// Snapshot is a copy of a Screen at one moment, readable without locks.
type Snapshot struct {
	// Cols and Rows are the screen size.
	Cols, Rows int
	// Cells holds Rows rows of Cols cells, row-major. Every Width-2 cell
	// is followed by a Width-0 cell in the same row, and no row starts
	// with a Width-0 cell.
	Cells []Cell
	// CursorX and CursorY are the cursor position (0-based, on screen).
	CursorX, CursorY int
	// CursorVisible is false after ?25l.
	CursorVisible bool
	// Title is the window title (Modes.Title).
	Title string
	// Modes are the modes set by the child.
	Modes Modes
	// Generation is the Screen's Generation this snapshot shows.
	Generation uint64

	lazy *rowReader // non-nil: rows are copied when first read (rows.go)
}

// Snapshot copies the screen into dst, reusing dst.Cells when its capacity
// suffices (no allocation in steady state). Wide runes are normalised as a
// real terminal shows them once one half was overwritten: a wide rune whose
// right neighbour is not its WidePlaceholder (or that sits in the last
// column) becomes a blank Width-1 cell, and so does a placeholder whose left
// neighbour is not a wide rune.
func (s *Screen) Snapshot(dst *Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vt.Lock()
	defer s.vt.Unlock()
	cols, rows := s.vt.Size()
	n := cols * rows
	if cap(dst.Cells) >= n {
		dst.Cells = dst.Cells[:n]
	} else {
		dst.Cells = make([]Cell, n)
	}
	dst.Cols, dst.Rows = cols, rows
	for y := 0; y < rows; y++ {
		s.readRow(dst.Cells[y*cols:(y+1)*cols], y)
	}
	cur := s.vt.Cursor()
	dst.CursorX, dst.CursorY = clampInt(cur.X, 0, cols-1), clampInt(cur.Y, 0, rows-1)
	dst.CursorVisible = s.vt.CursorVisible()
	dst.Modes = s.f.modes
	dst.Title = s.f.modes.Title
	dst.Generation = s.gen.Load()
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// setCell converts a vt10x glyph into c. It writes c's fields one by one:
// building a Cell value and copying it was three times slower (the compiler
// assembles it on the stack with overlapping stores).
func setCell(c *Cell, g vt10x.Glyph) {
	r := g.Char
	if r == 0 {
		r = ' '
	}
	m := g.Mode
	var a Attr
	if m&vtAttrBold != 0 {
		a |= AttrBold
	}
	if m&vtAttrUnderline != 0 {
		a |= AttrUnderline
	}
	if m&vtAttrItalic != 0 {
		a |= AttrItalic
	}
	if m&vtAttrBlink != 0 {
		a |= AttrDim
	}
	if m&vtAttrReverse != 0 {
		a |= AttrReverse
	}
	c.Rune = r
	c.Width = 1
	c.FG = convertColor(g.FG)
	c.BG = convertColor(g.BG)
	c.Attr = a
}

func convertColor(c vt10x.Color) Color {
	switch {
	case c == vt10x.DefaultFG || c == vt10x.DefaultCursor:
		return DefaultFG
	case c == vt10x.DefaultBG:
		return DefaultBG
	case c < 256:
		return Color(c)
	}
	return TrueColorFlag | Color(c&0xffffff)
}

// readRow copies row y's cells into row (len(row) is the width), wide
// runes normalised (see Snapshot). s.mu must be held.
func (s *Screen) readRow(row []Cell, y int) {
	for x := range row {
		setCell(&row[x], s.vt.Cell(x, y))
	}
	s.normaliseWide(row)
}

// normaliseWide gives a row's cells their widths (see Snapshot).
func (s *Screen) normaliseWide(row []Cell) {
	for x := range row {
		c := &row[x]
		if c.Rune == WidePlaceholder {
			if x > 0 && row[x-1].Width == 2 {
				c.Rune, c.Width = 0, 0
			} else {
				c.Rune = ' '
			}
			continue
		}
		if c.Rune >= 0x1100 && s.f.cond.RuneWidth(c.Rune) == 2 {
			if x+1 < len(row) && row[x+1].Rune == WidePlaceholder {
				c.Width = 2
			} else {
				c.Rune = ' '
			}
		}
	}
}

// Cell returns the cell at column x, row y, or a blank cell in default
// colours when (x, y) is off the screen.
func (s *Snapshot) Cell(x, y int) Cell {
	if x < 0 || y < 0 || x >= s.Cols || y >= s.Rows || y*s.Cols+x >= len(s.Cells) {
		return blankCell
	}
	return s.Cells[y*s.Cols+x]
}

// row returns row y's cells, or nil off the screen. A Snapshot a row
// reader lends (Screen.readRows) copies the row from the screen first.
func (s *Snapshot) row(y int) []Cell {
	if y < 0 || y >= s.Rows || (y+1)*s.Cols > len(s.Cells) {
		return nil
	}
	if s.lazy != nil {
		s.lazy.fill(y)
	}
	return s.Cells[y*s.Cols : (y+1)*s.Cols]
}

// RowText returns row y as text: right halves of wide runes skipped,
// trailing spaces trimmed; "" off the screen.
func (s *Snapshot) RowText(y int) string {
	var b strings.Builder
	s.appendRow(&b, y)
	return b.String()
}

// appendRow writes RowText(y) to b.
func (s *Snapshot) appendRow(b *strings.Builder, y int) {
	var buf [512]byte
	b.Write(appendRowText(buf[:0], s.row(y)))
}

// appendRowText appends the text of row's cells to dst as RowText gives it.
func appendRowText(dst []byte, row []Cell) []byte {
	end := len(row)
	for end > 0 && (row[end-1].Rune == ' ' || row[end-1].Width == 0) {
		end--
	}
	for _, c := range row[:end] {
		if c.Width != 0 {
			dst = utf8.AppendRune(dst, c.Rune)
		}
	}
	return dst
}

// Text returns the rows' RowText joined with "\n", trailing blank rows
// dropped.
func (s *Snapshot) Text() string {
	last := -1
	for y := 0; y < s.Rows; y++ {
		for _, c := range s.row(y) {
			if c.Width != 0 && c.Rune != ' ' {
				last = y
				break
			}
		}
	}
	var b strings.Builder
	// One allocation for a screen of one-byte runes (the common case),
	// instead of the builder doubling its way up.
	b.Grow((last + 1) * (s.Cols + 1))
	for y := 0; y <= last; y++ {
		if y > 0 {
			b.WriteByte('\n')
		}
		s.appendRow(&b, y)
	}
	return b.String()
}
