package ui

// draw.go composes the frame from the model: pane bodies from their screens,
// title bars, separators, the roster rail, the open box (a lipgloss layer
// over the panes) and the status line, then hands it to the output with the
// person's cursor placed. Chrome is rendered only when its text changed
// and copied into the frame only when it changed or moved; a box opening,
// closing or moving, or a new layout, has every pane compared with what
// the frame holds (never converted afresh), so only the cells that differ
// reach the terminal.

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// runeCells and stringCells measure chrome text in cells.
func runeCells(r rune) int { return ansi.StringWidth(string(r)) }

func stringCells(s string) int { return ansi.StringWidth(s) }

// draw composes the frame if anything changed and writes it out.
func (m *model) draw() {
	if m.dirty {
		m.compose()
		m.dirty = false
	}
	if m.out != nil && m.width > 0 && m.height > 0 {
		_ = m.out.draw(m.frame, m.cursor())
	}
}

// compose brings the frame up to date with the model.
func (m *model) compose() {
	if m.width <= 0 || m.height <= 0 {
		return
	}
	f := m.frame
	f.resize(m.width, m.height)
	f.n++
	bodyH := m.height - 1
	box, boxLines := m.openBox()
	if box != m.boxRect {
		f.recheck() // what the old box covered is drawn again
		m.boxRect = box
	}
	now := m.now()
	page, _ := m.page()
	blank := m.sepC.get("sep", 1, bodyH, func() string {
		return m.pal.sep.Render(strings.TrimSuffix(strings.Repeat("│\n", bodyH), "\n"))
	})
	for _, idx := range m.vis {
		p := m.panes[idx]
		b := p.box
		if b.W <= 0 {
			continue
		}
		key := idx - page*maxPerPage + 1
		if m.zoom {
			key = 0
		}
		st, kind := m.pal.titleOther, 'o'
		switch {
		case idx == m.focus:
			st, kind = m.pal.titleFocused, 'f'
		case p.needsAttention():
			st, kind = m.pal.titleAttention, 'a'
		case p.limited():
			st, kind = m.pal.titleLimited, 'l'
		}
		tk := titleKey{key: key, kind: kind, n: m.floor.Counts[p.info.Name], hold: m.floor.Holds[p.info.Name],
			paused: m.floor.Paused, w: b.W, status: p.info.Status, exited: p.info.Exited, code: p.info.ExitCode,
			draft: p.info.Draft, spawnErr: p.info.SpawnErr != "", copy: m.copyTag(p),
			limitAt: p.info.LimitAt.Unix(), limitRetry: p.info.LimitRetry}
		switch {
		case p.starting():
			tk.secs = int(now.Sub(p.info.Started) / time.Second)
		case p.restartPending():
			tk.secs = int(p.restartIn(now) / time.Second)
		case p.limited():
			tk.secs = int(p.info.LimitAt.Sub(now) / time.Minute) // its countdown moves by the minute
		}
		if tk != p.titleK || p.titleC.buf == nil {
			p.titleK = tk
			text := p.titleText(key, tk.n, tk.hold, tk.paused, b.W, now)
			if tk.copy != "" {
				text = " " + tk.copy + text
			}
			p.titleC.get(string(kind)+text, b.W, 1, func() string { return line(st, text, b.W) })
		}
		if tb := p.titleC.buf; !f.placedAgain(&p.titleC.at, tb, b.X, b.Y, 0, box) {
			f.chrome(tb, b.X, b.Y, box)
		}
		body := rect{X: b.X, Y: b.Y + 1, W: b.W, H: b.H - 1}
		if wf := p.waitingFor(now); wf != "" && body.H > 1 {
			// A starting agent: what office waits for, on its last row.
			body.H--
			wf = " " + wf
			wb := p.waitC.get(wf, b.W, 1, func() string { return line(m.pal.titleAttention, wf, b.W) })
			if !f.placedAgain(&p.waitC.at, wb, b.X, body.Y+body.H, 0, box) {
				f.chrome(wb, b.X, body.Y+body.H, box)
			}
		}
		shown, top := &p.snap, p.viewTop(body.H)
		if p.cm != nil {
			shown, top = p.cm.frameView(m.office, body.W, body.H), 0
		}
		if p.drawnGen != shown.Generation || p.drawnEpoch != f.epoch || p.drawnBody != body || p.drawnTop != top {
			// Only a screen that changed, or a frame drawn afresh, is
			// compared cell by cell; of a screen that changed in the
			// place it was drawn, only the rows that moved.
			var drawn []uint64
			if p.cm == nil && p.drawnEpoch == f.epoch && p.drawnBody == body && p.drawnTop == top &&
				len(p.drawnRows) == len(p.rows) && len(p.rows) == shown.Rows {
				drawn = p.drawnRows
			}
			f.body(shown, top, body, box, drawn, p.rows)
			p.drawnGen, p.drawnEpoch, p.drawnBody, p.drawnTop = shown.Generation, f.epoch, body, top
			p.drawnRows = p.drawnRows[:0] // copy mode's view is not snap's rows
			if p.cm == nil {
				p.drawnRows = append(p.drawnRows, p.rows...)
			}
		}
		if b.X > 0 && !f.placedAgain(&p.sep, blank, b.X-1, b.Y, b.H, box) {
			// The separator to the left of the pane.
			f.chromeRange(blank, b.X-1, b.Y, b.H, box)
		}
	}
	if len(m.vis) == 0 {
		// The grid's area only: the rail and its separator beside it are
		// chrome, copied again only when they changed or moved.
		w := m.width
		if m.rail.W > 0 {
			w = m.rail.X - 1
		}
		f.clearArea(rect{W: w, H: bodyH}, box)
	}
	if r := m.rail; r.W > 0 {
		if !f.placedAgain(&m.railSep, blank, r.X-1, r.Y, r.H, box) {
			f.chromeRange(blank, r.X-1, r.Y, r.H, box)
		}
		lines := m.railLines[:0]
		for y := 0; y < r.H; y++ {
			lines = append(lines, m.railLine(y, r.W))
		}
		m.railLines = lines
		content := strings.Join(lines, "\n")
		if rb := m.railC.get(content, r.W, r.H, func() string { return content }); !f.placedAgain(&m.railC.at, rb, r.X, r.Y, 0, box) {
			f.chrome(rb, r.X, r.Y, box)
		}
	}
	if box.W > 0 {
		content := boxLines
		if bb := m.boxC.get(content, box.W, box.H, func() string { return content }); !f.placedAgain(&m.boxC.at, bb, box.X, box.Y, 0, rect{}) {
			f.chrome(bb, box.X, box.Y, rect{})
		}
	}
	left, right, alert := m.statusLine()
	if sk := (statusKey{left: left, right: right, alert: alert, w: m.width}); sk != m.statusK || m.status.buf == nil {
		m.statusK = sk
		st := m.pal.status
		if alert {
			st = m.pal.statusAlert
		}
		w := m.width
		rw := stringCells(right)
		if rw > w {
			right, rw = "", 0
		}
		sl := line(st, left, w-rw) + line(st, right, rw)
		m.status.get(sl, w, 1, func() string { return sl })
	}
	if !f.placedAgain(&m.status.at, m.status.buf, 0, m.height-1, 0, rect{}) {
		f.chrome(m.status.buf, 0, m.height-1, rect{})
	}
}

// statusKey is what the status line shows; it is rendered only when this
// changes.
type statusKey struct {
	left, right string
	alert       bool
	w           int
}

// titleKey is everything a title bar shows; the title is rebuilt only
// when it changes.
type titleKey struct {
	key, n, code, w, secs int
	kind                  rune
	hold, status          string
	paused, exited        bool
	draft, spawnErr       bool
	copy                  string // copy mode's tag ("[+12]")
	limitAt               int64  // a usage limit's reset (Unix seconds)
	limitRetry            bool
}

// chromeRange copies rows [0, h) of column 0 of src to column x from row y.
func (f *frame) chromeRange(src *uv.Buffer, x, y, h int, cover rect) {
	if src == nil {
		return
	}
	for i := 0; i < h && i < src.Height(); i++ {
		if !cover.contains(x, y+i) {
			f.setChrome(x, y+i, src.CellAt(0, i))
		}
	}
}

// clearArea blanks r (outside cover).
func (f *frame) clearArea(r, cover rect) {
	f.body(&Screen{}, 0, r, cover, nil, nil)
}

// cursor is where the person's cursor goes: the open box's text field, or
// the focused agent's cursor cell (also when the agent hides it, so an
// input method composes at the caret), visible exactly when the agent shows
// it, in the shape it asked for.
func (m *model) cursor() cursorState {
	if m.overlay != overlayNone {
		c := m.boxCaret
		if m.overlay != overlayComposer && m.overlay != overlayForm {
			c.visible = false
		}
		return c
	}
	p := m.focused()
	if p == nil || p.box.W <= 0 || p.snap.Cols == 0 {
		return cursorState{x: 0, y: m.height - 1}
	}
	if p.cm != nil {
		return m.copyCursor(p)
	}
	x := min(p.snap.CursorX, p.box.W-1)
	y := min(p.snap.CursorY-p.viewTop(p.box.H-1), p.box.H-2)
	return cursorState{
		x:       p.box.X + max(x, 0),
		y:       p.box.Y + 1 + max(y, 0),
		visible: p.snap.CursorVisible && !p.info.Exited,
		shape:   p.snap.Modes.CursorShape,
	}
}

// boxView is an open box's content.
type boxView struct {
	title  string
	lines  []boxLine
	scroll int // a line that must be visible
	// caret is the text field's caret: line index and cell column, or
	// line -1 for none.
	caretLine, caretCol int
}

// boxLine is one line of a box.
type boxLine struct {
	text string
	st   lipgloss.Style
}

// boxWidth is the width of an open box, its border included.
func (m *model) boxWidth() int {
	if w := min(m.width-2, 110); w >= 24 {
		return w
	}
	return m.width
}

// openBox returns where the open box goes (zero rect: none) and its
// rendered lines, and records its text field's caret.
func (m *model) openBox() (rect, string) {
	bodyH := m.height - 1
	w := m.boxWidth()
	var v boxView
	v.caretLine = -1
	switch m.overlay {
	case overlayHelp:
		v = m.helpView(w)
	case overlayComposer:
		v = m.composerView(w)
	case overlayQueue:
		v = m.queueView(w)
	case overlayNotices:
		v = m.noticesView(w)
	case overlayNeeds:
		v = m.needsView(w)
	case overlayForm:
		v = m.formView(w)
	case overlayRestart:
		v = m.restartView(w)
	default:
		return rect{}, ""
	}
	h := min(len(v.lines)+2, bodyH)
	if h < 3 || w < 3 {
		return rect{}, ""
	}
	r := rect{X: (m.width - w) / 2, Y: (bodyH - h) / 2, W: w, H: h}
	inner := w - 2
	rows := h - 2
	first := 0
	if v.scroll >= rows {
		first = v.scroll - rows + 1
	}
	var lines []string
	for k := first; k < first+rows; k++ {
		if k < len(v.lines) {
			lines = append(lines, line(v.lines[k].st, v.lines[k].text, inner))
		} else {
			lines = append(lines, line(m.pal.boxText, "", inner))
		}
	}
	bst := lipgloss.NewStyle().Border(lipgloss.NormalBorder())
	if !m.pal.noColor {
		bst = bst.BorderForeground(m.pal.border).BorderBackground(m.pal.boxBg)
	}
	body := bst.Render(strings.Join(lines, "\n"))
	// The title sits in the top border.
	if t := v.title; t != "" && stringCells(t) <= inner {
		top, rest, _ := strings.Cut(body, "\n")
		tst := lipgloss.NewStyle().Bold(true)
		if !m.pal.noColor {
			tst = tst.Foreground(m.pal.border).Background(m.pal.boxBg)
		}
		top = ansi.Truncate(top, 1, "") + tst.Render(t) + ansi.TruncateLeft(top, 1+stringCells(t), "")
		body = top + "\n" + rest
	}
	m.boxCaret = cursorState{visible: false}
	if v.caretLine >= first && v.caretLine < first+rows {
		m.boxCaret = cursorState{x: r.X + 1 + min(v.caretCol, inner-1), y: r.Y + 1 + v.caretLine - first, visible: true, shape: 5}
	}
	return r, body
}

// statusLine is the bottom row: left text, right text, and whether it
// is an alert (a question, an error, news).
func (m *model) statusLine() (left, right string, alert bool) {
	var r []string
	if m.floor.Paused {
		r = append(r, "PAUSED")
	}
	if m.zoom {
		// As tmux's Z flag: one pane fills the window until prefix z.
		r = append(r, "ZOOMED ("+prefixName(m.prefix)+" z)")
	}
	if s := m.needsStatus(); s != "" {
		r = append(r, s)
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
		return " s: stop every agent (queue kept) · d: detach, agents keep running · else cancel", "", true
	case m.gone != "" && m.flash == "": // a flash answers what the person just did
		return " " + m.gone + " · " + prefixName(m.prefix) + " s starts it again · " + prefixName(m.prefix) + " d detaches", right, true
	case m.prefixPending:
		left = " " + prefixName(m.prefix) + " … arrows/hjkl 1-9 move · z zoom · m compose · q queue · p pause · r roster · n notices · a add · R restart · ? help · d detach · x quit"
	case m.copyStatus() != "":
		left = m.copyStatus()
	case m.floor.Err != "":
		left, alert = " store: "+m.floor.Err, true
	case m.flash != "":
		left = " " + m.flash
	default:
		if n, ok := m.notices.latest(); ok && m.notices.unread > 0 {
			return " ! " + noticeLine(n), right, true
		}
		left = " office · " + prefixName(m.prefix) + " ? for help"
	}
	return left, right, alert
}

// plural is "1 attempt", "2 attempts".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
