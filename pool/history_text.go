package pool

// history_text.go renders rows of cells (history lines, screen rows) as text:
// plain, or with SGR colours, for `office history` and copy-mode selections.

import "unicode/utf8"

// trimmedEnd returns the length of cells without its trailing blank cells in
// the default background (and not underlined).
func trimmedEnd(cells []Cell) int {
	end := len(cells)
	for end > 0 {
		c := &cells[end-1]
		if c.Width == 0 || (c.Rune == ' ' && c.BG == DefaultBG && c.Attr&AttrUnderline == 0) {
			end--
			continue
		}
		break
	}
	return end
}

// printable returns r, or U+FFFD for a control character (C0, DEL, C1): a
// screen cell never holds one, but a history file is outside input, and its
// text goes to a terminal.
func printable(r rune) rune {
	if r < 0x20 || (r >= 0x7f && r < 0xa0) {
		return utf8.RuneError
	}
	return r
}

// AppendText appends the cells' text to dst: one rune per cell, right halves
// of wide runes skipped, trailing spaces trimmed, control characters shown
// as U+FFFD.
func AppendText(dst []byte, cells []Cell) []byte {
	end := len(cells)
	for end > 0 && (cells[end-1].Width == 0 || cells[end-1].Rune == ' ') {
		end--
	}
	for i := range cells[:end] {
		if c := &cells[i]; c.Width != 0 {
			dst = utf8.AppendRune(dst, printable(c.Rune))
		}
	}
	return dst
}

// AppendANSI appends the cells to dst as text with SGR sequences for their
// colours and attributes (bold, dim, italic, underline, reverse), trailing
// blank cells in the default style trimmed, ending in the default style;
// control characters are shown as U+FFFD.
func AppendANSI(dst []byte, cells []Cell) []byte {
	end := trimmedEnd(cells)
	cur := Cell{FG: DefaultFG, BG: DefaultBG}
	for i := range cells[:end] {
		c := &cells[i]
		if c.Width == 0 {
			continue
		}
		if c.FG != cur.FG || c.BG != cur.BG || c.Attr != cur.Attr {
			dst = appendSGR(dst, c)
			cur.FG, cur.BG, cur.Attr = c.FG, c.BG, c.Attr
		}
		dst = utf8.AppendRune(dst, printable(c.Rune))
	}
	if cur.FG != DefaultFG || cur.BG != DefaultBG || cur.Attr != 0 {
		dst = append(dst, "\x1b[0m"...)
	}
	return dst
}

// appendSGR appends one SGR sequence setting c's style from scratch. A
// cell's colours already have reverse video applied; for AttrReverse they
// are swapped back and SGR 7 is sent, which also covers the default colours.
func appendSGR(dst []byte, c *Cell) []byte {
	fg, bg := c.FG, c.BG
	dst = append(dst, "\x1b[0"...)
	for _, a := range [...]struct {
		bit Attr
		sgr string
	}{{AttrBold, ";1"}, {AttrDim, ";2"}, {AttrItalic, ";3"}, {AttrUnderline, ";4"}, {AttrReverse, ";7"}} {
		if c.Attr&a.bit != 0 {
			dst = append(dst, a.sgr...)
		}
	}
	if c.Attr&AttrReverse != 0 {
		fg, bg = bg, fg
	}
	dst = appendSGRColor(dst, fg, 30, 90, 38)
	dst = appendSGRColor(dst, bg, 40, 100, 48)
	return append(dst, 'm')
}

// appendSGRColor appends ";n" for colour c: base+i for the eight ANSI
// colours, bright+i-8 for the next eight, ext;5;i or ext;2;r;g;b beyond;
// nothing for a default colour.
func appendSGRColor(dst []byte, c Color, base, bright, ext int32) []byte {
	if c.IsDefault() {
		return dst
	}
	dst = append(dst, ';')
	if i, ok := c.Palette(); ok {
		switch {
		case i < 8:
			return appendInt(dst, base+int32(i))
		case i < 16:
			return appendInt(dst, bright+int32(i)-8)
		}
		dst = appendInt(dst, ext)
		dst = append(dst, ";5;"...)
		return appendInt(dst, int32(i))
	}
	r, g, b, _ := c.RGB()
	dst = appendInt(dst, ext)
	dst = append(dst, ";2;"...)
	dst = appendInt(dst, int32(r))
	dst = append(dst, ';')
	dst = appendInt(dst, int32(g))
	dst = append(dst, ';')
	return appendInt(dst, int32(b))
}
