package ui

// render.go draws the frame: panes from their snapshots, title bars and the
// status line. It reuses one byte buffer and allocates nothing per cell.

import (
	"strconv"
	"unicode/utf8"

	"office/pool"
)

// style is the SGR state of the output stream.
type style struct {
	fg, bg pool.Color
	attr   pool.Attr
}

var plain = style{fg: pool.DefaultFG, bg: pool.DefaultBG}

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

// text appends s clipped or padded to exactly w cells in style st.
func (f *frameBuf) text(s string, w int, st style) {
	f.setStyle(st)
	n := 0
	for _, r := range s {
		if n >= w {
			break
		}
		f.b = utf8.AppendRune(f.b, r)
		n++
	}
	for ; n < w; n++ {
		f.b = append(f.b, ' ')
	}
}

// cells appends row y of snap, clipped or padded to w cells; the cursor cell
// is drawn in reverse video when cursor is true.
func (f *frameBuf) cells(snap *pool.Snapshot, y, w int, cursor bool) {
	x := 0
	if y < snap.Rows {
		row := snap.Cells[y*snap.Cols : (y+1)*snap.Cols]
		for i := 0; i < len(row) && x < w; i++ {
			c := row[i]
			if c.Width == 0 {
				continue
			}
			st := style{fg: c.FG, bg: c.BG, attr: c.Attr &^ (pool.AttrReverse | pool.AttrBlink)}
			if cursor && i == snap.CursorX && y == snap.CursorY {
				st.fg, st.bg = c.BG, c.FG
				if st.fg == pool.DefaultBG && st.bg == pool.DefaultFG {
					st.attr |= pool.AttrBold
				}
				st = cursorStyle(st)
			}
			r := c.Rune
			if c.Width == 2 && x+2 > w {
				r, c.Width = ' ', 1 // a wide rune cut by the pane's edge
			}
			if r == 0 || r == pool.WidePlaceholder {
				r = ' '
			}
			f.setStyle(st)
			f.b = utf8.AppendRune(f.b, r)
			x += int(c.Width)
		}
	}
	if x < w {
		f.setStyle(plain)
		for ; x < w; x++ {
			f.b = append(f.b, ' ')
		}
	}
}

// cursorStyle shows the cursor cell in reverse video, also on default colours.
func cursorStyle(st style) style {
	if st.fg.IsDefault() && st.bg.IsDefault() {
		return style{fg: pool.Color(0), bg: pool.Color(15), attr: st.attr}
	}
	return st
}

// Styles of the chrome (ASCII-only content, so redraws stay cheap).
var (
	titleFocused = style{fg: pool.Color(0), bg: pool.Color(14), attr: pool.AttrBold}
	titleOther   = style{fg: pool.Color(15), bg: pool.Color(8)}
	statusStyle  = style{fg: pool.Color(15), bg: pool.Color(4)}
	sepStyle     = style{fg: pool.Color(8), bg: pool.DefaultBG}
)

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
	vis := m.visible()
	bodyH := m.height - 1
	for y := 0; y < bodyH; y++ {
		x := 0
		for _, idx := range vis {
			p := m.panes[idx]
			if y < p.box.Y || y >= p.box.Y+p.box.H {
				continue
			}
			if p.box.X > x {
				f.text("│", p.box.X-x, sepStyle)
				x = p.box.X
			}
			if y == p.box.Y {
				st := titleOther
				if idx == m.focus {
					st = titleFocused
				}
				f.text(p.title, p.box.W, st)
			} else {
				f.cells(&p.snap, y-p.box.Y-1, p.box.W, idx == m.focus && p.snap.CursorVisible)
			}
			x += p.box.W
		}
		if x < m.width {
			f.text("", m.width-x, plain)
		}
		f.setStyle(plain)
		f.b = append(f.b, '\n')
	}
	f.text(m.statusLine(), m.width, statusStyle)
	f.setStyle(plain)
	m.frame = string(f.b)
	return m.frame
}

// statusLine is the bottom row: a question, the help, or the latest notice.
func (m *model) statusLine() string {
	switch {
	case m.confirmQuit:
		return " quit office and stop every agent? (y/n)"
	case m.showHelp:
		return " Ctrl-] then: 1-9 focus · n/p or arrows next/prev · z zoom · x quit · ? help · Ctrl-] Ctrl-] sends Ctrl-]"
	case m.prefixPending:
		return " Ctrl-] … (1-9 n p z x ?)"
	case m.notice != "":
		return " " + m.notice
	}
	return " office · Ctrl-] ? for help"
}
