package ui

// input.go routes the person's raw bytes: everything to the focused pane,
// except the prefix key and the one key after it.

import (
	"bytes"

	tea "github.com/charmbracelet/bubbletea"
)

// Bracketed-paste markers as the person's terminal sends them.
var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// input handles one raw chunk from stdin.
func (m *model) input(p []byte) tea.Cmd {
	var cmds []tea.Cmd
	for len(p) > 0 {
		if m.confirmQuit {
			m.confirmQuit = false
			m.dirty = true
			if p[0] == 'y' || p[0] == 'Y' {
				return tea.Quit
			}
			p = p[1:]
			continue
		}
		if m.prefixPending {
			m.prefixPending = false
			m.dirty = true
			n, cmd := m.command(p)
			cmds = append(cmds, cmd)
			p = p[n:]
			continue
		}
		i := bytes.IndexByte(p, m.prefix)
		if i < 0 {
			m.forward(p)
			break
		}
		m.forward(p[:i])
		m.prefixPending = true
		m.dirty = true
		p = p[i+1:]
	}
	return tea.Batch(cmds...)
}

// command runs the office command at the start of p (the key after the
// prefix) and returns how many bytes it consumed.
func (m *model) command(p []byte) (int, tea.Cmd) {
	if p[0] == m.prefix {
		// Prefix twice sends the prefix key itself.
		m.forward([]byte{m.prefix})
		return 1, nil
	}
	if len(p) >= 3 && p[0] == 0x1b && p[1] == '[' {
		switch p[2] {
		case 'C', 'B':
			return 3, m.setFocus((m.focus + 1) % len(m.panes))
		case 'D', 'A':
			return 3, m.setFocus((m.focus - 1 + len(m.panes)) % len(m.panes))
		}
		return 3, nil
	}
	switch c := p[0]; {
	case c >= '1' && c <= '9':
		return 1, m.setFocus(int(c - '1'))
	case c == 'l' || c == 'j' || c == 'n' || c == '\t':
		return 1, m.setFocus((m.focus + 1) % len(m.panes))
	case c == 'h' || c == 'k' || c == 'p':
		return 1, m.setFocus((m.focus - 1 + len(m.panes)) % len(m.panes))
	case c == 'z':
		m.zoom = !m.zoom
		return 1, m.layout()
	case c == 'x':
		m.confirmQuit = true
		return 1, nil
	case c == '?':
		m.showHelp = !m.showHelp
		return 1, nil
	}
	return 1, nil
}

// forward sends bytes to the focused pane, adapted to its modes: arrow keys
// in application-cursor form when it asked for DECCKM, paste markers only when
// it turned bracketed paste on.
func (m *model) forward(p []byte) {
	if len(p) == 0 {
		return
	}
	t := m.focused()
	if t == nil {
		return
	}
	modes := t.Modes()
	if !modes.BracketedPaste && bytes.Contains(p, []byte("\x1b[20")) {
		p = bytes.ReplaceAll(p, pasteStart, nil)
		p = bytes.ReplaceAll(p, pasteEnd, nil)
	}
	if modes.AppCursor {
		p = appCursor(p)
	}
	if err := t.Input(p); err != nil {
		m.notice = err.Error()
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
