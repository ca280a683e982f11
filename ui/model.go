package ui

// model.go is the Bubble Tea model: its state, Init and Update. Update owns
// every change; View (render.go) only draws; the store and the PTYs are
// touched in commands (commands.go).

import (
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Timing of the UI loop.
const (
	// frameInterval caps redraws at 30 frames per second.
	frameInterval = time.Second / 30
	// storeInterval is how often queue depths, the floor flag and the event
	// log are re-read.
	storeInterval = 500 * time.Millisecond
	// flashFor is how long the status line keeps a word.
	flashFor = 5 * time.Second
)

// overlayKind is the box drawn over the panes, if any. At most one is open.
type overlayKind int

const (
	overlayNone overlayKind = iota
	overlayHelp
	overlayComposer
	overlayQueue
	overlayNotices
	overlayQuit
)

// model is the UI state. Only the tea loop touches it.
type model struct {
	src    source
	intake *intake   // notices from other goroutines
	out    io.Writer // the person's terminal, for the bell and OSC 9; nil: none
	prefix byte
	mouse  bool // the outer terminal reports the mouse (SGR)

	panes  []*pane
	vis    []int // indexes of the panes on screen, in reading order
	focus  int
	zoom   bool
	roster bool
	rail   rect // the roster rail; zero when hidden
	width  int
	height int
	now    time.Time // the last frame's time (ages in the queue panel)

	prefixPending  bool
	overlay        overlayKind
	keys           keyDecoder // decodes keys for the overlays
	carry          []byte     // an incomplete mouse report from the last chunk
	swallowRelease bool       // the release of a click that moved focus
	composer       composer
	queuePanel     queuePanel
	notices        noticeList
	flash          string    // the status line's latest word (queued, errors)
	flashAt        time.Time // the first frame that showed flash

	counts      map[string]int
	holds       map[string]string
	floorPaused bool
	lastSeq     int64 // event log position; -1 until first read
	storeErr    string

	frame string   // cached View output
	dirty bool     // the frame must be rebuilt
	buf   frameBuf // reused by View
}

// newModel returns the model for src. Panes are taken from src at the first
// frame.
func newModel(src source, in *intake, out io.Writer, o Options) *model {
	m := &model{
		src: src, intake: in, out: out, prefix: o.Prefix, mouse: !o.NoMouse,
		counts: map[string]int{}, holds: map[string]string{}, lastSeq: -1, dirty: true,
		roster: o.Roster,
	}
	if o.Notice != "" {
		m.notices.add(notice{text: o.Notice})
	}
	m.syncRoster()
	return m
}

// Init starts the frame ticker and the first store read.
func (m *model) Init() tea.Cmd {
	return tea.Batch(frameTick(), m.readStoreTick())
}

func frameTick() tea.Cmd {
	return tea.Tick(frameInterval, func(t time.Time) tea.Msg { return frameMsg(t) })
}

func storeTick() tea.Cmd {
	return tea.Tick(storeInterval, func(time.Time) tea.Msg { return queueTickMsg{} })
}

// Update applies one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case frameMsg:
		cmd := m.refresh(time.Time(msg))
		return m, tea.Batch(cmd, frameTick())
	case queueTickMsg:
		return m, m.readStoreTick()
	}
	m.dirty = true
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, m.layout()
	case inputMsg:
		return m, m.input([]byte(msg))
	case queueMsg:
		cmd := m.applyStore(msg)
		if msg.tick {
			cmd = tea.Batch(cmd, storeTick())
		}
		return m, cmd
	case resizedMsg:
		if msg.err != nil {
			m.say(msg.err.Error())
		}
	case enqueuedMsg:
		m.composer.sent(msg)
		if m.overlay == overlayComposer {
			m.overlay = overlayNone
		}
		m.say("queued for " + msg.agent)
		return m, m.readStoreOnce()
	case composerErrMsg:
		m.composer.err = msg.err.Error()
	case actionDoneMsg:
		if msg.err != nil {
			m.say(msg.err.Error())
			m.queuePanel.err = msg.err.Error()
		} else {
			m.say(msg.text)
		}
		return m, m.readStoreOnce()
	case recoveredMsg:
		m.composer.recovered(msg)
	case pickerClosedMsg:
		if msg.err != nil {
			m.composer.err = msg.err.Error()
		} else {
			m.composer.note = "sent Esc to " + msg.agent
		}
	}
	return m, nil
}

// refresh runs once per frame: it follows the roster, takes new notices,
// snapshots the visible screens whose generation moved and rebuilds titles.
func (m *model) refresh(now time.Time) tea.Cmd {
	m.now = now
	if m.flash != "" && m.flashAt.IsZero() {
		m.flashAt = now
	} else if m.flash != "" && now.Sub(m.flashAt) > flashFor {
		m.flash, m.flashAt = "", time.Time{}
		m.dirty = true
	}
	var cmds []tea.Cmd
	if m.syncRoster() {
		cmds = append(cmds, m.layout())
	}
	if ns := m.intake.take(); len(ns) > 0 {
		cmds = append(cmds, m.raise(now, ns))
	}
	holds := m.src.Holds()
	if !sameHolds(holds, m.holds) {
		m.holds = holds
		m.dirty = true
	}
	for _, p := range m.panes {
		if p.read() {
			m.dirty = true
		}
	}
	if f := m.focused(); f != nil && f.term != nil {
		f.modes = f.term.Modes()
	}
	for _, idx := range m.vis {
		p := m.panes[idx]
		if p.term == nil {
			continue
		}
		if g := p.term.Generation(); g != p.gen || p.stale {
			p.term.Snapshot(&p.snap)
			p.gen, p.stale = g, false
			m.dirty = true
		}
	}
	m.retitle()
	return tea.Batch(cmds...)
}

// retitle rebuilds the visible panes' titles.
func (m *model) retitle() {
	page, _ := m.page()
	for _, idx := range m.vis {
		p := m.panes[idx]
		key := idx - page*maxPerPage + 1
		if m.zoom {
			key = 0
		}
		if t := p.titleText(key, m.counts[p.name], m.holds[p.name], m.floorPaused, p.box.W); t != p.title {
			p.title = t
			m.dirty = true
		}
	}
}

func sameHolds(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// syncRoster follows the source's roster: new agents get panes, removed ones
// lose theirs, and focus stays on the same agent. It reports a change.
func (m *model) syncRoster() bool {
	ms := m.src.Members()
	same := len(ms) == len(m.panes)
	for i := 0; same && i < len(ms); i++ {
		same = ms[i].Name == m.panes[i].name && ms[i].Term == m.panes[i].term
	}
	if same {
		return false
	}
	focused := ""
	if m.focus >= 0 && m.focus < len(m.panes) {
		focused = m.panes[m.focus].name
	}
	old := make(map[string]*pane, len(m.panes))
	for _, p := range m.panes {
		old[p.name] = p
	}
	panes := make([]*pane, 0, len(ms))
	m.focus = 0
	for i, mb := range ms {
		p := old[mb.Name]
		if p == nil || p.term != mb.Term {
			p = &pane{stale: true}
		}
		p.name, p.profile, p.term, p.spawnErr = mb.Name, mb.Profile, mb.Term, mb.SpawnErr
		if mb.Name == focused {
			m.focus = i
		}
		panes = append(panes, p)
	}
	m.panes = panes
	m.dirty = true
	return true
}

// focused returns the focused pane, or nil.
func (m *model) focused() *pane {
	if m.focus < 0 || m.focus >= len(m.panes) {
		return nil
	}
	return m.panes[m.focus]
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

// move focuses the neighbour in direction (dx, dy); with none on screen it
// steps to the next or previous pane (across pages).
func (m *model) move(dx, dy int) tea.Cmd {
	if len(m.panes) == 0 {
		return nil
	}
	if n := m.neighbour(dx, dy); n >= 0 && !m.zoom {
		return m.setFocus(n)
	}
	step := 1
	if dx < 0 || dy < 0 {
		step = -1
	}
	return m.setFocus((m.focus + step + len(m.panes)) % len(m.panes))
}

// say puts a word on the status line for flashFor.
func (m *model) say(text string) {
	m.flash, m.flashAt = text, time.Time{}
	m.dirty = true
}
