package ui

// composer.go is the composer: a multi-line text box that queues a message
// for the focused agent through the same queue as `office send`. It never
// types into a PTY. Its two buttons act for the person, because the person
// asked (seed 002): "close picker" sends Esc when a picker holds the queue,
// "recover prompt" sends Ctrl-U and moves the draft it cleared into the
// composer.

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// composer is the composer's state. Its text survives closing it.
type composer struct {
	agent   string
	text    []rune
	err     string
	note    string
	pending bool // an enqueue is in flight
}

// openComposer opens the composer for the focused agent.
func (m *model) openComposer() tea.Cmd {
	p := m.focused()
	if p == nil {
		return nil
	}
	c := &m.composer
	c.agent, c.err, c.note = p.name, "", ""
	m.overlay = overlayComposer
	m.keys = keyDecoder{}
	return nil
}

// pickerButton and draftButton say whether the buttons are offered for
// the composer's agent: a picker (or draft) holds its queue, or is open.
func (m *model) pickerButton() bool {
	p := m.paneNamed(m.composer.agent)
	return p != nil && !p.exited && (p.picker || m.holds[p.name] == "picker open")
}

func (m *model) draftButton() bool {
	p := m.paneNamed(m.composer.agent)
	return p != nil && !p.exited && (p.draft || m.holds[p.name] == "your draft")
}

// paneNamed returns the agent's pane, or nil.
func (m *model) paneNamed(name string) *pane {
	for _, p := range m.panes {
		if p.name == name {
			return p
		}
	}
	return nil
}

// composerKey edits the text or acts.
func (m *model) composerKey(k key) tea.Cmd {
	c := &m.composer
	switch k.kind {
	case keyRune:
		c.text = append(c.text, k.r)
	case keyPaste:
		t := strings.ReplaceAll(k.text, "\r\n", "\n")
		c.text = append(c.text, []rune(strings.ReplaceAll(t, "\r", "\n"))...)
	case keyNewline:
		c.text = append(c.text, '\n')
	case keyTab:
		c.text = append(c.text, '\t')
	case keyBackspace:
		if n := len(c.text); n > 0 {
			c.text = c.text[:n-1]
		}
	case keyEsc:
		m.overlay = overlayNone
	case keyCtrl:
		switch k.r {
		case 'u':
			c.text = c.text[:0]
		case 'o':
			if m.pickerButton() {
				c.note, c.err = "", ""
				return closePickerCmd(c.agent, m.paneNamed(c.agent).term)
			}
		case 'r':
			if m.draftButton() {
				c.note, c.err = "", ""
				return recoverPromptCmd(c.agent, m.paneNamed(c.agent).term)
			}
		}
	case keyEnter:
		if c.pending {
			return nil
		}
		text := string(c.text)
		if strings.TrimSpace(text) == "" {
			c.err = "nothing to queue: the message is blank"
			return nil
		}
		c.pending, c.err, c.note = true, "", ""
		return enqueueCmd(m.src, c.agent, text)
	}
	return nil
}

// sent clears the composer after its message was queued.
func (c *composer) sent(msg enqueuedMsg) {
	c.pending = false
	c.text = c.text[:0]
	c.err = ""
	c.note = "queued for " + msg.agent
}

// recovered puts the recovered draft in front of the composer's text.
func (c *composer) recovered(msg recoveredMsg) {
	if msg.err != nil {
		c.err = msg.err.Error()
		return
	}
	if msg.text == "" {
		c.note = "no draft on " + msg.agent + "'s prompt"
		return
	}
	t := []rune(msg.text)
	if len(c.text) > 0 {
		t = append(t, '\n')
	}
	c.text = append(t, c.text...)
	c.note = "moved your draft from " + msg.agent + " into the composer"
}

// composerView is the composer's box.
func (m *model) composerView(w int) boxView {
	c := &m.composer
	v := boxView{title: " message for " + c.agent + " "}
	inner := w - 2
	lines := wrapText(string(c.text)+"█", inner)
	if c.pending {
		v.lines = append(v.lines, boxLine{text: "queueing…", st: boxDim})
	}
	for _, l := range lines {
		v.lines = append(v.lines, boxLine{text: l, st: boxText})
	}
	v.lines = append(v.lines, boxLine{st: boxText})
	var buttons []string
	if m.pickerButton() {
		buttons = append(buttons, "[ Ctrl-O close picker ]")
	}
	if m.draftButton() {
		buttons = append(buttons, "[ Ctrl-R recover prompt ]")
	}
	if len(buttons) > 0 {
		v.lines = append(v.lines, boxLine{text: strings.Join(buttons, "  "), st: boxButton})
	}
	v.lines = append(v.lines, boxLine{text: "Enter queue · Alt/Shift+Enter new line · Ctrl-U clear · Esc close", st: boxDim})
	if c.err != "" {
		v.lines = append(v.lines, boxLine{text: c.err, st: boxError})
	} else if c.note != "" {
		v.lines = append(v.lines, boxLine{text: c.note, st: boxText})
	}
	return v
}

// wrapText splits s into rows of at most w cells at newlines and hard wraps
// (the composer shows exactly what will be queued).
func wrapText(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		r := []rune(strings.ReplaceAll(line, "\t", "    "))
		for {
			n, cut := 0, 0
			for cut < len(r) && n+runeCells(r[cut]) <= w {
				n += runeCells(r[cut])
				cut++
			}
			out = append(out, string(r[:cut]))
			if cut >= len(r) {
				break
			}
			r = r[cut:]
		}
	}
	return out
}
