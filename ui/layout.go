package ui

// layout.go tiles panes by count: 1, 2 side by side, 4 as 2×2, 6 as 3×2, 9 as
// 3×3; more than 9 go on pages of 9. The roster rail, when shown, takes a
// column on the right; the bottom row is the status line. Each visible pane's
// PTY is resized to its box (less the title row).

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
)

const (
	// maxPerPage is the most panes shown at once.
	maxPerPage = 9
	// rosterWidth is the roster rail's width, without its separator.
	rosterWidth = 30
	// minGridWidth is the narrowest grid the rail leaves; below it the rail
	// is not drawn.
	minGridWidth = 40
)

// rect is a box on the screen, in cells.
type rect struct{ X, Y, W, H int }

// contains reports whether the cell (x, y) is inside r.
func (r rect) contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// grid returns columns × rows for n panes on one page.
func grid(n int) (cols, rows int) {
	switch {
	case n <= 1:
		return 1, 1
	case n == 2:
		return 2, 1
	case n <= 4:
		return 2, 2
	case n <= 6:
		return 3, 2
	default:
		return 3, 3
	}
}

// tile splits a width × height area into boxes for n panes (n ≤ maxPerPage),
// in reading order, with one column between neighbours for a separator. Extra
// cells go to the last column and row; a last row with fewer panes shares its
// width among them.
func tile(n, width, height int) []rect {
	if n <= 0 || width <= 0 || height <= 0 {
		return nil
	}
	cols, rows := grid(n)
	out := make([]rect, 0, n)
	rowH := height / rows
	for i := 0; i < n; i++ {
		c, r := i%cols, i/cols
		inRow := cols
		if r == (n-1)/cols {
			inRow = n - r*cols
		}
		cw := (width - (inRow - 1)) / inRow
		x := c * (cw + 1)
		w := cw
		if c == inRow-1 {
			w = width - x
		}
		y := r * rowH
		h := rowH
		if r == rows-1 || r == (n-1)/cols {
			h = height - y
		}
		if w < 1 {
			w = 1
		}
		if h < 2 {
			h = 2
		}
		out = append(out, rect{X: x, Y: y, W: w, H: h})
	}
	return out
}

// page returns the page the focused pane is on and how many pages there are.
func (m *model) page() (page, pages int) {
	pages = (len(m.panes) + maxPerPage - 1) / maxPerPage
	if pages == 0 {
		pages = 1
	}
	return m.focus / maxPerPage, pages
}

// visibleIdx returns the indexes of the panes on screen now, in reading order.
func (m *model) visibleIdx() []int {
	if len(m.panes) == 0 {
		return nil
	}
	if m.zoom {
		return []int{m.focus}
	}
	page, _ := m.page()
	var out []int
	for i := page * maxPerPage; i < len(m.panes) && i < (page+1)*maxPerPage; i++ {
		out = append(out, i)
	}
	return out
}

// rosterShown reports whether the rail is drawn at the current size.
func (m *model) rosterShown() bool {
	return m.roster && m.width-rosterWidth-1 >= minGridWidth
}

// layout assigns boxes to the visible panes and the rail, and resizes the
// visible panes' PTYs to their boxes (in a command, off the loop).
func (m *model) layout() tea.Cmd {
	m.dirty = true
	for _, p := range m.panes {
		p.box = rect{}
	}
	m.vis = m.visibleIdx()
	m.dropHidden()
	subscribe := m.subscribe()
	if m.width <= 0 || m.height <= 2 {
		if !subscribe {
			return nil
		}
		return m.sendView()
	}
	gridW := m.width
	m.rail = rect{}
	if m.rosterShown() {
		gridW = m.width - rosterWidth - 1
		m.rail = rect{X: gridW + 1, Y: 0, W: rosterWidth, H: m.height - 1}
	}
	boxes := tile(len(m.vis), gridW, m.height-1)
	type resize struct {
		agent string
		w, h  int
	}
	var todo []resize
	for i, idx := range m.vis {
		p := m.panes[idx]
		p.box = boxes[i]
		p.stale = true // draw again at the new size
		w, h := p.box.W, p.box.H-1
		if p.info.SpawnErr == "" && !p.info.Exited && (p.snap.Cols != w || p.snap.Rows != h) {
			todo = append(todo, resize{p.info.Name, w, h})
		}
	}
	m.frame.recheck()
	m.readScreens(true)
	if _, ok := m.office.(Remote); ok {
		// A client of the server gives every shown pane's size at once.
		panes := make(map[string]PaneSize, len(m.vis))
		for _, idx := range m.vis {
			if p := m.panes[idx]; p.info.SpawnErr == "" && !p.info.Exited {
				panes[p.info.Name] = PaneSize{Cols: p.box.W, Rows: p.box.H - 1}
			}
		}
		focus := ""
		if f := m.focused(); f != nil {
			focus = f.info.Name
		}
		m.views.want(nil, &paneView{focus: focus, panes: panes, resized: m.winResized})
		m.winResized = false
		return m.sendView()
	}
	if len(todo) == 0 && !subscribe {
		return nil
	}
	office, views := m.office, m.views
	sub, _ := m.office.(Subscriber)
	return func() tea.Msg {
		var errs []string
		if err := views.send(sub, nil); err != nil {
			errs = append(errs, err.Error())
		}
		for _, s := range todo {
			if err := office.Resize(s.agent, s.w, s.h); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) > 0 {
			return resizedMsg{fmt.Errorf("%s", strings.Join(errs, "; "))}
		}
		return resizedMsg{}
	}
}

// subscribe records a subscription to exactly the agents drawn now
// (Subscriber) for the next sendView, and reports whether there is one:
// not when the office sends every screen or the set did not change. The
// newly drawn ones are drawn as soon as their screens arrive, not at the
// background panes' pace (notifier.await).
func (m *model) subscribe() bool {
	if _, ok := m.office.(Subscriber); !ok {
		return false
	}
	names := make([]string, 0, len(m.vis))
	for _, idx := range m.vis {
		names = append(names, m.panes[idx].info.Name)
	}
	if m.subscribed != nil && slices.Equal(names, m.subscribed) {
		return false
	}
	var fresh []string
	for _, n := range names {
		if !slices.Contains(m.subscribed, n) {
			fresh = append(fresh, n)
		}
	}
	m.subscribed = names
	if m.notify != nil {
		m.notify.await(fresh)
	}
	m.views.want(names, nil)
	return true
}

// sendView returns the command that tells the office the view recorded
// (viewSender): whatever order commands run in, the newest is told last.
func (m *model) sendView() tea.Cmd {
	v := m.views
	sub, _ := m.office.(Subscriber)
	r, _ := m.office.(Remote)
	return func() tea.Msg { return resizedMsg{v.send(sub, r)} }
}

// dropHidden lets go of the screen copies of panes not on screen: a client
// holds the screens it draws, not every agent's.
func (m *model) dropHidden() {
	shown := make(map[int]bool, len(m.vis))
	for _, idx := range m.vis {
		shown[idx] = true
	}
	for i, p := range m.panes {
		if !shown[i] && p.snap.Cells != nil {
			p.snap, p.rows = Screen{}, nil
			p.drawnGen, p.drawnEpoch = 0, ^uint64(0)
		}
	}
}

// paneAt returns the index of the visible pane whose box holds the cell
// (x, y), or -1.
func (m *model) paneAt(x, y int) int {
	for _, idx := range m.vis {
		if m.panes[idx].box.contains(x, y) {
			return idx
		}
	}
	return -1
}

// neighbour returns the visible pane next to the focused one in direction
// (dx, dy), or -1 when there is none: the nearest box whose centre lies that
// way, preferring boxes that overlap the focused one across the move.
func (m *model) neighbour(dx, dy int) int {
	if m.focus < 0 || m.focus >= len(m.panes) {
		return -1
	}
	cur := m.panes[m.focus].box
	best, bestD := -1, 0
	cx, cy := cur.X*2+cur.W, cur.Y*2+cur.H // doubled centres
	for _, idx := range m.vis {
		if idx == m.focus {
			continue
		}
		b := m.panes[idx].box
		bx, by := b.X*2+b.W, b.Y*2+b.H
		ax, ay := bx-cx, by-cy
		if ax*dx+ay*dy <= 0 {
			continue
		}
		var along, across int
		if dx != 0 {
			along, across = abs(ax), abs(ay)
			if b.Y < cur.Y+cur.H && cur.Y < b.Y+b.H {
				across = 0
			}
		} else {
			along, across = abs(ay), abs(ax)
			if b.X < cur.X+cur.W && cur.X < b.X+b.W {
				across = 0
			}
		}
		if d := along + 4*across; best < 0 || d < bestD {
			best, bestD = idx, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
