package ui

// copymode.go is copy mode: a pane's own view of the agent's history
// followed by its screen, frozen when entered, so new output never moves it.
// Keys in it are office's (tmux's vi copy-mode keys) and never reach the
// agent; delivery goes on underneath. A selection is copied to the system
// clipboard with OSC 52 and to office's paste buffer (prefix ] pastes it).
// Rows are read through Office.History only when the view changes.

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"office/pool"
)

// HistoryLine is one line of an agent's history (Office.History).
type HistoryLine = pool.HistoryLine

// Copy mode bounds.
const (
	// historyTimeout bounds one Office.History call (a round trip to the
	// office's server).
	historyTimeout = 5 * time.Second
	// copyChunk is how many history lines one Office.History call reads
	// while drawing, searching or copying.
	copyChunk = 256
	// maxCopyBytes bounds the text one copy takes.
	maxCopyBytes = 1 << 20
	// wheelLines is how far one wheel notch scrolls.
	wheelLines = 3
	// maxQuery bounds a search string, in runes.
	maxQuery = 200
	// doubleClick is the longest time between the two clicks of a double
	// click on one cell.
	doubleClick = 400 * time.Millisecond
	// wordHold is how long a double-clicked word stays highlighted before
	// the copy mode entered for it ends.
	wordHold = 300 * time.Millisecond
)

// Colours of copy mode's highlights (indexes of the 16 basic colours).
const (
	colBlack   pool.Color = 0
	colYellow  pool.Color = 3
	colMagenta pool.Color = 5
	colCyan    pool.Color = 6
)

// copyPos is a cell of copy mode's content: line is the history's line
// number below total and total+row for the frozen screen's rows.
type copyPos struct {
	line int64
	col  int
}

func (a copyPos) before(b copyPos) bool {
	return a.line < b.line || a.line == b.line && a.col < b.col
}

// copyMode is one pane's copy mode. Only the tea loop touches it.
type copyMode struct {
	agent        string
	first, total int64         // history lines held when entered, first updated as they fall off
	live         int64         // the history's total now
	screen       [][]pool.Cell // the frozen screen's rows; none once the output ended (the history holds them)
	top          int64         // the first line shown
	cur          copyPos
	w, h         int

	selecting bool
	anchor    copyPos

	query      string // the last search
	queryRunes []rune // query, decoded once
	back       bool   // the last search went up
	prompt     bool   // the search line is being typed
	promptUp   bool
	input      []rune
	note       string // "no match", shown on the status line
	auto       bool   // entered by the mouse: the wheel at the bottom leaves
	chunk      []HistoryLine
	view       Screen
	stale      bool
	liveGen    uint64 // the screen generation live was read at
	gen        uint64
	lineRunes  []rune // scratch for matching
	lineCols   []int
}

// historyOf is one Office.History call, bounded by historyTimeout.
func historyOf(o Office, agent string, from, to int64, dst []HistoryLine) (HistoryBounds, []HistoryLine, error) {
	ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
	defer cancel()
	return o.History(ctx, agent, from, to, dst)
}

// enterCopy puts p in copy mode, its view frozen at the bottom, the cursor
// where the agent's is. It reports false for a pane with no terminal.
func (m *model) enterCopy(p *pane, auto bool) bool {
	if p.cm != nil {
		return true
	}
	if p.info.SpawnErr != "" || p.box.W <= 0 {
		return false
	}
	name := p.info.Name
	// The screen and the history's bounds must belong together: a line
	// scrolling off (or the screen moving into the history as the agent's
	// output ends) between the two reads would show twice or not at all.
	var snap Screen
	var b HistoryBounds
	for try := 0; try < 4; try++ {
		b1, _, err := historyOf(m.office, name, 0, 0, nil)
		if err != nil {
			return false
		}
		snap.Generation = ^uint64(0)
		if !m.office.Screen(name, &snap, nil) {
			return false
		}
		b, _, _ = historyOf(m.office, name, 0, 0, nil)
		if b1.Total == b.Total && b1.Live == b.Live {
			break
		}
	}
	c := &copyMode{agent: name, first: b.First, total: b.Total, live: b.Total, auto: auto, stale: true,
		w: p.box.W, h: max(p.box.H-1, 1), gen: 1 << 63}
	if b.Live {
		for y := 0; y < snap.Rows && (y+1)*snap.Cols <= len(snap.Cells); y++ {
			c.screen = append(c.screen, snap.Cells[y*snap.Cols:(y+1)*snap.Cols])
		}
	}
	c.top = c.end() - int64(c.h)
	c.clampTop()
	if b.Live {
		c.cur = copyPos{line: c.total + int64(snap.CursorY), col: snap.CursorX}
	} else {
		// The output ended: its last screen is the history's last lines,
		// shown once; the cursor starts on the last of them.
		c.cur = copyPos{line: c.end() - 1}
	}
	c.clampCur()
	p.cm = c
	p.drawnEpoch = ^uint64(0)
	m.dirty = true
	return true
}

// leaveCopy ends p's copy mode; the pane shows the agent's screen again.
func (m *model) leaveCopy(p *pane) {
	if p.cm == nil {
		return
	}
	p.cm = nil
	p.stale = true
	p.drawnEpoch = ^uint64(0)
	m.dirty = true
	m.readScreens(true)
}

// end is one past the last line.
func (c *copyMode) end() int64 { return c.total + int64(len(c.screen)) }

func (c *copyMode) clampTop() {
	c.top = max(min(c.top, c.end()-int64(c.h)), c.first)
}

func (c *copyMode) clampCur() {
	c.cur.line = max(min(c.cur.line, c.end()-1), c.first)
	c.cur.col = max(min(c.cur.col, c.w-1), 0)
	if c.cur.line < c.top {
		c.top = c.cur.line
	}
	if c.cur.line >= c.top+int64(c.h) {
		c.top = c.cur.line - int64(c.h) + 1
	}
	c.clampTop()
}

// scroll moves the view and the cursor by n lines.
func (c *copyMode) scroll(n int) {
	c.top += int64(n)
	c.clampTop()
	c.cur.line += int64(n)
	c.cur.line = max(min(c.cur.line, c.top+int64(c.h)-1), c.top)
	c.clampCur()
}

// atBottom reports whether the view shows the last line.
func (c *copyMode) atBottom() bool { return c.top+int64(c.h) >= c.end() }

// back is how many lines the view is above the agent's output now.
func (c *copyMode) behind() int64 {
	return max(c.live-c.total, 0) + max(c.end()-c.top-int64(c.h), 0)
}

// lineAt returns line l's cells (nil when it is gone), reading history in
// chunks; back says the caller walks upwards.
func (c *copyMode) lineAt(o Office, l int64, back bool) []pool.Cell {
	if l >= c.total {
		if i := l - c.total; i < int64(len(c.screen)) {
			return c.screen[i]
		}
		return nil
	}
	if l < c.first {
		return nil
	}
	if row, ok := c.cached(l); ok {
		return row
	}
	from := l
	if back {
		from = max(l-copyChunk+1, c.first)
	}
	b, rows, err := historyOf(o, c.agent, from, min(from+copyChunk, c.total), c.chunk)
	if err != nil {
		c.note = err.Error()
		return nil
	}
	c.chunk = rows
	c.dropBefore(b.First)
	row, _ := c.cached(l)
	return row
}

func (c *copyMode) cached(l int64) ([]pool.Cell, bool) {
	if n := len(c.chunk); n > 0 && l >= c.chunk[0].Seq && l <= c.chunk[n-1].Seq {
		if r := &c.chunk[l-c.chunk[0].Seq]; r.Seq == l {
			return r.Cells, true
		}
	}
	return nil, false
}

// frameView returns the view to draw in a w × h body, rebuilt only when
// something in it changed.
func (c *copyMode) frameView(o Office, w, h int) *Screen {
	if w != c.w || h != c.h {
		c.w, c.h = max(w, 1), max(h, 1)
		c.clampCur()
		c.stale = true
	}
	if !c.stale {
		return &c.view
	}
	c.stale = false
	c.gen++
	v := &c.view
	v.Cols, v.Rows, v.Generation = c.w, c.h, c.gen
	if n := c.w * c.h; cap(v.Cells) < n {
		v.Cells = make([]pool.Cell, n)
	} else {
		v.Cells = v.Cells[:n]
	}
	selFrom, selTo := c.selection()
	for y := 0; y < c.h; y++ {
		l := c.top + int64(y)
		dst := v.Cells[y*c.w : (y+1)*c.w]
		src := c.lineAt(o, l, false)
		n := copy(dst, src)
		for x := n; x < c.w; x++ {
			dst[x] = blankBody
		}
		if c.query != "" && src != nil {
			c.markMatches(dst, src, l)
		}
		if c.selecting && l >= selFrom.line && l <= selTo.line {
			from, to := 0, c.w-1
			if l == selFrom.line {
				from = selFrom.col
			}
			if l == selTo.line {
				to = selTo.col
			}
			for x := from; x <= to && x < c.w; x++ {
				paint(&dst[x], colYellow)
			}
		}
	}
	return v
}

// paint gives a cell the highlight bg with black text.
func paint(cell *pool.Cell, bg pool.Color) {
	cell.FG, cell.BG = colBlack, bg
	cell.Attr &^= pool.AttrReverse
	if cell.Rune == 0 && cell.Width == 1 {
		cell.Rune = ' '
	}
}

// selection returns the selection's ends in order.
func (c *copyMode) selection() (from, to copyPos) {
	from, to = c.anchor, c.cur
	if to.before(from) {
		from, to = to, from
	}
	return from, to
}

// lineText fills the scratch runes of a line with one rune per cell that
// starts a character, and their cell columns.
func (c *copyMode) lineText(cells []pool.Cell) {
	c.lineRunes, c.lineCols = c.lineRunes[:0], c.lineCols[:0]
	for i := range cells {
		if cells[i].Width == 0 {
			continue
		}
		r := cells[i].Rune
		if r == 0 || r == pool.WidePlaceholder {
			r = ' '
		}
		c.lineRunes = append(c.lineRunes, r)
		c.lineCols = append(c.lineCols, i)
	}
}

// foldCase: a query all in lower case matches either case (smart case, as
// in vi's smartcase).
func foldCase(q string) bool { return q == strings.ToLower(q) }

// matchAt reports whether the query matches the scratch line at rune i.
func (c *copyMode) matchAt(q []rune, i int, fold bool) bool {
	if i+len(q) > len(c.lineRunes) {
		return false
	}
	for k, r := range q {
		got := c.lineRunes[i+k]
		if fold {
			got = unicode.ToLower(got)
		}
		if got != r {
			return false
		}
	}
	return true
}

// markMatches highlights every match of the query in a shown row; the
// match under the cursor stands out.
func (c *copyMode) markMatches(dst, src []pool.Cell, l int64) {
	if string(c.queryRunes) != c.query {
		c.queryRunes = []rune(c.query)
	}
	q := c.queryRunes
	c.lineText(src)
	fold := foldCase(c.query)
	for i := 0; i < len(c.lineRunes); i++ {
		if !c.matchAt(q, i, fold) {
			continue
		}
		from := c.lineCols[i]
		to := len(src)
		if i+len(q) < len(c.lineCols) {
			to = c.lineCols[i+len(q)]
		}
		bg := colCyan
		if l == c.cur.line && from == c.cur.col {
			bg = colMagenta
		}
		for x := from; x < to && x < len(dst); x++ {
			paint(&dst[x], bg)
		}
		i += len(q) - 1
	}
}

// search moves the cursor to the next match of q upwards or downwards from
// the cursor, wrapping around, and brings it into view.
func (c *copyMode) search(o Office, q string, up bool) bool {
	if q == "" {
		return false
	}
	qr := []rune(q)
	fold := foldCase(q)
	n := c.end() - c.first
	l := c.cur.line
	for k := int64(0); k <= n; k++ {
		cells := c.lineAt(o, l, up)
		c.lineText(cells)
		best := -1
		for i := 0; i < len(c.lineRunes); i++ {
			if !c.matchAt(qr, i, fold) {
				continue
			}
			col := c.lineCols[i]
			if k == 0 && (!up && col <= c.cur.col || up && col >= c.cur.col) {
				continue // not past the cursor on its own line
			}
			if !up {
				best = col
				break
			}
			best = col
		}
		if best >= 0 {
			c.cur = copyPos{line: l, col: best}
			if c.cur.line < c.top || c.cur.line >= c.top+int64(c.h) {
				c.top = c.cur.line - int64(c.h)/2
			}
			c.clampCur()
			return true
		}
		if up {
			l--
			if l < c.first {
				l = c.end() - 1
			}
		} else {
			l++
			if l >= c.end() {
				l = c.first
			}
		}
	}
	return false
}

// text returns the text from a to b (inclusive), lines trimmed of trailing
// blanks and joined with newlines, at most maxCopyBytes.
func (c *copyMode) text(o Office, a, b copyPos) string {
	var sb strings.Builder
	for l := a.line; l <= b.line && sb.Len() < maxCopyBytes; l++ {
		c.lineText(c.lineAt(o, l, false))
		var line []rune
		for i, r := range c.lineRunes {
			col := c.lineCols[i]
			if l == a.line && col < a.col || l == b.line && col > b.col {
				continue
			}
			line = append(line, r)
		}
		if l > a.line {
			sb.WriteByte('\n')
		}
		sb.WriteString(strings.TrimRight(string(line), " "))
	}
	s := sb.String()
	if len(s) > maxCopyBytes {
		s = strings.ToValidUTF8(s[:maxCopyBytes], "")
	}
	return s
}

// wordAt returns the ends of the word under p (a run of cells without a
// blank or a separator), and false on a blank.
func (c *copyMode) wordAt(o Office, p copyPos) (copyPos, copyPos, bool) {
	c.lineText(c.lineAt(o, p.line, false))
	at := -1
	for i, col := range c.lineCols {
		if col <= p.col {
			at = i
		}
	}
	if at < 0 || isWordSep(c.lineRunes[at]) {
		return p, p, false
	}
	i, j := at, at
	for i > 0 && !isWordSep(c.lineRunes[i-1]) {
		i--
	}
	for j+1 < len(c.lineRunes) && !isWordSep(c.lineRunes[j+1]) {
		j++
	}
	return copyPos{p.line, c.lineCols[i]}, copyPos{p.line, c.lineCols[j]}, true
}

// isWordSep: the characters a double click's word stops at (a path or a
// URL stays one word).
func isWordSep(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("\"'`()[]{}<>|,;", r)
}

// lineEnd is the column of the last character of the cursor's line.
func (c *copyMode) lineEnd(o Office) int {
	c.lineText(c.lineAt(o, c.cur.line, false))
	for i := len(c.lineRunes) - 1; i >= 0; i-- {
		if c.lineRunes[i] != ' ' {
			return c.lineCols[i]
		}
	}
	return 0
}

// tag is what the pane's title says in copy mode: how far back it is.
func (c *copyMode) tag() string {
	if n := c.behind(); n > 0 {
		return fmt.Sprintf("[+%d]", n)
	}
	return "[copy]"
}

// copyTag refreshes the live bounds of p's copy mode and returns its title
// tag ("" outside copy mode).
func (m *model) copyTag(p *pane) string {
	c := p.cm
	if c == nil {
		return ""
	}
	if p.snap.Generation == c.liveGen {
		return c.tag() // nothing new on the agent's screen: no call
	}
	c.liveGen = p.snap.Generation
	b, _, err := historyOf(m.office, c.agent, 0, 0, nil)
	if err != nil {
		return c.tag()
	}
	if b.Live {
		// Not once the output ended: the lines its last screen adds to
		// the history were on the screen, not new output.
		c.live = max(c.live, b.Total)
	}
	if c.dropBefore(b.First) && c.top < c.first {
		c.clampCur()
		c.stale = true
	}
	return c.tag()
}

// dropBefore records that the history no longer holds the lines before
// first, and reports whether that dropped any copy mode showed. The frozen
// screen's rows are copy mode's own, so first never passes them: a history
// evicted past all the lines it held (an agent flooding its pane) leaves the
// frozen screen to show, count and search.
func (c *copyMode) dropBefore(first int64) bool {
	first = min(first, c.total)
	if first <= c.first {
		return false
	}
	c.first = first
	return true
}

// copyCursor is the person's cursor in the focused pane's copy mode: on
// the status line while a search is typed, else on the copy cursor.
func (m *model) copyCursor(p *pane) cursorState {
	c := p.cm
	if c.prompt {
		return cursorState{x: min(stringCells(m.copyPrompt()), m.width-1), y: m.height - 1, visible: true, shape: 2}
	}
	return cursorState{x: p.box.X + c.cur.col, y: p.box.Y + 1 + int(c.cur.line-c.top), visible: true, shape: 2}
}

// copyPrompt is the search line being typed.
func (m *model) copyPrompt() string {
	c := m.focused().cm
	dir := "down"
	if c.promptUp {
		dir = "up"
	}
	return " search " + dir + ": " + string(c.input)
}

// copyStatus is the status line while the focused pane is in copy mode
// ("" when it is not).
func (m *model) copyStatus() string {
	p := m.focused()
	if p == nil || p.cm == nil {
		return ""
	}
	c := p.cm
	if c.prompt {
		return m.copyPrompt()
	}
	s := fmt.Sprintf(" copy mode %s · line %d/%d · v select · y copy · / ? search · n N next · g G top/bottom · q leave", c.tag(), c.cur.line-c.first+1, c.end()-c.first)
	if c.note != "" {
		s = " " + c.note + " ·" + s
	}
	return s
}

// copyKey is one key in the focused pane's copy mode.
func (m *model) copyKey(p *pane, k tea.Key) tea.Cmd {
	c := p.cm
	c.stale, c.note, m.dirty = true, "", true
	if c.prompt {
		switch {
		case k.Code == tea.KeyEscape:
			c.prompt = false
		case k.Code == tea.KeyEnter:
			c.prompt = false
			if len(c.input) > 0 {
				c.query, c.back = string(c.input), c.promptUp
				if !c.search(m.office, c.query, c.back) {
					c.note = "no match for " + c.query
				}
			}
		case k.Code == tea.KeyBackspace:
			if len(c.input) > 0 {
				c.input = c.input[:len(c.input)-1]
			}
		case k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0:
			if len(c.input) < maxQuery {
				c.input = append(c.input, []rune(k.Text)...)
			}
		}
		return nil
	}
	ctrl := func(r rune) bool { return k.Code == r && k.Mod&^(tea.ModCapsLock|tea.ModNumLock) == tea.ModCtrl }
	half := max(c.h/2, 1)
	switch {
	case k.Code == tea.KeyEscape || is(k, 'q'):
		m.leaveCopy(p)
	case k.Code == tea.KeyLeft || is(k, 'h'):
		c.cur.col--
		c.clampCur()
	case k.Code == tea.KeyRight || is(k, 'l'):
		c.cur.col++
		c.clampCur()
	case k.Code == tea.KeyUp || is(k, 'k'):
		c.cur.line--
		c.clampCur()
	case k.Code == tea.KeyDown || is(k, 'j'):
		c.cur.line++
		c.clampCur()
	case k.Code == tea.KeyPgUp || ctrl('b'):
		c.scroll(-c.h)
	case k.Code == tea.KeyPgDown || ctrl('f'):
		c.scroll(c.h)
	case ctrl('u'):
		c.scroll(-half)
	case ctrl('d'):
		c.scroll(half)
	case is(k, 'g'):
		c.cur = copyPos{line: c.first}
		c.clampCur()
	case is(k, 'G'):
		c.cur = copyPos{line: c.end() - 1}
		c.top = c.end()
		c.clampCur()
	case is(k, '0') || k.Code == tea.KeyHome:
		c.cur.col = 0
	case is(k, '$') || k.Code == tea.KeyEnd:
		c.cur.col = c.lineEnd(m.office)
		c.clampCur()
	case is(k, '/') || is(k, '?'):
		c.prompt, c.promptUp, c.input = true, is(k, '?'), c.input[:0]
	case is(k, 'n') || is(k, 'N'):
		up := c.back != is(k, 'N')
		if c.query != "" && !c.search(m.office, c.query, up) {
			c.note = "no match for " + c.query
		}
	case is(k, 'v') || k.Code == tea.KeySpace:
		c.selecting, c.anchor = true, c.cur
	case is(k, 'y') || k.Code == tea.KeyEnter:
		if !c.selecting {
			c.note = "nothing selected (v starts a selection)"
			return nil
		}
		from, to := c.selection()
		text := c.text(m.office, from, to)
		m.leaveCopy(p)
		return m.copyText(text)
	}
	return nil
}

// copyText puts text in office's paste buffer and on the system clipboard
// (OSC 52, which the person's terminal, an SSH session and tmux with
// set-clipboard on all pass on).
func (m *model) copyText(text string) tea.Cmd {
	if text == "" {
		return nil
	}
	m.pasteBuf = text
	if m.out != nil {
		_ = m.out.write(ansi.SetSystemClipboard(text))
	}
	return m.say(fmt.Sprintf("copied %s (%s ] pastes)", plural(len([]rune(text)), "character"), prefixName(m.prefix)))
}

// pasteBuffer types office's paste buffer into the focused pane as the
// person's own paste (bracketed when the agent asked for it).
func (m *model) pasteBuffer() tea.Cmd {
	p := m.focused()
	if p == nil {
		return nil
	}
	if m.pasteBuf == "" {
		return m.say("the paste buffer is empty: copy something first (" + prefixName(m.prefix) + " [ … y)")
	}
	m.leaveCopy(p)
	m.forward(encodePaste(m.pasteBuf, p.snap.Modes.BracketedPaste))
	return nil
}

// copyCommand is prefix [: the focused pane enters copy mode.
func (m *model) copyCommand() tea.Cmd {
	p := m.focused()
	if p == nil || !m.enterCopy(p, false) {
		return m.say("no screen to copy from")
	}
	return nil
}

// wantsMouse reports whether the agent in p gets mouse reports: it asked
// for them and the pane is not in copy mode.
func (p *pane) wantsMouse() bool {
	return p.cm == nil && p.snap.Modes.Mouse.Tracking() != pool.MouseNone
}

// mouseState is a press office keeps for itself: where a drag started, and
// the last click, for a double click.
type mouseState struct {
	down       bool // a press on a pane is held
	pane       int  // the pane pressed
	sx, sy     int  // the screen cell pressed
	moved      bool
	lastPane   int
	lastX      int
	lastY      int
	lastAt     int64 // unix nanoseconds of the last click
	lastActive bool
}

// copyMouse handles the mouse over a pane whose agent did not ask for it
// (or one in copy mode): the wheel scrolls its history, a drag selects
// inside it, a double click selects a word. It reports whether the event
// was office's.
func (m *model) copyMouse(ev mouseEv) (tea.Cmd, bool) {
	wheel := ev.b&mouseWheel != 0
	press := !ev.release && ev.b&(mouseMotion|mouseWheel) == 0 && ev.b&3 == 0
	drag := ev.b&mouseMotion != 0 && ev.b&3 == 0
	if ev.b&mouseMods != 0 {
		return nil, false
	}
	st := &m.mouseSt
	if st.pane >= len(m.panes) {
		st.down = false
	}
	switch {
	case wheel && ev.b&3 < 2:
		idx := m.paneAt(ev.x, ev.y)
		if idx < 0 || m.panes[idx].wantsMouse() {
			return nil, false
		}
		p := m.panes[idx]
		if ev.b&1 == 0 {
			if !m.enterCopy(p, true) {
				return nil, true
			}
			p.cm.scroll(-wheelLines)
		} else if p.cm != nil {
			p.cm.scroll(wheelLines)
			if p.cm.auto && p.cm.atBottom() && !p.cm.selecting {
				m.leaveCopy(p)
				return nil, true
			}
		}
		if p.cm != nil {
			p.cm.stale = true
		}
		m.dirty = true
		return nil, true
	case press:
		idx := m.paneAt(ev.x, ev.y)
		if idx < 0 || m.panes[idx].wantsMouse() || ev.y == m.panes[idx].box.Y {
			return nil, false
		}
		p := m.panes[idx]
		cmd := m.setFocus(idx)
		m.swallowRelease = false
		st.down, st.pane, st.moved, st.sx, st.sy = true, idx, false, ev.x, ev.y
		now := m.now().UnixNano()
		double := st.lastActive && st.lastPane == idx && st.lastX == ev.x && st.lastY == ev.y && now-st.lastAt <= int64(doubleClick)
		st.lastPane, st.lastX, st.lastY, st.lastAt, st.lastActive = idx, ev.x, ev.y, now, !double
		if double {
			st.down = false
			return tea.Batch(cmd, m.selectWord(p, ev.x, ev.y)), true
		}
		if p.cm != nil {
			p.cm.selecting = false
			p.cm.stale = true
		}
		return cmd, true
	case drag && st.down:
		p := m.panes[st.pane]
		if !st.moved {
			if p.cm == nil && !m.enterCopy(p, true) {
				st.down = false
				return nil, true
			}
			st.moved, st.lastActive = true, false // a drag is no first click
			p.cm.selecting, p.cm.anchor = true, m.cellPos(p, st.sx, st.sy)
		}
		c := p.cm
		if c == nil {
			return nil, true
		}
		// Past the pane's top or bottom edge the view scrolls; the
		// selection never leaves the pane.
		if ev.y <= p.box.Y {
			c.scroll(-1)
		} else if ev.y >= p.box.Y+p.box.H {
			c.scroll(1)
		}
		c.cur = m.cellPos(p, ev.x, ev.y)
		c.clampCur()
		c.stale, m.dirty = true, true
		return nil, true
	case ev.release && st.down:
		p := m.panes[st.pane]
		st.down = false
		if !st.moved || p.cm == nil || !p.cm.selecting {
			return nil, true
		}
		c := p.cm
		from, to := c.selection()
		text := c.text(m.office, from, to)
		if c.auto {
			m.leaveCopy(p)
		} else {
			c.selecting, c.stale = false, true
		}
		return m.copyText(text), true
	}
	return nil, false
}

// cellPos is the copy-mode position of screen cell (x, y) in p (which is
// in copy mode), clamped to p's body.
func (m *model) cellPos(p *pane, x, y int) copyPos {
	cx := max(min(x-p.box.X, p.box.W-1), 0)
	cy := max(min(y-p.box.Y-1, p.box.H-2), 0)
	return copyPos{line: p.cm.top + int64(cy), col: cx}
}

// selectWord selects and copies the word under (x, y) in p and leaves copy
// mode a moment later if it was entered for it.
func (m *model) selectWord(p *pane, x, y int) tea.Cmd {
	if !m.enterCopy(p, p.cm == nil) {
		return nil
	}
	c := p.cm
	a, b, ok := c.wordAt(m.office, m.cellPos(p, x, y))
	if !ok {
		if c.auto {
			m.leaveCopy(p)
		}
		return nil
	}
	c.selecting, c.anchor, c.cur, c.stale = true, a, b, true
	m.dirty = true
	cmd := m.copyText(c.text(m.office, a, b))
	if !c.auto {
		return cmd
	}
	name := p.info.Name
	return tea.Batch(cmd, m.tick(wordHold, func(time.Time) tea.Msg { return copyDoneMsg{agent: name, cm: c} }))
}

// copyDoneMsg ends the copy mode a double click entered, if it is still
// the one shown.
type copyDoneMsg struct {
	agent string
	cm    *copyMode
}

// copyDone handles copyDoneMsg.
func (m *model) copyDone(msg copyDoneMsg) {
	for _, p := range m.panes {
		if p.info.Name == msg.agent && p.cm == msg.cm {
			m.leaveCopy(p)
		}
	}
}
