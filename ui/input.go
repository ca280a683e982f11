package ui

// input.go routes the person's keys, pastes and mouse: everything goes to
// the focused agent, encoded for its modes (encode.go), except the prefix
// key and the one key after it, and clicks, which move focus. While one of
// office's boxes is open its keys are its own.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"office/pool"
)

// isPrefix reports whether k is the prefix key.
func (m *model) isPrefix(k tea.Key) bool {
	b := m.prefix
	mods := k.Mod &^ (tea.ModCapsLock | tea.ModNumLock | tea.ModScrollLock)
	switch {
	case b == 0:
		return k.Code == tea.KeySpace && mods == tea.ModCtrl
	case b >= 1 && b <= 26:
		return k.Code == rune('a'+b-1) && mods == tea.ModCtrl
	case b < 0x20:
		return k.Code == rune(b+0x40) && mods == tea.ModCtrl
	}
	return k.Text == string(rune(b)) && mods&^tea.ModShift == 0
}

// is reports whether k is the plain printable r (Shift allowed, as in '?').
func is(k tea.Key, r rune) bool {
	mods := k.Mod &^ (tea.ModShift | tea.ModCapsLock | tea.ModNumLock)
	return mods == 0 && (k.Text == string(r) || k.Text == "" && k.Code == r && k.Mod == 0)
}

// key handles one key press.
func (m *model) key(k tea.Key) tea.Cmd {
	if m.prefixPending {
		m.prefixPending = false
		return m.command(k) // the key table (keys.go), prefix twice included
	}
	if m.isPrefix(k) {
		m.prefixPending = true
		m.dirty = true
		return nil
	}
	if m.overlay != overlayNone {
		m.dirty = true
		return m.overlayKey(k)
	}
	if p := m.focused(); p != nil && p.cm != nil {
		return m.copyKey(p, k) // copy mode's keys are office's
	}
	if p := m.focused(); p != nil {
		m.forward(encodeKey(k, keyModes{kitty: p.snap.Modes.KittyKeys, appCursor: p.snap.Modes.AppCursor}))
	}
	return nil
}

// paste hands a paste to the open box or to the focused agent.
func (m *model) paste(text string) tea.Cmd {
	if m.overlay != overlayNone {
		m.dirty = true
		switch m.overlay {
		case overlayComposer:
			m.composer.insert(text)
		case overlayForm:
			m.form.insert(text)
		}
		return nil
	}
	if p := m.focused(); p != nil && p.cm != nil {
		if p.cm.prompt {
			for _, r := range strings.ReplaceAll(text, "\n", " ") {
				if len(p.cm.input) < maxQuery {
					p.cm.input = append(p.cm.input, r)
				}
			}
			m.dirty = true
		}
		return nil // never typed into the agent from copy mode
	}
	if p := m.focused(); p != nil {
		m.forward(encodePaste(text, p.snap.Modes.BracketedPaste))
	}
	return nil
}

// forwardFocus tells the focused agent the person's terminal gained or lost
// focus, if it asked (?1004h).
func (m *model) forwardFocus(in bool) {
	p := m.focused()
	if p == nil || !p.snap.Modes.FocusEvents || m.overlay != overlayNone {
		return
	}
	if in {
		m.report([]byte("\x1b[I"))
	} else {
		m.report([]byte("\x1b[O"))
	}
}

// forward sends the person's typing (keys, a paste) to the focused agent;
// the change it makes is drawn as soon as it comes (notifier.typed).
func (m *model) forward(p []byte) { m.send(p, true) }

// report sends the focused agent a report it asked for (mouse, focus):
// not typing, so what the agent draws after it is paced like any output.
func (m *model) report(p []byte) { m.send(p, false) }

// send writes bytes to the focused agent.
func (m *model) send(p []byte, typing bool) {
	pn := m.focused()
	if len(p) == 0 || pn == nil || pn.info.SpawnErr != "" {
		return
	}
	if typing && m.notify != nil {
		m.notify.typed() // before the echo can come
	}
	if err := m.office.Input(pn.info.Name, p); err != nil {
		m.flash = err.Error()
		m.dirty = true
	}
}

// toggle opens box o, or closes it when it is open.
func (m *model) toggle(o overlayKind) {
	if m.overlay == o {
		m.overlay = overlayNone
		return
	}
	m.overlay = o
}

// overlayKey gives one key to the open box.
func (m *model) overlayKey(k tea.Key) tea.Cmd {
	switch m.overlay {
	case overlayComposer:
		return m.composerKey(k)
	case overlayQueue:
		return m.queueKey(k)
	case overlayNotices:
		return m.noticesKey(k)
	case overlayNeeds:
		return m.needsKey(k)
	case overlayForm:
		return m.formKey(k)
	case overlayRestart:
		m.overlay = overlayNone
		if is(k, 'y') || is(k, 'Y') {
			return restartCmd(m.office, m.restartOf)
		}
	case overlayQuit:
		m.overlay = overlayNone
		switch {
		case is(k, 's') || is(k, 'S') || is(k, 'y') || is(k, 'Y'):
			return quitCmd(m.office)
		case is(k, 'd') || is(k, 'D'):
			return tea.Quit
		}
	case overlayHelp:
		m.helpKey(k)
	}
	return nil
}

// mouseEv is one mouse report from the person's terminal, in SGR terms.
type mouseEv struct {
	b       int  // button and modifier bits as SGR reports them
	x, y    int  // 0-based screen cell
	release bool // final 'm'
}

// Bits of a mouse report's button code.
const (
	mouseMotion = 32
	mouseWheel  = 64
	mouseMods   = 4 | 8 | 16
)

// sgrMouse turns Bubble Tea's mouse message into an SGR report.
func sgrMouse(msg tea.MouseMsg) (mouseEv, bool) {
	mm := msg.Mouse()
	ev := mouseEv{x: mm.X, y: mm.Y}
	switch mm.Button {
	case tea.MouseLeft:
		ev.b = 0
	case tea.MouseMiddle:
		ev.b = 1
	case tea.MouseRight:
		ev.b = 2
	case tea.MouseNone:
		ev.b = 3
	case tea.MouseWheelUp:
		ev.b = 64
	case tea.MouseWheelDown:
		ev.b = 65
	case tea.MouseWheelLeft:
		ev.b = 66
	case tea.MouseWheelRight:
		ev.b = 67
	default:
		return ev, false
	}
	if mm.Mod.Contains(tea.ModShift) {
		ev.b |= 4
	}
	if mm.Mod.Contains(tea.ModAlt) {
		ev.b |= 8
	}
	if mm.Mod.Contains(tea.ModCtrl) {
		ev.b |= 16
	}
	switch msg.(type) {
	case tea.MouseMotionMsg:
		ev.b |= mouseMotion
	case tea.MouseReleaseMsg:
		ev.release = true
	}
	return ev, true
}

// mouseMsg handles a report: a press on a pane or on the roster focuses
// that agent (the click is office's); everything else over the focused pane
// reaches its agent only if the agent asked for mouse reports, with
// pane-relative coordinates.
func (m *model) mouseMsg(msg tea.MouseMsg) tea.Cmd {
	ev, ok := sgrMouse(msg)
	if !ok || m.overlay != overlayNone {
		return nil
	}
	if cmd, ok := m.copyMouse(ev); ok {
		return cmd
	}
	press := !ev.release && ev.b&(mouseMotion|mouseWheel) == 0 && ev.b&3 != 3
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
	if cy < 0 {
		return nil // the title row
	}
	m.report(encodeMouse(p.snap.Modes.Mouse, ev, ev.x-p.box.X, cy+p.viewTop(p.box.H-1)))
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
	return append([]byte("\x1b[M"), byte(32+b), byte(32+x), byte(32+y))
}
