package ui

// help.go is the help box (prefix ?): every row of the key table (keys.go).

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpKeyCol is the width of the help box's key column.
const helpKeyCol = 18

// helpLines are the help box's lines, word-wrapped to inner cells so no
// binding is cut off.
func (m *model) helpLines(inner int) []boxLine {
	var lines []boxLine
	add := func(st lipgloss.Style, text string) {
		for _, l := range strings.Split(wrapTo(text, inner), "\n") {
			lines = append(lines, boxLine{text: l, st: st})
		}
	}
	add(m.pal.boxText, "Every key goes to the focused agent, except "+prefixName(m.prefix)+", then:")
	add(m.pal.boxText, "")
	for _, b := range prefixKeys {
		if inner < helpKeyCol+12 {
			add(m.pal.boxText, b.keys+"  "+b.does)
			continue
		}
		for i, l := range strings.Split(wrapTo(b.does, inner-helpKeyCol), "\n") {
			key := ""
			if i == 0 {
				key = b.keys
			}
			lines = append(lines, boxLine{text: padRight(key, helpKeyCol) + l, st: m.pal.boxText})
		}
	}
	add(m.pal.boxText, "")
	for _, n := range helpNotes {
		add(m.pal.boxDim, n)
	}
	return lines
}

// wrapTo word-wraps text to width cells, breaking a word longer than
// width (ansi's Wordwrap leaves it whole, to be cut at the box's edge).
func wrapTo(text string, width int) string {
	return ansi.Hardwrap(ansi.Wordwrap(text, width, ""), width, true)
}

// helpView is the help box. In a window too short for all of it, it shows
// the lines from helpTop that fit and, last, how to see the rest.
func (m *model) helpView(w int) boxView {
	inner := max(w-2, 1)
	v := boxView{title: " office keys ", caretLine: -1, lines: m.helpLines(inner)}
	rows, n := m.helpRows(), len(v.lines)
	if n+1 <= rows || rows < 2 {
		v.lines = append(v.lines, boxLine{text: "any key closes this help", st: m.pal.boxDim})
		return v
	}
	top := max(0, min(m.helpTop, n-(rows-1)))
	hint := fmt.Sprintf("%d-%d/%d · ↑↓ PgUp PgDn · other keys close", top+1, top+rows-1, n)
	v.lines = append(v.lines[top:top+rows-1:top+rows-1], boxLine{text: ansi.Truncate(hint, inner, "…"), st: m.pal.boxDim})
	return v
}

// helpRows is how many lines the help box can show: the body's height
// less its border.
func (m *model) helpRows() int { return m.height - 1 - 2 }

// helpKey scrolls a help box taller than the window (arrows, j k, PgUp,
// PgDn, Space) or closes it: any other key, and any key when it fits.
func (m *model) helpKey(k tea.Key) {
	n, rows := len(m.helpLines(max(m.boxWidth()-2, 1))), m.helpRows()
	if n+1 <= rows || rows < 2 {
		m.overlay = overlayNone
		return
	}
	top := max(0, min(m.helpTop, n-(rows-1)))
	switch {
	case k.Code == tea.KeyDown || is(k, 'j'):
		top++
	case k.Code == tea.KeyUp || is(k, 'k'):
		top--
	case k.Code == tea.KeyPgDown || is(k, ' '):
		top += max(rows-2, 1)
	case k.Code == tea.KeyPgUp:
		top -= max(rows-2, 1)
	default:
		m.overlay = overlayNone
		return
	}
	m.helpTop = max(0, min(top, n-(rows-1)))
}

// prefixName names a control byte as the person types it ("Ctrl-]").
func prefixName(b byte) string {
	if b < 0x20 {
		return "Ctrl-" + string(rune(b+'@'))
	}
	return string(rune(b))
}

// padRight pads s with spaces to n cells.
func padRight(s string, n int) string {
	for w := stringCells(s); w < n; w++ {
		s += " "
	}
	return s
}
