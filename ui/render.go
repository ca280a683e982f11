package ui

// render.go draws the frame: panes from their snapshots, title bars, the
// roster rail, the open box and the status line. It reuses one byte buffer
// and allocates nothing per cell; View reads only the model.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"office/pool"
)

// frameBuf builds one frame.
type frameBuf struct {
	b   []byte
	cur style
}

func (f *frameBuf) reset() { f.b = f.b[:0]; f.cur = plain }

// setStyle emits the SGR that moves the stream from f.cur to s.
func (f *frameBuf) setStyle(s style) {
	if s == f.cur {
		return
	}
	f.b = append(f.b, "\x1b[0"...)
	if s.attr&pool.AttrBold != 0 {
		f.b = append(f.b, ";1"...)
	}
	if s.attr&pool.AttrDim != 0 {
		f.b = append(f.b, ";2"...)
	}
	if s.attr&pool.AttrItalic != 0 {
		f.b = append(f.b, ";3"...)
	}
	if s.attr&pool.AttrUnderline != 0 {
		f.b = append(f.b, ";4"...)
	}
	f.b = appendColor(f.b, s.fg, true)
	f.b = appendColor(f.b, s.bg, false)
	f.b = append(f.b, 'm')
	f.cur = s
}

// appendColor appends ";<sgr>" for c as foreground or background.
func appendColor(b []byte, c pool.Color, fg bool) []byte {
	if c.IsDefault() {
		return b
	}
	if i, ok := c.Palette(); ok {
		switch {
		case i < 8 && fg:
			return strconv.AppendInt(append(b, ';'), int64(30+i), 10)
		case i < 8:
			return strconv.AppendInt(append(b, ';'), int64(40+i), 10)
		case i < 16 && fg:
			return strconv.AppendInt(append(b, ';'), int64(90+i-8), 10)
		case i < 16:
			return strconv.AppendInt(append(b, ';'), int64(100+i-8), 10)
		}
		if fg {
			b = append(b, ";38;5;"...)
		} else {
			b = append(b, ";48;5;"...)
		}
		return strconv.AppendInt(b, int64(i), 10)
	}
	if r, g, bl, ok := c.RGB(); ok {
		if fg {
			b = append(b, ";38;2;"...)
		} else {
			b = append(b, ";48;2;"...)
		}
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(g), 10)
		b = append(b, ';')
		return strconv.AppendInt(b, int64(bl), 10)
	}
	return b
}

// runeCells is how many cells r takes in the chrome (0 for controls).
func runeCells(r rune) int {
	if r < 0x20 || r == 0x7f {
		return 0
	}
	if r < 0x300 {
		return 1
	}
	return runewidth.RuneWidth(r)
}

// stringCells is how many cells s takes in the chrome.
func stringCells(s string) int {
	n := 0
	for _, r := range s {
		n += runeCells(r)
	}
	return n
}

// fill appends n copies of the one-cell rune r in style st.
func (f *frameBuf) fill(r rune, n int, st style) {
	f.setStyle(st)
	for ; n > 0; n-- {
		f.b = utf8.AppendRune(f.b, r)
	}
}

// chrome appends cells [from, from+w) of the text s in style st, padded with
// spaces; a wide rune cut by either edge becomes a space.
func (f *frameBuf) chrome(s string, from, w int, st style) {
	f.setStyle(st)
	x, out := 0, 0
	for _, r := range s {
		if out >= w {
			break
		}
		cw := runeCells(r)
		if cw == 0 {
			continue
		}
		switch {
		case x+cw <= from:
		case x < from || out+cw > w:
			f.b = append(f.b, ' ')
			out++
		default:
			f.b = utf8.AppendRune(f.b, r)
			out += cw
		}
		x += cw
	}
	for ; out < w; out++ {
		f.b = append(f.b, ' ')
	}
}

// cells appends columns [from, from+w) of row y of snap, padded with blanks;
// a wide rune cut by either edge becomes a blank in its colours. The cursor
// cell is drawn in reverse video when cursor is true.
func (f *frameBuf) cells(snap *pool.Snapshot, y, from, w int, cursor bool) {
	x, out := 0, 0
	if y >= 0 && y < snap.Rows && (y+1)*snap.Cols <= len(snap.Cells) {
		row := snap.Cells[y*snap.Cols : (y+1)*snap.Cols]
		for i := 0; i < len(row) && out < w; i++ {
			c := &row[i]
			if c.Width == 0 {
				continue
			}
			cw := int(c.Width)
			if x+cw <= from {
				x += cw
				continue
			}
			st := style{fg: c.FG, bg: c.BG, attr: c.Attr &^ (pool.AttrReverse | pool.AttrBlink)}
			if cursor && i == snap.CursorX && y == snap.CursorY {
				st = cursorStyle(st)
			}
			r := c.Rune
			if x < from || out+cw > w {
				r, cw = ' ', 1 // a wide rune cut by the edge
			}
			if r == 0 || r == pool.WidePlaceholder {
				r = ' '
			}
			if st != f.cur {
				f.setStyle(st)
			}
			if r < utf8.RuneSelf {
				f.b = append(f.b, byte(r))
			} else {
				f.b = utf8.AppendRune(f.b, r)
			}
			out += cw
			x += int(c.Width)
		}
	}
	if out < w {
		f.setStyle(plain)
		for ; out < w; out++ {
			f.b = append(f.b, ' ')
		}
	}
}

// cursorStyle shows the cursor cell in reverse video, also on default colours.
func cursorStyle(st style) style {
	if st.fg.IsDefault() && st.bg.IsDefault() {
		return style{fg: pool.Color(0), bg: pool.Color(15), attr: st.attr}
	}
	st.fg, st.bg = st.bg, st.fg
	if st.fg == pool.DefaultBG {
		st.fg = pool.Color(0)
	}
	if st.bg == pool.DefaultFG {
		st.bg = pool.Color(15)
	}
	return st
}

// boxView is an open box's content.
type boxView struct {
	title  string
	lines  []boxLine
	scroll int // a line that must be visible
}

// boxLine is one line of a box.
type boxLine struct {
	text string
	st   style
}

// View renders the frame from the model's state. It reads only the model.
func (m *model) View() string {
	if !m.dirty && m.frame != "" {
		return m.frame
	}
	m.dirty = false
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	f := &m.buf
	f.reset()
	bodyH := m.height - 1
	box, bx := m.openBox()
	for y := 0; y < bodyH; y++ {
		if bx.H > 0 && y >= bx.Y && y < bx.Y+bx.H {
			m.drawRange(f, y, 0, bx.X)
			drawBoxRow(f, &box, bx, y-bx.Y)
			m.drawRange(f, y, bx.X+bx.W, m.width)
		} else {
			m.drawRange(f, y, 0, m.width)
		}
		f.setStyle(plain)
		f.b = append(f.b, '\n')
	}
	left, right, st := m.statusLine()
	rw := stringCells(right)
	if rw > m.width {
		rw = 0
		right = ""
	}
	f.chrome(left, 0, m.width-rw, st)
	f.chrome(right, 0, rw, st)
	f.setStyle(plain)
	m.frame = string(f.b)
	return m.frame
}

// drawRange draws columns [x0, x1) of body row y: panes, separators and the
// roster rail.
func (m *model) drawRange(f *frameBuf, y, x0, x1 int) {
	if x0 >= x1 {
		return
	}
	x := x0
	for _, idx := range m.vis {
		p := m.panes[idx]
		b := p.box
		if y < b.Y || y >= b.Y+b.H || b.X+b.W <= x || b.X >= x1 {
			continue
		}
		if b.X > x {
			f.fill('│', b.X-x, sepStyle)
			x = b.X
		}
		end := min(x1, b.X+b.W)
		if y == b.Y {
			st := titleOther
			switch {
			case idx == m.focus:
				st = titleFocused
			case p.needsAttention():
				st = titleAttention
			}
			f.chrome(p.title, x-b.X, end-x, st)
		} else {
			cursor := idx == m.focus && m.overlay == overlayNone && p.snap.CursorVisible
			f.cells(&p.snap, y-b.Y-1, x-b.X, end-x, cursor)
		}
		x = end
	}
	if r := m.rail; r.W > 0 && y >= r.Y && y < r.Y+r.H && r.X < x1 && r.X+r.W > x {
		if r.X > x {
			f.fill('│', r.X-x, sepStyle)
			x = r.X
		}
		end := min(x1, r.X+r.W)
		text, st := m.rosterLine(y - r.Y)
		f.chrome(text, x-r.X, end-x, st)
		x = end
	}
	if x < x1 {
		f.fill(' ', x1-x, plain)
	}
}

// openBox returns the open box and where it goes (zero rect: none).
func (m *model) openBox() (boxView, rect) {
	bodyH := m.height - 1
	w := min(m.width-2, 110)
	if w < 24 {
		w = m.width
	}
	var v boxView
	switch m.overlay {
	case overlayHelp:
		v = m.helpView(w)
	case overlayComposer:
		v = m.composerView(w)
	case overlayQueue:
		v = m.queueView(w)
	case overlayNotices:
		v = m.noticesView(w)
	default:
		return v, rect{}
	}
	h := min(len(v.lines)+2, bodyH)
	if h < 3 || w < 3 {
		return v, rect{}
	}
	return v, rect{X: (m.width - w) / 2, Y: (bodyH - h) / 2, W: w, H: h}
}

// drawBoxRow draws row i of box v in r.
func drawBoxRow(f *frameBuf, v *boxView, r rect, i int) {
	inner := r.W - 2
	switch i {
	case 0:
		f.fill('┌', 1, boxStyle)
		t := v.title
		if stringCells(t) > inner {
			t = ""
		}
		f.chrome(t, 0, stringCells(t), boxStyle)
		f.fill('─', inner-stringCells(t), boxStyle)
		f.fill('┐', 1, boxStyle)
		return
	case r.H - 1:
		f.fill('└', 1, boxStyle)
		f.fill('─', inner, boxStyle)
		f.fill('┘', 1, boxStyle)
		return
	}
	rows := r.H - 2
	first := 0
	if v.scroll >= rows {
		first = v.scroll - rows + 1
	}
	f.fill('│', 1, boxStyle)
	if k := first + i - 1; k < len(v.lines) {
		l := v.lines[k]
		f.chrome(l.text, 0, inner, l.st)
	} else {
		f.chrome("", 0, inner, boxText)
	}
	f.fill('│', 1, boxStyle)
}

// statusLine is the bottom row: left text, right text and style.
func (m *model) statusLine() (left, right string, st style) {
	st = statusStyle
	var r []string
	if m.floorPaused {
		r = append(r, "PAUSED")
	}
	if m.notices.unread > 0 {
		r = append(r, fmt.Sprintf("%s (%s n)", plural(m.notices.unread, "new notice"), prefixName(m.prefix)))
	}
	if page, pages := m.page(); pages > 1 {
		r = append(r, fmt.Sprintf("page %d/%d", page+1, pages))
	}
	if len(r) > 0 {
		right = " " + strings.Join(r, " · ") + " "
	}
	switch {
	case m.overlay == overlayQuit:
		return " quit office and stop every agent? queued messages are kept (y/n)", "", statusAlert
	case m.prefixPending:
		left = " " + prefixName(m.prefix) + " … arrows/hjkl 1-9 move · z zoom · m compose · q queue · p pause · r roster · n notices · ? help · x quit"
	case m.storeErr != "":
		left, st = " store: "+m.storeErr, statusAlert
	case m.flash != "":
		left = " " + m.flash
	default:
		if n, ok := m.notices.latest(); ok && m.notices.unread > 0 {
			return " ! " + n.line(), right, statusAlert
		}
		left = " office · " + prefixName(m.prefix) + " ? for help"
	}
	return left, right, st
}
