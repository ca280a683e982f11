package ui

// input.go routes the person's raw bytes, as tmux does: everything goes
// unchanged to the focused pane, except the prefix key and the one key after
// it, and SGR mouse reports (office turned mouse reporting on). While one of
// office's boxes is open its keys are decoded for it instead.

import (
	"bytes"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"office/pool"
)

// Bracketed-paste markers as the person's terminal sends them.
var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
	mouseStart = []byte("\x1b[<")
)

// maxMouseReport bounds an SGR mouse report; a longer "report" is passed on.
const maxMouseReport = 32

// input handles one raw chunk from stdin.
func (m *model) input(p []byte) tea.Cmd {
	if len(m.carry) > 0 {
		p = append(m.carry, p...)
		m.carry = nil
	}
	var cmds []tea.Cmd
	for len(p) > 0 {
		if m.prefixPending {
			m.prefixPending = false
			k, n := decodeKey(p)
			if p[0] == m.prefix {
				k, n = key{kind: keyCtrl, r: -1}, 1
			}
			cmds = append(cmds, m.command(k))
			p = p[n:]
			continue
		}
		i := m.special(p)
		if i < 0 {
			cmds = append(cmds, m.deliver(p))
			break
		}
		cmds = append(cmds, m.deliver(p[:i]))
		p = p[i:]
		if p[0] == m.prefix {
			m.prefixPending = true
			p = p[1:]
			continue
		}
		ev, n := parseMouse(p)
		if n == 0 { // a report cut by the end of the chunk
			if len(p) < maxMouseReport {
				m.carry = append([]byte(nil), p...)
				break
			}
			n = len(p)
		}
		if ev.ok {
			cmds = append(cmds, m.mouseEvent(ev))
		} else {
			cmds = append(cmds, m.deliver(p[:n]))
		}
		p = p[n:]
	}
	return tea.Batch(cmds...)
}

// special returns the index of the next prefix key or SGR mouse report in p,
// or -1.
func (m *model) special(p []byte) int {
	i := bytes.IndexByte(p, m.prefix)
	if !m.mouse {
		return i
	}
	// A report cut before its "<" is not waited for: a lone ESC at the end of
	// a chunk is the person's Esc and must reach the agent now.
	j := bytes.Index(p, mouseStart)
	switch {
	case i < 0:
		return j
	case j < 0 || i < j:
		return i
	}
	return j
}

// deliver hands bytes to the open box, or else to the focused pane.
func (m *model) deliver(p []byte) tea.Cmd {
	if len(p) == 0 {
		return nil
	}
	if m.overlay != overlayNone {
		var cmds []tea.Cmd
		for _, k := range m.keys.decode(p) {
			cmds = append(cmds, m.overlayKey(k))
		}
		return tea.Batch(cmds...)
	}
	m.forward(p)
	return nil
}

// command runs the office command k (the key after the prefix).
func (m *model) command(k key) tea.Cmd {
	m.dirty = true
	switch {
	case k.kind == keyCtrl && k.r == -1:
		// The prefix twice sends the prefix key itself.
		if m.overlay == overlayNone {
			m.forward([]byte{m.prefix})
		}
		return nil
	case k.kind == keyLeft || k.is('h'):
		return m.move(-1, 0)
	case k.kind == keyRight || k.is('l'):
		return m.move(1, 0)
	case k.kind == keyUp || k.is('k'):
		return m.move(0, -1)
	case k.kind == keyDown || k.is('j'):
		return m.move(0, 1)
	case k.kind == keyTab:
		if len(m.panes) > 0 {
			return m.setFocus((m.focus + 1) % len(m.panes))
		}
	case k.kind == keyBackTab:
		if len(m.panes) > 0 {
			return m.setFocus((m.focus - 1 + len(m.panes)) % len(m.panes))
		}
	case k.kind == keyRune && !k.alt && k.r >= '1' && k.r <= '9':
		page, _ := m.page()
		return m.setFocus(page*maxPerPage + int(k.r-'1'))
	case k.kind == keyPgDn || k.is('>'):
		page, pages := m.page()
		if page+1 < pages {
			return m.setFocus((page + 1) * maxPerPage)
		}
	case k.kind == keyPgUp || k.is('<'):
		if page, _ := m.page(); page > 0 {
			return m.setFocus((page - 1) * maxPerPage)
		}
	case k.is('z'):
		m.zoom = !m.zoom
		return m.layout()
	case k.is('r'):
		m.roster = !m.roster
		return m.layout()
	case k.is('m'):
		return m.openComposer()
	case k.is('q'):
		return m.toggleQueuePanel()
	case k.is('n'):
		m.toggle(overlayNotices)
		m.notices.unread, m.notices.sel = 0, 0
	case k.is('?'):
		m.toggle(overlayHelp)
	case k.is('p'):
		return pauseCmd(m.src, !m.floorPaused)
	case k.is('x'):
		m.overlay = overlayQuit
	}
	return nil
}

// toggle opens box o, or closes it when it is open.
func (m *model) toggle(o overlayKind) {
	if m.overlay == o {
		m.overlay = overlayNone
		return
	}
	m.overlay = o
	m.keys = keyDecoder{}
}

// overlayKey gives one key to the open box.
func (m *model) overlayKey(k key) tea.Cmd {
	switch m.overlay {
	case overlayComposer:
		return m.composerKey(k)
	case overlayQueue:
		return m.queueKey(k)
	case overlayNotices:
		return m.noticesKey(k)
	case overlayQuit:
		m.overlay = overlayNone
		if k.is('y') || k.is('Y') {
			return tea.Quit
		}
	case overlayHelp:
		m.overlay = overlayNone
	}
	return nil
}

// forward sends bytes to the focused pane, adapted to its modes: cursor keys
// in application form when it asked for DECCKM, paste markers only when it
// turned bracketed paste on.
func (m *model) forward(p []byte) {
	pn := m.focused()
	if len(p) == 0 || pn == nil || pn.term == nil {
		return
	}
	modes := pn.term.Modes()
	if !modes.BracketedPaste && bytes.Contains(p, []byte("\x1b[20")) {
		p = bytes.ReplaceAll(p, pasteStart, nil)
		p = bytes.ReplaceAll(p, pasteEnd, nil)
	}
	if modes.AppCursor {
		p = appCursor(p)
	}
	if err := pn.term.Input(p); err != nil {
		m.say(err.Error())
		m.dirty = true
	}
}

// appCursor rewrites CSI cursor keys (ESC [ A..D, H, F) to their SS3 form.
func appCursor(p []byte) []byte {
	if !bytes.Contains(p, []byte("\x1b[")) {
		return p
	}
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == 0x1b && i+2 < len(p) && p[i+1] == '[' {
			switch p[i+2] {
			case 'A', 'B', 'C', 'D', 'H', 'F':
				out = append(out, 0x1b, 'O', p[i+2])
				i += 2
				continue
			}
		}
		out = append(out, p[i])
	}
	return out
}

// mouseEv is one SGR mouse report from the person's terminal.
type mouseEv struct {
	ok      bool
	b       int  // button and modifier bits as reported
	x, y    int  // 0-based screen cell
	release bool // final 'm'
}

// Bits of a mouse report's button code.
const (
	mouseMotion = 32
	mouseWheel  = 64
	mouseMods   = 4 | 8 | 16
)

// parseMouse parses an SGR report (ESC [ < b ; x ; y M|m) at the start of p.
// n is 0 when p ends before the report does; ok is false (with the bytes it
// covers) when p does not hold a well-formed report.
func parseMouse(p []byte) (ev mouseEv, n int) {
	if len(p) < len(mouseStart) {
		if bytes.HasPrefix(mouseStart, p) {
			return ev, 0
		}
		return ev, len(p)
	}
	if !bytes.HasPrefix(p, mouseStart) {
		return ev, 1
	}
	var vals [3]int
	k := 0
	for i := len(mouseStart); i < len(p); i++ {
		c := p[i]
		switch {
		case c >= '0' && c <= '9':
			vals[k] = vals[k]*10 + int(c-'0')
			if vals[k] > 1<<16 {
				return ev, i + 1
			}
		case c == ';' && k < 2:
			k++
		case (c == 'M' || c == 'm') && k == 2:
			if vals[1] < 1 || vals[2] < 1 {
				return ev, i + 1
			}
			return mouseEv{ok: true, b: vals[0], x: vals[1] - 1, y: vals[2] - 1, release: c == 'm'}, i + 1
		default:
			return ev, i + 1
		}
	}
	return ev, 0
}

// mouseEvent handles a report: a press on a pane or on the roster focuses
// that agent (the click is office's); everything else over the focused pane
// reaches its agent only if the agent asked for mouse reports, with
// pane-relative coordinates.
func (m *model) mouseEvent(ev mouseEv) tea.Cmd {
	press := !ev.release && ev.b&(mouseMotion|mouseWheel) == 0 && ev.b&3 != 3
	if m.overlay != overlayNone {
		return nil
	}
	if press && m.rail.contains(ev.x, ev.y) {
		if i := m.rosterIndexAt(ev.y); i >= 0 {
			return m.setFocus(i)
		}
		return nil
	}
	idx := m.paneAt(ev.x, ev.y)
	if press && idx >= 0 && idx != m.focus {
		m.swallowRelease = true
		return m.setFocus(idx)
	}
	if ev.release && m.swallowRelease {
		m.swallowRelease = false
		return nil
	}
	if idx < 0 || idx != m.focus {
		return nil
	}
	p := m.panes[idx]
	cy := ev.y - p.box.Y - 1
	if cy < 0 || p.term == nil {
		return nil // the title row
	}
	if seq := encodeMouse(p.modes.Mouse, ev, ev.x-p.box.X, cy); seq != nil {
		if err := p.term.Input(seq); err != nil {
			m.say(err.Error())
		}
	}
	return nil
}

// encodeMouse encodes ev at pane cell (cx, cy) for an agent in mouse mode
// mode, or returns nil when the agent did not ask for this kind of report.
func encodeMouse(mode pool.MouseMode, ev mouseEv, cx, cy int) []byte {
	motion := ev.b&mouseMotion != 0
	noButton := ev.b&3 == 3
	switch mode.Tracking() {
	case pool.MouseNone:
		return nil
	case pool.MouseX10:
		if ev.release || motion || ev.b&mouseWheel != 0 {
			return nil
		}
		ev.b &^= mouseMods
	case pool.MouseButton:
		if motion {
			return nil
		}
	case pool.MouseDrag:
		if motion && noButton {
			return nil
		}
	}
	x, y := cx+1, cy+1
	switch {
	case mode.SGR():
		final := byte('M')
		if ev.release {
			final = 'm'
		}
		return fmt.Appendf(nil, "\x1b[<%d;%d;%d%c", ev.b, x, y, final)
	case mode.URXVT():
		b := ev.b
		if ev.release {
			b = b&^3 | 3
		}
		return fmt.Appendf(nil, "\x1b[%d;%d;%dM", b+32, x, y)
	}
	if x > 223 || y > 223 {
		return nil // not representable in the X10 encoding
	}
	b := ev.b
	if ev.release {
		if b&mouseWheel != 0 {
			return nil
		}
		b = b&^3 | 3
	}
	out := append([]byte("\x1b[M"), byte(32+b), byte(32+x), byte(32+y))
	return out
}
