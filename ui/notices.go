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
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"office/drain"
	"office/inbox"
	"office/queue"
)

// maxNotices bounds the notice list; older notices fall off.
const maxNotices = 200

// notice is one entry of the notice list.
type notice struct {
	at    time.Time
	agent string
	kind  string
	text  string
}

// line is the notice as the status line and the list show it.
func (n notice) line() string {
	if n.agent == "" {
		return n.text
	}
	return n.agent + ": " + n.text
}

// noticeList is the person's notices, newest last.
type noticeList struct {
	items  []notice
	unread int
	sel    int // selected row in the open list (0 = newest)
}

func (l *noticeList) add(n notice) {
	l.items = append(l.items, n)
	if len(l.items) > maxNotices {
		l.items = append(l.items[:0], l.items[len(l.items)-maxNotices:]...)
	}
	l.unread++
}

// latest returns the newest notice.
func (l *noticeList) latest() (notice, bool) {
	if len(l.items) == 0 {
		return notice{}, false
	}
	return l.items[len(l.items)-1], true
}

// raise records notices and rings the terminal once for the batch.
func (m *model) raise(now time.Time, ns []notice) tea.Cmd {
	for _, n := range ns {
		if n.at.IsZero() {
			n.at = now
		}
		m.notices.add(n)
	}
	m.dirty = true
	m.flash = "" // the news replaces the last word
	last := ns[len(ns)-1]
	return bellCmd(m.out, last.line())
}

// eventNotice turns an event-log row, written by the inbox layer, into a
// notice when it is news for the person (design.md §6 and §9): every
// notification sent to a parent (completed, failed, cancelled, stalled: the
// person sees them whoever the parent is), anything sent to the person (mail,
// permission requests), and dead letters. It reads the "KIND ID from
// SENDER: PREVIEW" detail of inbox.EventInboxSent.
func eventNotice(e queue.Event) (notice, bool) {
	switch e.Kind {
	case inbox.EventInboxSent:
		kind, rest, _ := strings.Cut(e.Detail, " ")
		_, rest, _ = strings.Cut(rest, " from ")
		sender, text, ok := strings.Cut(rest, ": ")
		if !ok {
			sender, text = "", e.Detail
		}
		switch {
		case kind == inbox.KindNotification && e.Agent == inbox.Person:
			return notice{at: e.At, agent: sender, kind: kind, text: text}, true
		case kind == inbox.KindNotification:
			return notice{at: e.At, agent: sender, kind: kind, text: text + " (to " + e.Agent + ")"}, true
		case e.Agent == inbox.Person:
			return notice{at: e.At, agent: sender, kind: kind, text: kind + " for you: " + text}, true
		}
	case inbox.EventInboxDead:
		return notice{at: e.At, agent: e.Agent, kind: e.Kind, text: "dead letter: " + e.Detail}, true
	}
	return notice{}, false
}

// drainNotice turns a drain notice into the person's words.
func drainNotice(n drain.Notice) notice {
	text := n.Text
	switch n.Kind {
	case drain.NoticeDropped:
		text = fmt.Sprintf("message %d dropped after its last failed attempt: %s", n.MsgID, preview(n.Text))
	case drain.NoticeTypedNotSubmitted:
		text = fmt.Sprintf("message %d typed but not submitted; it sits on the prompt as your draft", n.MsgID)
	case drain.NoticePreconditionDropped:
		text = fmt.Sprintf("message %d dropped: its precondition no longer held", n.MsgID)
	}
	return notice{agent: n.Agent, kind: string(n.Kind), text: text}
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

// intake collects notices from other goroutines (the engine's callbacks)
// until the next frame takes them. Adding never blocks on the UI.
type intake struct {
	mu      sync.Mutex
	pending []notice
	waiting map[string]bool // agents last seen waiting, so one notice per wait
}

func (in *intake) add(n notice) {
	in.mu.Lock()
	in.pending = append(in.pending, n)
	in.mu.Unlock()
}

// take returns and clears the pending notices.
func (in *intake) take() []notice {
	in.mu.Lock()
	defer in.mu.Unlock()
	ns := in.pending
	in.pending = nil
	return ns
}

// setWaiting records whether agent waits for the person and reports whether
// it just started to.
func (in *intake) setWaiting(agent string, waiting bool) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.waiting == nil {
		in.waiting = map[string]bool{}
	}
	was := in.waiting[agent]
	in.waiting[agent] = waiting
	return waiting && !was
}

// noticesKey handles a key in the open notice list.
func (m *model) noticesKey(k key) tea.Cmd {
	l := &m.notices
	switch {
	case k.kind == keyUp || k.is('k'):
		if l.sel > 0 {
			l.sel--
		}
	case k.kind == keyDown || k.is('j'):
		if l.sel+1 < len(l.items) {
			l.sel++
		}
	case k.is('c'):
		l.items, l.sel = nil, 0
	default:
		m.overlay = overlayNone
	}
	return nil
}

// noticesView is the notice list, newest first.
func (m *model) noticesView(w int) boxView {
	l := &m.notices
	v := boxView{title: fmt.Sprintf(" notices (%d) ", len(l.items))}
	if len(l.items) == 0 {
		v.lines = append(v.lines, boxLine{text: "no notices", st: boxDim})
	}
	for i := len(l.items) - 1; i >= 0; i-- {
		n := l.items[i]
		st := boxText
		if len(l.items)-1-i == l.sel {
			st = boxSelected
		}
		v.lines = append(v.lines, boxLine{text: n.at.Format("15:04:05") + "  " + n.line(), st: st})
	}
	v.lines = append(v.lines, boxLine{st: boxText})
	v.lines = append(v.lines, boxLine{text: "j/k move · c clear the list · any other key closes", st: boxDim})
	v.scroll = l.sel
	return v
}
