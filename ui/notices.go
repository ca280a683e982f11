package ui

// notices.go is what the person is told without losing focus: a drop after
// the last failed attempt, an agent exit, an agent waiting for the person, and
// the inbox layer's completed / failed / cancelled / stalled notices and mail
// to the person (read from the event log). Each is
// added to the notice list (prefix n opens it) and shown on the status
// line; what rings the person's terminal is the server's [notify] rules
// (alerts, ring.go).

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// maxNotices bounds the notice list; older notices fall off.
const maxNotices = 200

// noticeLine is a notice as the status line and the list show it.
func noticeLine(n Notice) string {
	if n.Agent == "" {
		return n.Text
	}
	return n.Agent + ": " + n.Text
}

// noticeList is the person's notices, newest last.
type noticeList struct {
	items  []Notice
	unread int
	sel    int // selected row in the open list (0 = newest)
}

func (l *noticeList) add(n Notice) {
	l.items = append(l.items, n)
	if len(l.items) > maxNotices {
		l.items = append(l.items[:0], l.items[len(l.items)-maxNotices:]...)
	}
	l.unread++
}

// latest returns the newest notice.
func (l *noticeList) latest() (Notice, bool) {
	if len(l.items) == 0 {
		return Notice{}, false
	}
	return l.items[len(l.items)-1], true
}

// raise records notices, without taking focus, and shows alerts on the
// person's terminal (ring.go).
func (m *model) raise(ns []Notice) tea.Cmd {
	listed := false
	for _, n := range ns {
		if n.Alert {
			m.ring(n) // the [notify] rules' word: the terminal, not the list
			continue
		}
		if n.At.IsZero() {
			n.At = m.now()
		}
		m.notices.add(n)
		listed = true
	}
	if listed {
		m.dirty = true
		m.flash = "" // the news replaces the last word
	}
	return nil
}

// preview is the first line of text, at most 60 runes.
func preview(text string) string {
	line, _, multi := strings.Cut(text, "\n")
	r := []rune(line)
	if len(r) > 60 {
		return string(r[:60]) + "…"
	}
	if multi {
		return line + " …"
	}
	return line
}

// noticesKey handles a key in the open notice list.
func (m *model) noticesKey(k tea.Key) tea.Cmd {
	l := &m.notices
	switch {
	case k.Code == tea.KeyUp || is(k, 'k'):
		if l.sel > 0 {
			l.sel--
		}
	case k.Code == tea.KeyDown || is(k, 'j'):
		if l.sel+1 < len(l.items) {
			l.sel++
		}
	case is(k, 'c'):
		l.items, l.sel = nil, 0
	default:
		m.overlay = overlayNone
	}
	return nil
}

// noticesView is the notice list, newest first.
func (m *model) noticesView(w int) boxView {
	l := &m.notices
	v := boxView{title: fmt.Sprintf(" notices (%d) ", len(l.items)), caretLine: -1}
	if len(l.items) == 0 {
		v.lines = append(v.lines, boxLine{text: "no notices", st: m.pal.boxDim})
	}
	for i := len(l.items) - 1; i >= 0; i-- {
		n := l.items[i]
		st := m.pal.boxText
		if len(l.items)-1-i == l.sel {
			st = m.pal.boxSelected
		}
		v.lines = append(v.lines, boxLine{text: n.At.Format("15:04:05") + "  " + noticeLine(n), st: st})
	}
	v.lines = append(v.lines, boxLine{st: m.pal.boxText})
	v.lines = append(v.lines, boxLine{text: "j/k move · c clear the list · any other key closes", st: m.pal.boxDim})
	v.scroll = l.sel
	return v
}
