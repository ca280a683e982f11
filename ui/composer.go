package ui

// composer.go is the composer: a multi-line text box that queues a message
// for the focused agent through the same queue as `office send`. It never
// types into a PTY. Its two buttons act for the person, because the person
// asked (seed 002): "close picker" sends Esc when a picker holds the queue,
// "recover prompt" sends Ctrl-U and moves the draft it cleared into the
// composer.

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"office/wire"
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
	c.agent, c.err, c.note = p.info.Name, "", ""
	m.overlay = overlayComposer
	return nil
}

// pickerButton and draftButton say whether the buttons are offered for
// the composer's agent: a picker (or draft) holds its queue, or is open.
func (m *model) pickerButton() bool {
	p := m.paneNamed(m.composer.agent)
	return p != nil && !p.info.Exited && (p.info.Picker || m.floor.Holds[p.info.Name] == wire.HoldPicker)
}

func (m *model) draftButton() bool {
	p := m.paneNamed(m.composer.agent)
	return p != nil && !p.info.Exited && (p.info.Draft || m.floor.Holds[p.info.Name] == wire.HoldDraft)
}

// paneNamed returns the agent's pane, or nil.
func (m *model) paneNamed(name string) *pane {
	for _, p := range m.panes {
		if p.info.Name == name {
			return p
		}
	}
	return nil
}

// insert adds pasted text.
func (c *composer) insert(text string) {
	t := strings.ReplaceAll(text, "\r\n", "\n")
	c.text = append(c.text, []rune(strings.ReplaceAll(t, "\r", "\n"))...)
}

// composerKey edits the text or acts.
func (m *model) composerKey(k tea.Key) tea.Cmd {
	c := &m.composer
	ctrl := k.Mod.Contains(tea.ModCtrl)
	switch {
	case k.Code == tea.KeyEnter && k.Mod&(tea.ModShift|tea.ModAlt|tea.ModCtrl) != 0,
		ctrl && k.Code == 'j':
		c.text = append(c.text, '\n')
	case k.Code == tea.KeyEnter:
		if c.pending {
			return nil
		}
		text := string(c.text)
		if strings.TrimSpace(text) == "" {
			c.err = "nothing to queue: the message is blank"
			return nil
		}
		c.pending, c.err, c.note = true, "", ""
		return enqueueCmd(m.office, c.agent, text)
	case k.Code == tea.KeyEscape:
		m.overlay = overlayNone
	case k.Code == tea.KeyBackspace:
		if n := len(c.text); n > 0 {
			c.text = c.text[:n-1]
		}
	case k.Code == tea.KeyTab:
		c.text = append(c.text, '\t')
	case ctrl && k.Code == 'u':
		c.text = c.text[:0]
	case ctrl && k.Code == 'o':
		if m.pickerButton() {
			c.note, c.err = "", ""
			return closePickerCmd(m.office, c.agent)
		}
	case ctrl && k.Code == 'r':
		if m.draftButton() {
			c.note, c.err = "", ""
			return recoverPromptCmd(m.office, c.agent)
		}
	case k.Text != "" && !ctrl && !k.Mod.Contains(tea.ModAlt):
		c.text = append(c.text, []rune(k.Text)...)
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
	v := boxView{title: " message for " + c.agent + " ", caretLine: -1}
	inner := w - 2
	lines := wrapText(string(c.text), inner)
	if c.pending {
		v.lines = append(v.lines, boxLine{text: "queueing…", st: m.pal.boxDim})
	}
	for _, l := range lines {
		v.lines = append(v.lines, boxLine{text: l, st: m.pal.boxText})
	}
	last := lines[len(lines)-1]
	v.caretLine, v.caretCol = len(v.lines)-1, stringCells(strings.ReplaceAll(last, "\t", "    "))
	v.scroll = v.caretLine
	v.lines = append(v.lines, boxLine{st: m.pal.boxText})
	var buttons []string
	if m.pickerButton() {
		buttons = append(buttons, "[ Ctrl-O close picker ]")
	}
	if m.draftButton() {
		buttons = append(buttons, "[ Ctrl-R recover prompt ]")
	}
	if len(buttons) > 0 {
		v.lines = append(v.lines, boxLine{text: strings.Join(buttons, "  "), st: m.pal.boxButton})
	}
	v.lines = append(v.lines, boxLine{text: "Enter queue · Alt/Shift+Enter new line · Ctrl-U clear · Esc close", st: m.pal.boxDim})
	if c.err != "" {
		v.lines = append(v.lines, boxLine{text: c.err, st: m.pal.boxError})
	} else if c.note != "" {
		v.lines = append(v.lines, boxLine{text: c.note, st: m.pal.boxText})
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
