package ui

// roster.go is the roster rail (prefix r): every agent, including those off
// the current page, with its status, queue depth and draft badge. A click on
// an agent focuses it.

import (
	"fmt"

	"charm.land/lipgloss/v2"

	"office/wire"
)

// rosterTop is the first rail row that lists an agent (after the header).
const rosterTop = 1

// rosterFirst returns the first agent index the rail shows, scrolled so the
// focused agent is visible.
func (m *model) rosterFirst() int {
	rows := m.rail.H - rosterTop
	if rows <= 0 || m.focus < rows {
		return 0
	}
	return m.focus - rows + 1
}

// rosterIndexAt returns the agent listed on screen row y, or -1.
func (m *model) rosterIndexAt(y int) int {
	if y < m.rail.Y+rosterTop || y >= m.rail.Y+m.rail.H {
		return -1
	}
	i := m.rosterFirst() + y - m.rail.Y - rosterTop
	if i >= len(m.panes) {
		return -1
	}
	return i
}

// shortStatus is a status in at most 8 cells.
func (p *pane) shortStatus() string {
	switch {
	case p.info.SpawnErr != "":
		return "failed"
	case p.info.Exited:
		return fmt.Sprintf("exit %d", p.info.ExitCode)
	case p.info.Status == wire.StatusWaiting:
		return "WAITING"
	}
	return p.info.Status
}

// rosterLine is row y of the rail (0 = its top), with its style.
func (m *model) rosterLine(y int) (string, lipgloss.Style) {
	if y == 0 {
		page, pages := m.page()
		return fmt.Sprintf(" agents %d · page %d/%d", len(m.panes), page+1, pages), m.pal.rosterHead
	}
	i := m.rosterFirst() + y - rosterTop
	if i < 0 || i >= len(m.panes) {
		return "", m.pal.roster
	}
	p := m.panes[i]
	mark, st := " ", m.pal.roster
	if i == m.focus {
		mark, st = ">", m.pal.rosterFocused
	}
	q := ""
	if n := m.floor.Counts[p.info.Name]; n > 0 {
		q = fmt.Sprintf("%dq", n)
	}
	badge := ""
	if p.info.Draft && !p.info.Exited {
		badge = "draft"
	}
	return fmt.Sprintf("%s%-11.11s %-8.8s %3s %s", mark, p.info.Name, p.shortStatus(), q, badge), st
}
