package ui

// notices.go is what the person is told without losing focus: a drop after
// the last failed attempt, an agent exit, an agent waiting for the person, and
// the inbox layer's completed / failed / cancelled / stalled notices and mail
// to the person (read from the event log). Each is
// added to the notice list (prefix n opens it), shown on the status line and
// rings the person's terminal (BEL and OSC 9).

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

// raise records notices and rings the terminal once for the batch
// (BEL and OSC 9), without taking focus.
func (m *model) raise(ns []Notice) tea.Cmd {
	for _, n := range ns {
		if n.At.IsZero() {
			n.At = m.now()
		}
		m.notices.add(n)
	}
	m.dirty = true
	m.flash = "" // the news replaces the last word
	if m.out != nil {
		_ = m.out.write(bellSequence(noticeLine(ns[len(ns)-1])))
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
