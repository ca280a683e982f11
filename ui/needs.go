package ui

// needs.go is the needs-you list (docs/needs.md): every agent or item
// waiting on the person, oldest first, as the server defines it (Floor.Needs).
// Prefix ! opens it; j/k (or the arrows) move, Enter jumps to the agent's
// pane, a digit answers a dialog with that option (as `office approve`),
// r ends a usage-limit hold early (as `office resume AGENT`); the status
// line counts it ("3 need you").

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"office/wire"
)

// keyReleaseLimit is the needs-you list's key that ends the selected usage-
// limit item's hold early.
const keyReleaseLimit = 'r'

// needsList is the open list's selection.
type needsList struct {
	sel int
}

// openNeeds opens (or closes) the needs-you list.
func (m *model) openNeeds() {
	m.toggle(overlayNeeds)
	m.needs.sel = 0
}

// needsKey handles a key in the open list.
func (m *model) needsKey(k tea.Key) tea.Cmd {
	l := &m.needs
	n := len(m.floor.Needs)
	switch {
	case k.Code == tea.KeyUp || is(k, 'k'):
		if l.sel > 0 {
			l.sel--
		}
	case k.Code == tea.KeyDown || is(k, 'j'):
		if l.sel+1 < n {
			l.sel++
		}
	case k.Code == tea.KeyEnter:
		m.overlay = overlayNone
		if l.sel < n {
			return m.jumpTo(m.floor.Needs[l.sel].Agent)
		}
	case len(k.Text) == 1 && k.Text[0] >= '1' && k.Text[0] <= '9' && l.sel < n && len(m.floor.Needs[l.sel].Options) > 0:
		nd := m.floor.Needs[l.sel]
		a, ok := m.office.(approver)
		if !ok {
			return m.say("this office cannot answer dialogs from here")
		}
		m.overlay = overlayNone
		return approveCmd(a, nd.Agent, k.Text)
	case is(k, keyReleaseLimit) && l.sel < n:
		nd := m.floor.Needs[l.sel]
		if nd.Reason != wire.NeedUsageLimit {
			// The list stays open: the person meant another item.
			return m.say(fmt.Sprintf("r ends a usage-limit hold; %s waits on: %s", nd.Agent, nd.Reason))
		}
		m.overlay = overlayNone
		return releaseLimitCmd(m.office, nd.Agent)
	default:
		m.overlay = overlayNone
	}
	return nil
}

// jumpTo focuses agent's pane (nothing when it has none here: a request's
// sender on another host).
func (m *model) jumpTo(agent string) tea.Cmd {
	for i, p := range m.panes {
		if p.info.Name == agent {
			return m.setFocus(i)
		}
	}
	return m.say(agent + " has no pane here")
}

// needsView is the open list, oldest first.
func (m *model) needsView(w int) boxView {
	needs := m.floor.Needs
	if m.needs.sel >= len(needs) {
		m.needs.sel = max(len(needs)-1, 0)
	}
	v := boxView{title: fmt.Sprintf(" need you (%d) ", len(needs)), caretLine: -1}
	if len(needs) == 0 {
		v.lines = append(v.lines, boxLine{text: "nothing waits on you", st: m.pal.boxDim})
	}
	now := m.now()
	for i, n := range needs {
		st := m.pal.boxText
		if i == m.needs.sel {
			st = m.pal.boxSelected
			v.scroll = len(v.lines)
		}
		v.lines = append(v.lines, boxLine{text: needLine(n, now), st: st})
		if len(n.Options) > 0 {
			v.lines = append(v.lines, boxLine{text: "        " + strings.Join(n.Options, "  "), st: m.pal.boxDim})
		}
	}
	v.lines = append(v.lines, boxLine{st: m.pal.boxText})
	v.lines = append(v.lines, boxLine{text: "j/k move · Enter go to its pane · 1-9 answer a dialog · r resume a usage limit now · any other key closes", st: m.pal.boxDim})
	return v
}

// needLine is one item: how long, whose, why, what.
func needLine(n Need, now time.Time) string {
	s := fmt.Sprintf("%6s  %s %s", sinceText(now.Sub(n.Since)), n.Agent, n.Reason)
	if n.Excerpt != "" {
		s += ": " + n.Excerpt
	}
	return s
}

// sinceText is a wait for a person: "12s", "4m", "3h", "2d".
func sinceText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// needsStatus is the status line's count ("" when nothing waits).
func (m *model) needsStatus() string {
	if len(m.floor.Needs) == 0 {
		return ""
	}
	return fmt.Sprintf("%d need you (%s !)", len(m.floor.Needs), prefixName(m.prefix))
}

// approver is what an Office that can answer an agent's dialog adds (the
// server's approve call, as `office approve`: typed only into the dialog
// still on screen).
type approver interface {
	Approve(ctx context.Context, agent, option string) (string, error)
}

// approvedMsg: a dialog was answered from the list (or could not be).
type approvedMsg struct {
	agent, option string
	err           error
}

func approveCmd(a approver, agent, option string) tea.Cmd {
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			num, err := a.Approve(ctx, agent, option)
			return approvedMsg{agent: agent, option: num, err: err}
		})
	}
}

// approved says how the answer went.
func (m *model) approved(msg approvedMsg) tea.Cmd {
	if msg.err != nil {
		return m.say(msg.err.Error())
	}
	return m.say(fmt.Sprintf("answered %s's dialog with %s", msg.agent, msg.option))
}

// limitReleasedMsg: a usage-limit hold was ended from the list (or could
// not be).
type limitReleasedMsg struct {
	agent    string
	released []string
	err      error
}

// releaseLimitCmd ends the usage-limit hold of agent's account through the
// server's limit_release, as `office resume AGENT` does.
func releaseLimitCmd(o Office, agent string) tea.Cmd {
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			r, err := o.ReleaseLimit(ctx, agent)
			return limitReleasedMsg{agent: agent, released: r.Released, err: err}
		})
	}
}

// limitReleased says how the release went.
func (m *model) limitReleased(msg limitReleasedMsg) tea.Cmd {
	if msg.err != nil {
		return m.say(fmt.Sprintf("resume %s: %v", msg.agent, msg.err))
	}
	return m.say(releasedText(msg.agent, msg.released))
}

// releasedText says which agents a limit release set going again.
func releasedText(agent string, released []string) string {
	if len(released) == 0 {
		return "no usage-limit hold on " + agent + "'s account to end"
	}
	return "usage-limit hold ended early: " + strings.Join(released, ", ") + " resume"
}
