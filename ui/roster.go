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

// rosterLine is row y of the rail (0 = its top), with its style's kind
// (rosterStyle).
func (m *model) rosterLine(y int) (string, railKind) {
	if y == 0 {
		page, pages := m.page()
		return fmt.Sprintf(" agents %d · page %d/%d", len(m.panes), page+1, pages), railHead
	}
	i := m.rosterFirst() + y - rosterTop
	if i < 0 || i >= len(m.panes) {
		return "", railPlain
	}
	p := m.panes[i]
	mark, st := " ", railPlain
	if i == m.focus {
		mark, st = ">", railFocused
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

// railKind is which of the rail's styles a row takes.
type railKind uint8

const (
	railPlain railKind = iota
	railHead
	railFocused
)

// rosterStyle is the style of a rail row of kind k.
func (m *model) rosterStyle(k railKind) lipgloss.Style {
	switch k {
	case railHead:
		return m.pal.rosterHead
	case railFocused:
		return m.pal.rosterFocused
	}
	return m.pal.roster
}

// railRow is one rail row as last rendered: rendering every row's style
// again on every frame (a key's echo) cost 0.2 ms with the rail open.
type railRow struct {
	text string
	kind railKind
	w    int
	out  string
}

// railLine returns row y of the rail rendered w cells wide, rendering it
// only when its text, style or width changed.
func (m *model) railLine(y, w int) string {
	t, k := m.rosterLine(y)
	if y >= len(m.railRows) {
		m.railRows = append(m.railRows, make([]railRow, y+1-len(m.railRows))...)
	}
	if r := &m.railRows[y]; r.out == "" || r.text != t || r.kind != k || r.w != w {
		*r = railRow{text: t, kind: k, w: w, out: line(m.rosterStyle(k), t, w)}
	}
	return m.railRows[y].out
}
