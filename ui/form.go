package ui

// form.go is the add-agent form (prefix a): name, profile, cwd and command,
// added through the office exactly as `office team add` adds one (the same
// validation and the same errors, shown in the form); and the restart
// question (prefix R), which names a turn that is running.

import (
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"

	"office/wire"
)

// formFields are the form's fields, in order.
var formFields = [...]string{"name", "profile", "cwd", "command"}

// agentForm is the add-agent form's state.
type agentForm struct {
	vals    [len(formFields)][]rune
	field   int
	err     string
	pending bool
}

// openForm opens an empty form.
func (m *model) openForm() {
	m.form = agentForm{}
	m.overlay = overlayForm
}

// insert adds pasted text to the field (one line).
func (f *agentForm) insert(text string) {
	text = strings.NewReplacer("\r", " ", "\n", " ").Replace(text)
	f.vals[f.field] = append(f.vals[f.field], []rune(text)...)
}

// spec is the form as the office takes it; the command is split at spaces.
func (f *agentForm) spec() AgentSpec {
	s := AgentSpec{
		Name:    strings.TrimSpace(string(f.vals[0])),
		Profile: strings.TrimSpace(string(f.vals[1])),
		Cwd:     strings.TrimSpace(string(f.vals[2])),
		Command: strings.Fields(string(f.vals[3])),
	}
	return s
}

// formKey edits the form or submits it.
func (m *model) formKey(k tea.Key) tea.Cmd {
	f := &m.form
	switch {
	case k.Code == tea.KeyEscape:
		m.overlay = overlayNone
	case k.Code == tea.KeyTab && k.Mod.Contains(tea.ModShift), k.Code == tea.KeyUp:
		f.field = (f.field + len(formFields) - 1) % len(formFields)
	case k.Code == tea.KeyTab, k.Code == tea.KeyDown:
		f.field = (f.field + 1) % len(formFields)
	case k.Code == tea.KeyBackspace:
		if v := f.vals[f.field]; len(v) > 0 {
			f.vals[f.field] = v[:len(v)-1]
		}
	case k.Code == tea.KeyEnter:
		if f.pending {
			return nil
		}
		s := f.spec()
		if s.Name == "" {
			f.err = "an agent needs a name"
			return nil
		}
		f.pending, f.err = true, ""
		return addAgentCmd(m.office, s)
	case k.Text != "" && !k.Mod.Contains(tea.ModCtrl) && !k.Mod.Contains(tea.ModAlt):
		f.vals[f.field] = append(f.vals[f.field], []rune(k.Text)...)
	}
	return nil
}

// added takes the office's answer to the form.
func (m *model) added(msg addedMsg) tea.Cmd {
	m.form.pending = false
	m.dirty = true
	if msg.err != nil {
		m.form.err = personMessage(msg.err)
		return nil
	}
	if m.overlay == overlayForm {
		m.overlay = overlayNone
	}
	return m.say("added " + msg.agent)
}

// formView is the form's box.
func (m *model) formView(w int) boxView {
	f := &m.form
	v := boxView{title: " add an agent ", caretLine: -1}
	for i, name := range formFields {
		label := padRight(name, 9)
		val := string(f.vals[i])
		if i == 1 && val == "" && f.field != 1 {
			val = "(custom when a command is given; else required: claude, codex, gemini, shell)"
		}
		st := m.pal.boxText
		if i == f.field {
			st = m.pal.boxSelected
			v.caretLine, v.caretCol = len(v.lines), stringCells(label)+stringCells(string(f.vals[i]))
		}
		v.lines = append(v.lines, boxLine{text: label + val, st: st})
	}
	v.lines = append(v.lines, boxLine{st: m.pal.boxText})
	v.lines = append(v.lines, boxLine{text: "Tab / arrows next field · Enter add (as office team add) · Esc close", st: m.pal.boxDim})
	switch {
	case f.pending:
		v.lines = append(v.lines, boxLine{text: "adding…", st: m.pal.boxDim})
	case f.err != "":
		v.lines = append(v.lines, boxLine{text: f.err, st: m.pal.boxError})
	}
	return v
}

// restartView is the restart question.
func (m *model) restartView(w int) boxView {
	v := boxView{title: " restart ", caretLine: -1}
	q := "restart " + m.restartOf + "? its process is stopped and started again"
	if p := m.paneNamed(m.restartOf); p != nil && p.info.Status == wire.StatusBusy {
		q = m.restartOf + " is in the middle of a turn (busy); restart it anyway? the turn is cut off"
	}
	v.lines = append(v.lines, boxLine{text: q, st: m.pal.boxText})
	v.lines = append(v.lines, boxLine{st: m.pal.boxText})
	v.lines = append(v.lines, boxLine{text: "y restart · any other key keeps it running", st: m.pal.boxDim})
	return v
}

// personMessage is what the person reads of an office's error: the
// server's reason without its layers' prefixes when the error carries one
// (a PersonMessage method, as the client's call errors have), else the
// error's text. The whole error stays in the server's log and the CLI's.
func personMessage(err error) string {
	var p interface{ PersonMessage() string }
	if errors.As(err, &p) {
		return p.PersonMessage()
	}
	return err.Error()
}
