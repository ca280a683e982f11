package ui

// model.go is the Bubble Tea model: state in Update, rendering in View.

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"office/automation"
	"office/engine"
	"office/pool"
)

// Timing of the UI loop.
const (
	// frameInterval caps redraws at 30 frames per second.
	frameInterval = time.Second / 30
	// queueInterval is how often queue depths are re-read from the store.
	queueInterval = 500 * time.Millisecond
)

// Messages.
type (
	// inputMsg is a raw chunk read from the person's terminal.
	inputMsg []byte
	// frameMsg asks Update to pick up changed screens.
	frameMsg time.Time
	// queueMsg carries queue depths per agent, read off the loop.
	queueMsg map[string]int
	// queueTickMsg asks for the next queue read.
	queueTickMsg struct{}
	// resizedMsg reports PTY resizes done off the loop.
	resizedMsg struct{ err error }
)

// pane is one agent on screen.
type pane struct {
	agent *engine.Agent
	snap  pool.Snapshot
	gen   uint64
	title string
	box   rect // whole box including the title row
}

// model is the UI state. Only the tea loop touches it.
type model struct {
	eng    *engine.Engine
	app    *App
	prefix byte

	panes  []*pane
	focus  int
	zoom   bool
	width  int
	height int

	prefixPending bool
	confirmQuit   bool
	showHelp      bool
	notice        string
	depth         map[string]int

	frame string   // cached View output
	dirty bool     // the frame must be rebuilt
	buf   frameBuf // reused by View
}

func newModel(eng *engine.Engine, app *App, o Options) *model {
	m := &model{eng: eng, app: app, prefix: o.Prefix, notice: o.Notice, depth: map[string]int{}, dirty: true}
	for _, a := range eng.Agents() {
		m.panes = append(m.panes, &pane{agent: a})
	}
	return m
}

// Init starts the frame and queue tickers.
func (m *model) Init() tea.Cmd {
	return tea.Batch(frameTick(), m.readQueue())
}

func frameTick() tea.Cmd {
	return tea.Tick(frameInterval, func(t time.Time) tea.Msg { return frameMsg(t) })
}

// readQueue reads queue depths from the store off the loop.
func (m *model) readQueue() tea.Cmd {
	store := m.eng.Store()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		msgs, err := store.List(ctx, "")
		depth := map[string]int{}
		if err == nil {
			for _, msg := range msgs {
				depth[msg.Agent]++
			}
		}
		return queueMsg(depth)
	}
}

// Update applies one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.dirty = true
		return m, m.layout()
	case inputMsg:
		return m, m.input([]byte(msg))
	case frameMsg:
		m.refresh()
		return m, frameTick()
	case queueMsg:
		m.depth = msg
		m.dirty = true
		return m, tea.Tick(queueInterval, func(time.Time) tea.Msg { return queueTickMsg{} })
	case queueTickMsg:
		return m, m.readQueue()
	case resizedMsg:
		if msg.err != nil {
			m.notice = msg.err.Error()
			m.dirty = true
		}
		return m, nil
	}
	return m, nil
}

// visible returns the panes on screen now, with their index.
func (m *model) visible() []int {
	if len(m.panes) == 0 {
		return nil
	}
	if m.zoom {
		return []int{m.focus}
	}
	page := m.focus / maxPerPage
	var out []int
	for i := page * maxPerPage; i < len(m.panes) && i < (page+1)*maxPerPage; i++ {
		out = append(out, i)
	}
	return out
}

// layout assigns boxes to the visible panes and resizes their PTYs (in a command).
func (m *model) layout() tea.Cmd {
	if m.width <= 0 || m.height <= 1 {
		return nil
	}
	vis := m.visible()
	boxes := tile(len(vis), m.width, m.height-1) // last row: status line
	type sz struct {
		t    *pool.Terminal
		w, h int
	}
	var todo []sz
	for i, idx := range vis {
		p := m.panes[idx]
		p.box = boxes[i]
		p.gen = 0
		if p.agent.Term != nil {
			w, h := p.box.W, p.box.H-1
			if cw, ch := p.agent.Term.Size(); cw != w || ch != h {
				todo = append(todo, sz{p.agent.Term, w, h})
			}
		}
	}
	m.dirty = true
	if len(todo) == 0 {
		return nil
	}
	return func() tea.Msg {
		var errs []string
		for _, s := range todo {
			if err := s.t.Resize(s.w, s.h); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) > 0 {
			return resizedMsg{fmt.Errorf("%s", strings.Join(errs, "; "))}
		}
		return resizedMsg{}
	}
}

// refresh picks up changed screens, titles and notices.
func (m *model) refresh() {
	if ns := m.app.takeNotices(); len(ns) > 0 {
		m.notice = ns[len(ns)-1]
		m.dirty = true
	}
	holds := m.eng.Holds()
	for _, idx := range m.visible() {
		p := m.panes[idx]
		if t := p.agent.Term; t != nil {
			if g := t.Generation(); g != p.gen || p.snap.Cols == 0 {
				t.Snapshot(&p.snap)
				p.gen = g
				m.dirty = true
			}
		}
		if title := m.titleOf(p, idx, holds[p.agent.Config.Name]); title != p.title {
			p.title = title
			m.dirty = true
		}
	}
}

// titleOf is a pane's title bar text: name, profile, status, badge, queue.
func (m *model) titleOf(p *pane, idx int, hold string) string {
	var b strings.Builder
	fmt.Fprintf(&b, " %d %s · %s · ", idx+1, p.agent.Config.Name, p.agent.Profile.Name)
	t := p.agent.Term
	switch {
	case t == nil:
		b.WriteString("not started")
	default:
		st := t.Status()
		if exited, code := t.Exited(); exited {
			fmt.Fprintf(&b, "exited (%d)", code)
		} else if st == automation.StatusWaiting {
			b.WriteString("waiting for you")
		} else {
			b.WriteString(st.String())
		}
		if t.HasDraft() {
			b.WriteString(" · your draft")
		}
	}
	if n := m.depth[p.agent.Config.Name]; n > 0 {
		fmt.Fprintf(&b, " · %d queued", n)
		if hold != "" {
			fmt.Fprintf(&b, " · held: %s", hold)
		}
	}
	b.WriteByte(' ')
	return b.String()
}

// focused returns the focused pane's terminal, or nil.
func (m *model) focused() *pool.Terminal {
	if m.focus < 0 || m.focus >= len(m.panes) {
		return nil
	}
	return m.panes[m.focus].agent.Term
}

// setFocus moves focus to pane i, re-laying out when the page changes.
func (m *model) setFocus(i int) tea.Cmd {
	if i < 0 || i >= len(m.panes) || i == m.focus {
		return nil
	}
	oldPage := m.focus / maxPerPage
	m.focus = i
	m.dirty = true
	if m.zoom || i/maxPerPage != oldPage {
		return m.layout()
	}
	return nil
}
