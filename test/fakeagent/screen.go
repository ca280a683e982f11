package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// Drawing characters, as Claude Code uses them.
const (
	promptGlyph = "❯"      // U+276F
	nbsp        = "\u00a0" // after the prompt glyph on the input row
	ruleRune    = "─"      // U+2500
	idleGlyph   = "✳"
	title       = "fakeagent"
	placeholder = "Press up to edit queued messages"
)

var spinnerFrames = []string{"⠂", "⠐"}

// Style (SGR parameter strings).
const (
	sgrRule    = "38;5;244"
	sgrDim     = "2"
	sgrInverse = "7"
	sgrSpinner = "38;5;174"
	sgrSelect  = "38;5;153"
	sgrBold    = "1"
)

// widths are computed without East-Asian ambiguous widening, independent
// of the locale, so the output is deterministic.
var widthCond = func() *runewidth.Condition {
	c := runewidth.NewCondition()
	c.EastAsianWidth = false
	c.StrictEmojiNeutral = true
	return c
}()

func runeWidth(r rune) int {
	if r < 0x20 || (r >= 0x7f && r < 0xa0) {
		return 1 // control characters are drawn as a space
	}
	return widthCond.RuneWidth(r)
}

func textWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

type seg struct {
	sgr  string
	text string
}

type line []seg

func plain(s string) line { return line{{text: s}} }

func styled(sgr, s string) line { return line{{sgr: sgr, text: s}} }

// wrap splits s into rows of at most w columns (at least one row).
func wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	var rows []string
	var cur strings.Builder
	cw := 0
	for _, r := range s {
		rw := runeWidth(r)
		if cw+rw > w && cw > 0 {
			rows = append(rows, cur.String())
			cur.Reset()
			cw = 0
		}
		cur.WriteRune(r)
		cw += rw
	}
	return append(rows, cur.String())
}

// render produces the bytes for one screen row (without positioning).
// After every wide rune it moves the cursor with CHA to the true column,
// like Claude Code, so wide characters land correctly in real terminals.
func render(l line, cols int) string {
	var b strings.Builder
	col := 0
	full := false
	for _, s := range l {
		if full {
			break
		}
		if s.sgr != "" {
			b.WriteString("\x1b[" + s.sgr + "m")
		}
		for _, r := range s.text {
			w := runeWidth(r)
			if col+w > cols {
				full = true
				break
			}
			if r < 0x20 || (r >= 0x7f && r < 0xa0) {
				r = ' '
			}
			b.WriteRune(r)
			col += w
			if w == 2 {
				fmt.Fprintf(&b, "\x1b[%dG", col+1)
			}
		}
		if s.sgr != "" {
			b.WriteString("\x1b[0m")
		}
	}
	if col < cols {
		b.WriteString("\x1b[K")
	}
	return b.String()
}

func rule(cols int) line { return styled(sgrRule, strings.Repeat(ruleRune, cols)) }

// footer builds "  left" with hint right-aligned, ending one column before
// the right edge.
func footer(left, hint string, cols int) line {
	l := line{{sgr: sgrDim, text: left}}
	if hint == "" {
		return l
	}
	pad := cols - 1 - textWidth(left) - textWidth(hint)
	if pad < 1 {
		pad = 1
	}
	return append(l, seg{text: strings.Repeat(" ", pad)}, seg{sgr: sgrDim, text: hint})
}

type slashCommand struct{ name, desc string }

var slashCommands = []slashCommand{
	{"/clear", "Clear conversation history and free up context"},
	{"/compact", "Clear conversation history but keep a summary in context"},
	{"/exit", "Exit the REPL"},
	{"/help", "Show help and available commands"},
	{"/model", "Set the AI model for Claude Code"},
}

// menuItems returns the slash commands matching the input, or nil when the
// slash menu is not shown.
func (a *app) menuItems() []slashCommand {
	in := a.input
	if a.dialog != nil || !strings.HasPrefix(in, "/") || strings.IndexFunc(in, unicode.IsSpace) >= 0 || in == a.menuDismissed {
		return nil
	}
	var out []slashCommand
	for _, c := range slashCommands {
		if strings.HasPrefix(c.name, in) {
			out = append(out, c)
		}
	}
	return out
}

// inputRows lays out the prompt box rows and returns the caret position
// (row index within the returned rows, 0-based column).
func (a *app) inputRows(cols int) (rows []line, caretRow, caretCol int) {
	w := cols - 2
	if w < 1 {
		w = 1
	}
	if a.input == "" {
		if len(a.queue) > 0 {
			return []line{{{text: promptGlyph + nbsp}, {sgr: sgrInverse, text: placeholder[:1]}, {sgr: sgrDim, text: placeholder[1:]}}}, 0, 2
		}
		return []line{{{text: promptGlyph + nbsp}, {sgr: sgrInverse, text: " "}}}, 0, 2
	}
	var lastW int
	for i, logical := range strings.Split(a.input, "\n") {
		for j, part := range wrap(logical, w) {
			prefix := "  "
			if i == 0 && j == 0 {
				prefix = promptGlyph + nbsp
			}
			rows = append(rows, line{{text: prefix}, {text: part}})
			lastW = textWidth(part)
		}
	}
	if lastW >= w {
		rows = append(rows, line{{text: "  "}})
		lastW = 0
	}
	caretRow = len(rows) - 1
	rows[caretRow] = append(rows[caretRow], seg{sgr: sgrInverse, text: " "})
	return rows, caretRow, 2 + lastW
}

// dialogRows lays out an open picker or permission dialog.
func (a *app) dialogRows() []line {
	d := a.dialog
	var rows []line
	option := func(i int, label string) line {
		if i == d.sel {
			return line{{text: "  "}, {sgr: sgrSelect, text: promptGlyph + " " + label}}
		}
		return plain("    " + label)
	}
	switch d.kind {
	case dialogPicker:
		rows = append(rows,
			styled(sgrBold, "  Select model"),
			plain("  Switch between fakeagent models. Your pick applies to this session."),
			plain(""))
		for i, name := range modelOptions {
			label := fmt.Sprintf("%d. %s", i+1, name)
			if i == 0 {
				label += " (recommended)"
			}
			if name == a.model {
				label += " ✔"
			}
			rows = append(rows, option(i, label))
		}
		rows = append(rows, plain(""), styled(sgrDim, "  Enter to confirm · Esc to cancel"))
	case dialogFirstRun:
		rows = append(rows, a.firstRunRows(option)...)
	case dialogPermission:
		rows = append(rows,
			styled(sgrBold, "  Do you want to proceed?"),
			option(0, "1. Yes"),
			option(1, "2. No"),
			plain(""),
			styled(sgrDim, "  Esc to cancel"))
	}
	return rows
}

// layout returns exactly a.rows lines for the whole screen and the caret
// position (1-based), or caretRow 0 when there is no input caret.
func (a *app) layout() (screen []line, caretRow, caretCol int) {
	cols, nrows := a.cols, a.rows
	screen = make([]line, nrows)
	if a.starting {
		screen[0] = plain("fakeagent starting…")
		return screen, 0, 0
	}

	// Lines between the transcript and the prompt box.
	var top []line
	if a.busy != nil {
		top = append(top, styled(sgrSpinner, "✻ Working…"), plain(""))
	}
	for _, q := range a.queue {
		for i, l := range strings.Split(q, "\n") {
			if i == 0 {
				top = append(top, plain("  "+promptGlyph+" "+l))
			} else {
				top = append(top, plain("    "+l))
			}
		}
	}

	var box []line // rule, prompt rows / dialog, rule, footer
	caretIdx := -1
	if a.dialog != nil {
		box = append(box, rule(cols))
		box = append(box, a.dialogRows()...)
	} else {
		in, cr, cc := a.inputRows(cols)
		var foot []line
		if items := a.menuItems(); items != nil {
			for i, c := range items {
				l := line{{text: "  "}, {text: fmt.Sprintf("%-14s", c.name)}, {sgr: sgrDim, text: c.desc}}
				if i == 0 {
					l[1].sgr = sgrSelect
				}
				foot = append(foot, l)
			}
		} else {
			left := "  ? for shortcuts"
			if a.busy != nil {
				left = "  esc to interrupt"
			}
			hint := ""
			switch {
			case a.ctrlCHint:
				hint = "Press Ctrl-C again to exit"
			case a.escHint:
				hint = "Esc again to clear"
			}
			foot = append(foot, footer(left, hint, cols))
		}
		// Keep both rules and the footer visible: drop the busy/queue
		// lines first, then the oldest input rows.
		budget := nrows - 2 - len(foot) - len(top)
		if budget < 1 {
			top = nil
			budget = nrows - 2 - len(foot)
		}
		if budget < 1 {
			budget = 1
		}
		if len(in) > budget {
			drop := len(in) - budget
			in = in[drop:]
			cr -= drop
		}
		box = append(box, rule(cols))
		caretIdx = len(box) + cr
		caretCol = cc
		box = append(box, in...)
		box = append(box, rule(cols))
		box = append(box, foot...)
	}

	if caretIdx >= 0 {
		caretIdx += len(top)
	}
	bottom := append(top, box...)
	if len(bottom) > nrows {
		drop := len(bottom) - nrows
		bottom = bottom[drop:]
		caretIdx -= drop
	}
	start := nrows - len(bottom)
	copy(screen[start:], bottom)

	// Transcript above, newest at the bottom.
	var tr []string
	for _, l := range a.transcript {
		tr = append(tr, wrap(l, cols)...)
	}
	if len(tr) > start {
		tr = tr[len(tr)-start:]
	}
	for i, l := range tr {
		screen[start-len(tr)+i] = plain(l)
	}

	if caretIdx >= 0 {
		return screen, start + caretIdx + 1, caretCol + 1
	}
	return screen, 0, 0
}

// currentTitle is the OSC 0 title for the state ("" = none yet).
func (a *app) currentTitle() string {
	switch {
	case a.starting:
		return ""
	case a.busy != nil:
		return spinnerFrames[a.frame%len(spinnerFrames)] + " " + title
	default:
		return idleGlyph + " " + title
	}
}

// draw writes the rows that changed since the last frame (all rows after a
// clear when full is set), the title and the cursor, in one write call.
func (a *app) draw(full bool) {
	screen, cr, cc := a.layout()
	var b strings.Builder
	if full || len(a.prev) != len(screen) {
		b.WriteString("\x1b[0m\x1b[?25l\x1b[H\x1b[2J")
		a.prev = make([]string, len(screen))
		for i := range a.prev {
			a.prev[i] = "\x00" // force every row
		}
		a.lastCursor = [2]int{-1, -1}
	}
	for i, l := range screen {
		s := render(l, a.cols)
		if s == a.prev[i] {
			continue
		}
		a.prev[i] = s
		fmt.Fprintf(&b, "\x1b[%d;1H%s", i+1, s)
	}
	if t := a.currentTitle(); t != "" && t != a.lastTitle {
		a.lastTitle = t
		b.WriteString("\x1b]0;" + t + "\x07")
	}
	if cr == 0 {
		cr, cc = a.rows, 1
	}
	if b.Len() > 0 || a.lastCursor != [2]int{cr, cc} {
		a.lastCursor = [2]int{cr, cc}
		fmt.Fprintf(&b, "\x1b[%d;%dH", cr, cc)
	}
	if b.Len() > 0 {
		_, _ = a.out.Write([]byte(b.String()))
	}
}
