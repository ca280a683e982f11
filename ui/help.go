package ui

// help.go is the help box (prefix ?): every binding.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// bindings lists the prefix commands, as the help box shows them.
var bindings = [][2]string{
	{"arrows, h j k l", "move focus to the pane in that direction"},
	{"1 … 9", "focus that pane of this page"},
	{"Tab, Shift-Tab", "focus the next / previous agent (all pages)"},
	{"> <, PgDn PgUp", "next / previous page (wraps around)"},
	{"z", "zoom the focused pane to full screen, and back"},
	{"m", "composer: queue a message for the focused agent"},
	{"q", "queue panel of the focused agent"},
	{"p", "pause / resume delivery for the whole floor"},
	{"r", "roster rail: every agent, on every page"},
	{"n", "notice list"},
	{"?", "this help"},
	{"a", "add an agent (name, profile, cwd, command), as office team add"},
	{"R", "restart the focused agent (asks first)"},
	{"d", "detach: this window closes, the agents keep running (office attaches again)"},
	{"x", "quit: asks whether to detach or stop every agent (queued messages are kept)"},
	{"s", "start the office's server again when it is gone"},
	{"[", "copy mode: scroll, search and copy the pane's history"},
	{"]", "paste office's paste buffer (the last copy) into the focused agent"},
	{"prefix twice", "send the prefix key itself to the agent"},
}

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
	for _, b := range bindings {
		if inner < helpKeyCol+12 {
			add(m.pal.boxText, b[0]+"  "+b[1])
			continue
		}
		for i, l := range strings.Split(wrapTo(b[1], inner-helpKeyCol), "\n") {
			key := ""
			if i == 0 {
				key = b[0]
			}
			lines = append(lines, boxLine{text: padRight(key, helpKeyCol) + l, st: m.pal.boxText})
		}
	}
	add(m.pal.boxText, "")
	add(m.pal.boxDim, "A click focuses a pane, the wheel scrolls its history, a drag or a double click copies;")
	add(m.pal.boxDim, "agents that asked for the mouse get it (Shift-drag: your terminal's own selection).")
	add(m.pal.boxDim, "Composer: Enter queues · Alt/Shift+Enter new line · Ctrl-O close picker · Ctrl-R recover prompt")
	add(m.pal.boxDim, "Copy mode: hjkl PgUp/PgDn Ctrl-U/D g G 0 $ · / ? n N search · v select · y copy · q leave")
	add(m.pal.boxDim, "Queue panel: j/k move · s send now (when paused) · d delete · c clear all")
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
