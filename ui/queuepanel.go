package ui

// queuepanel.go is the queue panel for the focused agent: its queued messages
// in delivery order with age, attempts, last error and the hold reason;
// send-now (offered while delivery is paused), delete, and clear all after a
// confirmation. It shows what the store says and sends intents; it keeps no
// copy of queue truth beyond the last read.

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"office/queue"
)

// queuePanel is the panel's state.
type queuePanel struct {
	agent        string
	msgs         []queue.Message
	loaded       bool
	paused       bool // the agent's own pause flag
	sel          int
	confirmClear bool
	err          string
}

// load takes a store read.
func (q *queuePanel) load(msgs []queue.Message, paused bool) {
	q.msgs, q.paused, q.loaded = msgs, paused, true
	if q.sel >= len(msgs) {
		q.sel = len(msgs) - 1
	}
	if q.sel < 0 {
		q.sel = 0
	}
}

// toggleQueuePanel opens the panel for the focused agent, or closes it.
func (m *model) toggleQueuePanel() tea.Cmd {
	if m.overlay == overlayQueue {
		m.overlay = overlayNone
		return nil
	}
	p := m.focused()
	if p == nil {
		return nil
	}
	if m.queuePanel.agent != p.name {
		m.queuePanel = queuePanel{agent: p.name}
	}
	m.queuePanel.confirmClear, m.queuePanel.err = false, ""
	m.overlay = overlayQueue
	m.keys = keyDecoder{}
	return m.readStoreOnce()
}

// sendNowOffered reports whether send-now is offered: delivery to the
// panel's agent is paused (its own flag, the floor's, or the drain says so).
func (m *model) sendNowOffered() bool {
	q := &m.queuePanel
	return q.paused || m.floorPaused || m.holds[q.agent] == "paused"
}

// queueKey handles a key in the panel.
func (m *model) queueKey(k key) tea.Cmd {
	q := &m.queuePanel
	if q.confirmClear {
		q.confirmClear = false
		if k.is('y') || k.is('Y') {
			return clearCmd(m.src, q.agent)
		}
		return nil
	}
	switch {
	case k.kind == keyEsc || k.is('q'):
		m.overlay = overlayNone
	case k.kind == keyUp || k.is('k'):
		if q.sel > 0 {
			q.sel--
		}
	case k.kind == keyDown || k.is('j'):
		if q.sel+1 < len(q.msgs) {
			q.sel++
		}
	case k.is('s'):
		if id, ok := q.selected(); ok && m.sendNowOffered() {
			return releaseCmd(m.src, id)
		}
	case k.is('d') || k.kind == keyDelete:
		if id, ok := q.selected(); ok {
			return removeCmd(m.src, id)
		}
	case k.is('c'):
		if len(q.msgs) > 0 {
			q.confirmClear = true
		}
	}
	return nil
}

// selected returns the selected message's id.
func (q *queuePanel) selected() (int64, bool) {
	if q.sel < 0 || q.sel >= len(q.msgs) {
		return 0, false
	}
	return q.msgs[q.sel].ID, true
}

// age is how long ago t was, in the panel's short form.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		if d < 0 {
			d = 0
		}
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// queueView is the panel's box.
func (m *model) queueView(w int) boxView {
	q := &m.queuePanel
	head := fmt.Sprintf(" queue of %s · %d queued ", q.agent, len(q.msgs))
	if h := m.holds[q.agent]; h != "" && len(q.msgs) > 0 {
		head = fmt.Sprintf(" queue of %s · %d queued · held: %s ", q.agent, len(q.msgs), h)
	}
	v := boxView{title: head}
	switch {
	case !q.loaded:
		v.lines = append(v.lines, boxLine{text: "reading…", st: boxDim})
	case len(q.msgs) == 0:
		v.lines = append(v.lines, boxLine{text: "nothing queued", st: boxDim})
	}
	for i, msg := range q.msgs {
		st := boxText
		mark := "  "
		if i == q.sel {
			st, mark = boxSelected, "> "
		}
		flags := ""
		if msg.Manual {
			flags = " · send now"
		}
		line := fmt.Sprintf("%s#%d · %s ago · %s%s · %s", mark, msg.ID, age(m.now, msg.Created), plural(msg.Attempts, "attempt"), flags, preview(msg.Text))
		v.lines = append(v.lines, boxLine{text: line, st: st})
		if msg.LastError != "" {
			v.lines = append(v.lines, boxLine{text: "    last error: " + msg.LastError, st: boxError})
		}
	}
	v.lines = append(v.lines, boxLine{st: boxText})
	switch {
	case q.confirmClear:
		v.lines = append(v.lines, boxLine{text: fmt.Sprintf("clear all %s for %s? (y/n)", plural(len(q.msgs), "message"), q.agent), st: boxButton})
	default:
		keys := "j/k move · d delete · c clear all · Esc close"
		if m.sendNowOffered() {
			keys = "j/k move · s send now · d delete · c clear all · Esc close"
		}
		v.lines = append(v.lines, boxLine{text: keys, st: boxDim})
	}
	if q.err != "" {
		v.lines = append(v.lines, boxLine{text: q.err, st: boxError})
	}
	return v
}

// plural is "1 attempt", "2 attempts".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
