package ui

// queuepanel.go is the queue panel for the focused agent: its queued messages
// in delivery order with age, attempts, last error and the hold reason;
// send-now (offered while delivery is paused), delete, and clear all after a
// confirmation. It shows what the store says and sends intents; it keeps no
// copy of queue truth beyond the last read.

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"office/wire"
)

// queuePanel is the panel's state.
type queuePanel struct {
	agent        string
	msgs         []QueuedMessage
	loaded       bool
	paused       bool // the agent's own pause flag
	sel          int
	confirmClear bool
	err          string
}

// load takes a read of the queue.
func (q *queuePanel) load(l QueueListing, err error) {
	if err != nil {
		q.err = err.Error()
		return
	}
	q.msgs, q.paused, q.loaded = l.Messages, l.Paused, true
	if q.sel >= len(q.msgs) {
		q.sel = len(q.msgs) - 1
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
	if m.queuePanel.agent != p.info.Name {
		m.queuePanel = queuePanel{agent: p.info.Name}
	}
	m.queuePanel.confirmClear, m.queuePanel.err = false, ""
	m.overlay = overlayQueue
	return m.readQueue()
}

// sendNowOffered reports whether send-now is offered: delivery to the
// panel's agent is paused (its own flag, the floor's, or the drain says so).
func (m *model) sendNowOffered() bool {
	q := &m.queuePanel
	return q.paused || m.floor.Paused || m.floor.Holds[q.agent] == wire.HoldPaused
}

// queueKey handles a key in the panel.
func (m *model) queueKey(k tea.Key) tea.Cmd {
	q := &m.queuePanel
	if q.confirmClear {
		q.confirmClear = false
		if is(k, 'y') || is(k, 'Y') {
			return clearCmd(m.office, q.agent)
		}
		return nil
	}
	switch {
	case k.Code == tea.KeyEscape || is(k, 'q'):
		m.overlay = overlayNone
	case k.Code == tea.KeyUp || is(k, 'k'):
		if q.sel > 0 {
			q.sel--
		}
	case k.Code == tea.KeyDown || is(k, 'j'):
		if q.sel+1 < len(q.msgs) {
			q.sel++
		}
	case is(k, 's'):
		if id, ok := q.selected(); ok && m.sendNowOffered() {
			return releaseCmd(m.office, id)
		}
	case is(k, 'd') || k.Code == tea.KeyDelete:
		if id, ok := q.selected(); ok {
			return removeCmd(m.office, id)
		}
	case is(k, 'c'):
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
	if h := m.floor.Holds[q.agent]; h != "" && len(q.msgs) > 0 {
		head = fmt.Sprintf(" queue of %s · %d queued · held: %s ", q.agent, len(q.msgs), h)
	}
	v := boxView{title: head, caretLine: -1}
	switch {
	case !q.loaded:
		v.lines = append(v.lines, boxLine{text: "reading…", st: m.pal.boxDim})
	case len(q.msgs) == 0:
		v.lines = append(v.lines, boxLine{text: "nothing queued", st: m.pal.boxDim})
	}
	for i, msg := range q.msgs {
		st := m.pal.boxText
		mark := "  "
		if i == q.sel {
			st, mark = m.pal.boxSelected, "> "
		}
		flags := ""
		if msg.Manual {
			flags = " · send now"
		}
		line := fmt.Sprintf("%s#%d · %s ago · %s%s · %s", mark, msg.ID, age(m.now(), msg.Created), plural(msg.Attempts, "attempt"), flags, preview(msg.Text))
		v.lines = append(v.lines, boxLine{text: line, st: st})
		if msg.LastError != "" {
			v.lines = append(v.lines, boxLine{text: "    last error: " + msg.LastError, st: m.pal.boxError})
		}
	}
	v.lines = append(v.lines, boxLine{st: m.pal.boxText})
	switch {
	case q.confirmClear:
		v.lines = append(v.lines, boxLine{text: fmt.Sprintf("clear all %s for %s? (y/n)", plural(len(q.msgs), "message"), q.agent), st: m.pal.boxButton})
	default:
		keys := "j/k move · d delete · c clear all · Esc close"
		if m.sendNowOffered() {
			keys = "j/k move · s send now · d delete · c clear all · Esc close"
		}
		v.lines = append(v.lines, boxLine{text: keys, st: m.pal.boxDim})
	}
	if q.err != "" {
		v.lines = append(v.lines, boxLine{text: q.err, st: m.pal.boxError})
	}
	return v
}
