package ui

// model.go is the Bubble Tea model: its state, Init and Update. Update owns
// every change and, when something shown changed, draws the frame at once
// (draw.go); there is no frame tick. The office is touched only in commands
// (commands.go).

import (
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
)

// Timing of the UI.
const (
	// flashFor is how long the status line keeps a word.
	flashFor = 5 * time.Second
	// startingTick refreshes "waiting for … since Ns" while an agent starts.
	startingTick = time.Second
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
	overlayForm
	overlayRestart
	overlayNeeds // the needs-you list (needs.go)
)

// model is the UI state. Only the tea loop touches it.
type model struct {
	office Office
	notify *notifier // nil in tests that drive the model by hand
	out    *output   // nil: nothing is written (tests read the frame)
	now    func() time.Time
	tick   func(time.Duration, func(time.Time) tea.Msg) tea.Cmd // tea.Tick; tests take it out
	prefix byte
	mouse  bool
	pal    palette
	dark   bool
	nocol  bool

	panes []*pane
	vis   []int // indexes of the panes on screen, in reading order
	focus int
	// refocus is the agent the person had focused when the connection to
	// the server went or came back (armed only then: the new server's
	// roster arrives after the connection, its team-added agents later
	// still): focus moves to it, with its page, when it is back. Any key,
	// paste or click, and any focus move, clears it, so it never takes
	// the keys from a pane the person uses meanwhile.
	refocus string
	zoom    bool
	roster  bool
	rail    rect
	width   int
	height  int

	prefixPending  bool
	overlay        overlayKind
	helpTop        int  // the help box's first line shown, when it is taller than the window
	swallowRelease bool // the release of a click that moved focus
	composer       composer
	queuePanel     queuePanel
	notices        noticeList
	alerts         alertState // the person's terminal's focus and how it is told (ring.go)
	needs          needsList  // the open needs-you list (needs.go)
	form           agentForm
	restartOf      string // the agent the restart question is about
	gone           string // why the server cannot be reached (Remote.Gone)
	winResized     bool   // the next layout follows a resize of the person's terminal
	flash          string
	flashSeq       int
	startTicking   bool
	pasteBuf       string     // office's paste buffer: the last copy (prefix ] pastes it)
	mouseSt        mouseState // office's own presses (copymode.go)

	floor Floor

	frame     *frame
	status    cached
	statusK   statusKey
	railC     cached
	railRows  []railRow // the rail's rows as last rendered (railLine)
	railLines []string  // scratch: the rail's rendered rows of this frame
	boxC      cached
	boxRect   rect
	sepC      cached
	railSep   placed      // the separator left of the roster rail
	boxCaret  cursorState // the caret of the open box's text field, if any
	dirty     bool        // the frame must be composed again

	// subscribed are the agents the office was last told the UI draws
	// (Subscriber); nil: none told yet.
	subscribed []string
	// views holds what the office is to be told of the view and has not
	// been yet; the commands that tell it share it.
	views *viewSender
}

// newModel returns the model for office. Panes are taken at the first
// change or size.
func newModel(office Office, o Options) *model {
	m := &model{
		office: office, now: time.Now, tick: tea.Tick, prefix: o.Prefix, mouse: !o.NoMouse,
		roster: o.Roster, frame: newFrame(), dirty: true, dark: true, nocol: o.NoColor, views: &viewSender{},
	}
	if m.prefix == 0 {
		m.prefix = DefaultPrefix
	}
	m.pal = newPalette(m.nocol, m.dark)
	m.alerts.style = ringStyleFor(o.Env)
	if o.Notice != "" {
		m.notices.add(Notice{Text: o.Notice})
	}
	m.syncRoster()
	m.floor = office.Floor()
	return m
}

// Init arms the starting panes' clock (Run has asked the outer terminal
// for its background colour and keyboard modes already).
func (m *model) Init() tea.Cmd {
	return m.tickStarting()
}

// View is unused: the model draws its own frames (draw.go) as soon as
// something changed, instead of at Bubble Tea's frame rate.
func (m *model) View() tea.View { return tea.View{} }

// flashDoneMsg clears the status line's word number seq.
type flashDoneMsg struct{ seq int }

// startingMsg refreshes the starting panes' waiting time.
type startingMsg struct{}

// Update applies one message and draws what changed.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.draw()
	return m, cmd
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case changedMsg:
		return m.changed(msg)
	case tea.WindowSizeMsg:
		m.winResized = m.width != 0 && (m.width != msg.Width || m.height != msg.Height)
		m.width, m.height = msg.Width, msg.Height
		if m.out != nil {
			m.out.resize(msg.Width, msg.Height)
		}
		return m.layout()
	case tea.BackgroundColorMsg:
		if dark := msg.IsDark(); dark != m.dark {
			m.dark = dark
			m.pal = newPalette(m.nocol, dark)
			m.restyle()
		}
	case tea.ColorProfileMsg:
		if msg.Profile <= colorprofile.Ascii && !m.nocol {
			m.nocol = true
			m.pal = newPalette(true, m.dark)
			m.restyle()
		}
	case tea.KeyPressMsg:
		m.refocus = "" // the person acts here now: a late return must not take the keys
		return m.key(tea.Key(msg))
	case tea.PasteMsg:
		m.refocus = ""
		return m.paste(msg.Content)
	case tea.MouseMsg:
		if _, click := msg.(tea.MouseClickMsg); click {
			m.refocus = ""
		}
		return m.mouseMsg(msg)
	case tea.FocusMsg:
		m.forwardFocus(true)
		return m.termFocus(true)
	case tea.BlurMsg:
		m.forwardFocus(false)
		return m.termFocus(false)
	case copyDoneMsg:
		m.copyDone(msg)
	case flashDoneMsg:
		if msg.seq == m.flashSeq {
			m.flash = ""
			m.dirty = true
		}
	case startingMsg:
		m.startTicking = false
		m.dirty = true
		return tea.Batch(m.graceNotices(), m.tickStarting())
	case resizedMsg:
		for _, idx := range m.vis {
			m.panes[idx].stale = true
		}
		m.readScreens(true)
		if msg.err != nil {
			return m.say(msg.err.Error())
		}
	case uv.UnknownEvent:
		// A sequence the decoder does not know reaches the agent as it came.
		if p := m.focused(); m.overlay == overlayNone && !m.prefixPending && (p == nil || p.cm == nil) {
			m.forward([]byte(string(msg)))
		}
	case enqueuedMsg:
		m.composer.sent(msg)
		if m.overlay == overlayComposer {
			m.overlay = overlayNone
		}
		m.dirty = true
		return m.say("queued for " + msg.agent)
	case composerErrMsg:
		m.composer.pending = false
		m.composer.err = msg.err.Error()
		m.dirty = true
	case actionDoneMsg:
		m.dirty = true
		if msg.err != nil {
			m.queuePanel.err = msg.err.Error()
			return tea.Batch(m.say(msg.err.Error()), m.readQueue())
		}
		return tea.Batch(m.say(msg.text), m.readQueue())
	case queueReadMsg:
		if msg.agent == m.queuePanel.agent {
			m.queuePanel.load(msg.listing, msg.err)
			m.dirty = true
		}
	case recoveredMsg:
		m.composer.recovered(msg)
		m.dirty = true
	case pickerClosedMsg:
		if msg.err != nil {
			m.composer.err = msg.err.Error()
		} else {
			m.composer.note = "sent Esc to " + msg.agent
		}
		m.dirty = true
	case addedMsg:
		return m.added(msg)
	case approvedMsg:
		return m.approved(msg)
	case limitReleasedMsg:
		return m.limitReleased(msg)
	case restartedMsg:
		if msg.err != nil {
			return m.say(msg.err.Error())
		}
		return m.say("restarted " + msg.agent)
	case serverStartedMsg:
		if msg.err != nil {
			return m.say(msg.err.Error())
		}
		return m.say("the office's server started again; reconnecting")
	}
	return nil
}

// changed picks up what the office said changed.
func (m *model) changed(c changedMsg) tea.Cmd {
	var cmds []tea.Cmd
	if r, ok := m.office.(Remote); ok && c.state {
		reason, ended := r.Gone()
		if ended {
			return tea.Quit
		}
		if reason != m.gone {
			if reason == "" {
				cmds = append(cmds, m.say("connected to the office's server again"))
			}
			if f := m.focused(); f != nil && m.refocus == "" {
				m.refocus = f.info.Name // a reconnect: keep the focus by name
			}
			m.gone = reason
			m.dirty = true
		}
	}
	if c.state {
		if m.syncRoster() {
			cmds = append(cmds, m.layout())
		}
		if f := m.focused(); f != nil && f.info.Name == m.refocus && m.gone == "" {
			m.refocus = "" // back, and focused: nothing left to restore
		}
		m.floor = m.office.Floor()
		m.readInfo()
		m.dirty = true
		if m.overlay == overlayQueue {
			cmds = append(cmds, m.readQueue())
		}
	}
	if len(c.notices) > 0 {
		cmds = append(cmds, m.raise(c.notices))
	}
	if c.focus || c.bg || c.state {
		m.readScreens(c.bg || c.state)
	}
	cmds = append(cmds, m.tickStarting())
	return tea.Batch(cmds...)
}

// readScreens copies the visible screens that changed (only the focused
// one unless all).
func (m *model) readScreens(all bool) {
	for _, idx := range m.vis {
		p := m.panes[idx]
		if !all && idx != m.focus && !p.stale {
			continue
		}
		if p.stale {
			p.snap.Generation = ^uint64(0)
			p.rows = p.rows[:0] // every row again
			p.stale = false
		}
		if m.office.Screen(p.info.Name, &p.snap, &p.rows) {
			m.dirty = true
		}
	}
}

// readInfo takes every agent's state from the roster.
func (m *model) readInfo() {
	byName := make(map[string]AgentInfo, len(m.panes))
	for _, a := range m.office.Agents() {
		byName[a.Name] = a
	}
	for _, p := range m.panes {
		if a, ok := byName[p.info.Name]; ok {
			p.info = a
		}
	}
}

// syncRoster follows the office's roster: new agents get panes, removed ones
// lose theirs, restarted ones start over, and focus stays on the same
// agent. It reports a change.
func (m *model) syncRoster() bool {
	as := m.office.Agents()
	same := len(as) == len(m.panes)
	for i := 0; same && i < len(as); i++ {
		same = as[i].Name == m.panes[i].info.Name && as[i].Started.Equal(m.panes[i].info.Started)
	}
	if same {
		return false
	}
	focused := m.refocus
	if f := m.focused(); f != nil && focused == "" {
		focused = f.info.Name
	}
	refocus := m.refocus
	if len(as) == 0 {
		// Only a new connection, before its roster, has none (a quick
		// reconnect, never said gone): a reconnect too.
		refocus = focused
	}
	old := make(map[string]*pane, len(m.panes))
	for _, p := range m.panes {
		old[p.info.Name] = p
	}
	panes := make([]*pane, 0, len(as))
	m.focus = 0
	for i, a := range as {
		p := old[a.Name]
		if p == nil || !p.info.Started.Equal(a.Started) {
			p = &pane{}
		}
		p.info, p.stale = a, true
		if a.Name == focused {
			m.focus = i
			if a.Name == refocus && m.gone == "" {
				refocus = ""
			}
		}
		panes = append(panes, p)
	}
	m.panes, m.refocus = panes, refocus
	m.focusChanged()
	m.dirty = true
	return true
}

// restyle drops every cached render after a palette change.
func (m *model) restyle() {
	m.status, m.railC, m.boxC, m.sepC, m.statusK = cached{}, cached{}, cached{}, cached{}, statusKey{}
	m.railRows = nil
	for _, p := range m.panes {
		p.titleC, p.waitC, p.titleK = cached{}, cached{}, titleKey{}
	}
	m.dirty = true
}

// focused returns the focused pane, or nil.
func (m *model) focused() *pane {
	if m.focus < 0 || m.focus >= len(m.panes) {
		return nil
	}
	return m.panes[m.focus]
}

// focusChanged tells the notifier which agent's output is drawn at once.
func (m *model) focusChanged() {
	if m.notify == nil {
		return
	}
	if f := m.focused(); f != nil {
		m.notify.setFocus(f.info.Name)
	} else {
		m.notify.setFocus("")
	}
}

// setFocus moves focus to pane i, re-laying out when the page changes.
func (m *model) setFocus(i int) tea.Cmd {
	m.refocus = "" // the person chose: a late return must not take it back
	if i < 0 || i >= len(m.panes) || i == m.focus {
		return nil
	}
	oldPage := m.focus / maxPerPage
	m.focus = i
	m.focusChanged()
	m.dirty = true
	if m.zoom || i/maxPerPage != oldPage {
		return m.layout()
	}
	m.readScreens(false)
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
func (m *model) say(text string) tea.Cmd {
	m.flash = text
	m.flashSeq++
	m.dirty = true
	seq := m.flashSeq
	return m.tick(flashFor, func(time.Time) tea.Msg { return flashDoneMsg{seq} })
}

// graceNotices tells the person, once per start, of an agent still starting
// after its boot grace (a first-run dialog, a changed prompt): its screen
// stays visible in its pane.
func (m *model) graceNotices() tea.Cmd {
	var ns []Notice
	now := m.now()
	for _, p := range m.panes {
		if p.starting() && !p.graceNoticed && p.info.BootGrace > 0 && now.Sub(p.info.Started) >= p.info.BootGrace {
			p.graceNoticed = true
			ns = append(ns, Notice{At: now, Agent: p.info.Name, Kind: "starting",
				Text: "has not shown its prompt after " + p.info.BootGrace.String() + "; look at its pane (a first-run dialog?)"})
		}
	}
	if len(ns) == 0 {
		return nil
	}
	return m.raise(ns)
}

// tickStarting arms the one-second refresh while an agent is starting or
// an exited one's restart waits (its countdown).
func (m *model) tickStarting() tea.Cmd {
	if m.startTicking {
		return nil
	}
	for _, idx := range m.vis {
		if p := m.panes[idx]; p.starting() || p.restartPending() || (p.limited() && !p.info.LimitAt.IsZero()) {
			m.startTicking = true
			return m.tick(startingTick, func(time.Time) tea.Msg { return startingMsg{} })
		}
	}
	return nil
}
