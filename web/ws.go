package web

// ws.go is the page's one WebSocket: the roster (status, hold, queue depth)
// and the screen of the agent the page shows, as text rows, with the
// dialog's options when the agent waits on one. Each socket sends only the
// latest, at most once per framePace: a slow page skips updates of its own,
// nobody else's.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"

	"office/engine"
	"office/pool"
	"office/wire"
)

// rosterRow is one agent as the page lists it.
type rosterRow struct {
	Name    string `json:"name"`
	Profile string `json:"profile,omitempty"`
	Status  string `json:"status,omitempty"`
	Hold    string `json:"hold,omitempty"`
	Queued  int    `json:"queued"`
	Paused  bool   `json:"paused,omitempty"`
	Error   string `json:"error,omitempty"`
}

type rosterMsg struct {
	T           string      `json:"t"`
	FloorPaused bool        `json:"floor_paused,omitempty"`
	Agents      []rosterRow `json:"agents"`
}

type screenMsg struct {
	T     string `json:"t"`
	Agent string `json:"agent"`
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
	Text  string `json:"text"`
	// ANSI is the same rows with SGR colours and attributes, joined by
	// CR LF, for xterm.js.
	ANSI    string                `json:"ansi,omitempty"`
	Cursor  *cursorPos            `json:"cursor,omitempty"`
	Status  string                `json:"status,omitempty"`
	Options []engine.DialogOption `json:"options,omitempty"`
}

// cursorPos is the cursor of the shown screen: its cell (0-based) and
// whether the agent shows it (?25l hides it).
type cursorPos struct {
	X       int  `json:"x"`
	Y       int  `json:"y"`
	Visible bool `json:"visible"`
}

// needRow is one item of the needs-you list as the page shows it: the
// dialog's options split into the number to answer with and the label.
type needRow struct {
	Agent   string                `json:"agent"`
	Host    string                `json:"host,omitempty"`
	Reason  string                `json:"reason"`
	Since   time.Time             `json:"since"`
	Excerpt string                `json:"excerpt,omitempty"`
	Options []engine.DialogOption `json:"options,omitempty"`
	Ref     string                `json:"ref,omitempty"`
}

// needsMsg is the needs-you list (docs/needs.md), oldest first; the page
// tells the age from since, so the message changes only with the list.
type needsMsg struct {
	T     string    `json:"t"`
	Needs []needRow `json:"needs"`
}

// needs builds the needs message from the client's state.
func (s *Server) needs() needsMsg {
	m := needsMsg{T: "needs", Needs: []needRow{}}
	for _, n := range s.cfg.Backend.State().Needs {
		r := needRow{Agent: n.Agent, Host: n.Host, Reason: n.Reason, Since: n.Since, Excerpt: n.Excerpt, Ref: n.Ref}
		for _, o := range n.Options {
			r.Options = append(r.Options, splitOption(o))
		}
		m.Needs = append(m.Needs, r)
	}
	return m
}

// splitOption splits a dialog option as the list carries it ("1. Yes")
// into its number and label.
func splitOption(o string) engine.DialogOption {
	o = strings.TrimSpace(o)
	i := 0
	for i < len(o) && o[i] >= '0' && o[i] <= '9' {
		i++
	}
	if i == 0 {
		return engine.DialogOption{Label: o}
	}
	return engine.DialogOption{Num: o[:i], Label: strings.TrimSpace(strings.TrimLeft(o[i:], ".)"))}
}

// roster builds the roster message from the backend.
func (s *Server) roster() rosterMsg {
	st := s.cfg.Backend.State()
	byName := map[string]int{}
	m := rosterMsg{T: "roster", FloorPaused: st.FloorPaused}
	for _, a := range s.cfg.Backend.Roster() {
		byName[a.Name] = len(m.Agents)
		m.Agents = append(m.Agents, rosterRow{Name: a.Name, Profile: a.Profile, Error: a.SpawnError})
	}
	for _, a := range st.Agents {
		i, ok := byName[a.Name]
		if !ok {
			continue
		}
		r := &m.Agents[i]
		r.Status, r.Hold, r.Queued, r.Paused = a.Status, a.Hold, a.Queued, a.Paused
		if a.Error != "" {
			r.Error = a.Error
		}
	}
	return m
}

// maxEvents events are kept for the page (the newest; a phone shows what
// just happened, `office events` has the rest), each text cut at
// maxEventText bytes.
const (
	maxEvents    = 50
	maxEventText = 300
)

// eventRow is one event of the office (the protocol's event stream, as
// `office events` prints it) as the page lists it.
type eventRow struct {
	At     time.Time `json:"at"`
	Type   string    `json:"type"`
	Agent  string    `json:"agent,omitempty"`
	MsgID  int64     `json:"msg_id,omitempty"`
	State  string    `json:"state,omitempty"`
	Status string    `json:"status,omitempty"`
	Hold   string    `json:"hold,omitempty"`
	Kind   string    `json:"kind,omitempty"`
	Detail string    `json:"detail,omitempty"`
	Text   string    `json:"text,omitempty"`
	Lost   int       `json:"lost,omitempty"`
}

type eventsMsg struct {
	T      string     `json:"t"`
	Events []eventRow `json:"events"`
}

// addEvent keeps ev among the newest maxEvents.
func (s *Server) addEvent(ev wire.Event) {
	r := eventRow{At: ev.At, Type: ev.Type, Agent: ev.Agent, MsgID: ev.MsgID, State: ev.State, Status: ev.Status, Hold: ev.Hold,
		Kind: ev.Kind, Lost: ev.Lost}
	r.Detail, r.Text = cutUTF8(ev.Detail, maxEventText), cutUTF8(ev.Text, maxEventText)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, r)
	if len(s.events) > maxEvents {
		s.events = append(s.events[:0], s.events[len(s.events)-maxEvents:]...)
	}
	s.eventGen++
}

// eventsSince is the events message when events came after gen (the count
// a page was last sent), with the count now.
func (s *Server) eventsSince(gen int) (*eventsMsg, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eventGen == gen {
		return nil, gen
	}
	return &eventsMsg{T: "events", Events: append([]eventRow{}, s.events...)}, s.eventGen
}

// cutUTF8 cuts s to at most n bytes on a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// rowsMsg is what changed on the shown agent's screen since the last
// screen or rows message to this page: the changed rows only (the same
// size, the same agent), with the status and the dialog's options.
type rowsMsg struct {
	T       string                `json:"t"`
	Agent   string                `json:"agent"`
	Changed []rowChange           `json:"changed"`
	Cursor  *cursorPos            `json:"cursor,omitempty"`
	Status  string                `json:"status,omitempty"`
	Options []engine.DialogOption `json:"options,omitempty"`
}

// rowChange is one changed row: its index, its text and its SGR form.
type rowChange struct {
	Y    int    `json:"y"`
	Text string `json:"text"`
	ANSI string `json:"ansi"`
}

// screenState is one page's copy of the shown agent's screen: what it was
// last sent, to send only what changed.
type screenState struct {
	agent      string
	cols, rows int
	text, ansi []string
	cursor     cursorPos
	status     string
	options    string // JSON of the options
	sent       bool
}

// screenRows reads agent's screen into rows of text and of SGR form (false
// when none is held yet).
func (s *Server) screenRows(agent string, snap *pool.Snapshot) (text, ansi []string, ok bool) {
	if !s.cfg.Backend.Screen(agent, snap) {
		return nil, nil, false
	}
	text, ansi = make([]string, snap.Rows), make([]string, snap.Rows)
	var buf []byte
	for y := 0; y < snap.Rows; y++ {
		text[y] = snap.RowText(y)
		buf = pool.AppendANSI(buf[:0], snap.Cells[y*snap.Cols:(y+1)*snap.Cols])
		ansi[y] = string(buf)
	}
	return text, ansi, true
}

// screenUpdate is the next message for the page showing agent, given what
// it was sent (st, updated): the whole screen first (and after the agent
// or the size changed), then the changed rows only; nil when nothing
// changed.
func (s *Server) screenUpdate(st *screenState, agent string, snap *pool.Snapshot, status string) any {
	text, ansi, ok := s.screenRows(agent, snap)
	var opts []engine.DialogOption
	if ok && status == wire.StatusWaiting {
		opts = engine.DialogOptions(strings.Join(text, "\n") + "\n")
	}
	oj, _ := json.Marshal(opts)
	whole := !st.sent || st.agent != agent || st.cols != snap.Cols || st.rows != len(text) || !ok
	if !ok {
		snap.Cols = 0
	}
	var cur cursorPos
	if ok {
		cur = cursorPos{X: snap.CursorX, Y: snap.CursorY, Visible: snap.CursorVisible}
	}
	if whole {
		if st.sent && st.agent == agent && st.rows == 0 && !ok && st.status == status {
			return nil
		}
		*st = screenState{agent: agent, cols: snap.Cols, rows: len(text), text: text, ansi: ansi, cursor: cur, status: status,
			options: string(oj), sent: true}
		m := screenMsg{T: "screen", Agent: agent, Status: status, Options: opts}
		if ok {
			m.Cols, m.Rows, m.Text, m.ANSI = snap.Cols, len(text), strings.Join(text, "\n")+"\n", strings.Join(ansi, "\r\n")
			m.Cursor = &cur
		}
		return m
	}
	m := rowsMsg{T: "rows", Agent: agent, Changed: []rowChange{}, Cursor: &cur, Status: status, Options: opts}
	for y := range text {
		if text[y] != st.text[y] || ansi[y] != st.ansi[y] {
			m.Changed = append(m.Changed, rowChange{Y: y, Text: text[y], ANSI: ansi[y]})
		}
	}
	if len(m.Changed) == 0 && cur == st.cursor && status == st.status && string(oj) == st.options {
		return nil
	}
	st.text, st.ansi, st.cursor, st.status, st.options = text, ansi, cur, status, string(oj)
	return m
}

func (s *Server) handleWS(w http.ResponseWriter, r *http.Request) {
	ss := sessionOf(r)
	s.mu.Lock()
	if s.nsockets >= s.lim.Sockets || s.sockets[ss.ID] >= maxSocketsPerSession {
		s.mu.Unlock()
		jsonError(w, http.StatusTooManyRequests, "too many open pages: close one")
		return
	}
	s.nsockets++
	s.sockets[ss.ID]++
	kick := make(chan struct{}, 1)
	s.kicks[kick] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.nsockets--
		if s.sockets[ss.ID]--; s.sockets[ss.ID] <= 0 {
			delete(s.sockets, ss.ID)
		}
		delete(s.kicks, kick)
		s.mu.Unlock()
	}()
	// guard checked the Origin against the Host already; Accept checks it
	// again its own way.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{wsProtocol}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(maxWSMessage)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()

	// The reader: the agent the page shows now.
	want := make(chan string, 1)
	go func() {
		defer cancel()
		for {
			_, p, err := c.Read(ctx)
			if err != nil {
				return
			}
			var m struct {
				T     string `json:"t"`
				Agent string `json:"agent"`
			}
			if json.Unmarshal(p, &m) != nil || m.T != "watch" || len(m.Agent) > 256 {
				continue
			}
			select {
			case <-want:
			default:
			}
			want <- m.Agent
		}
	}()

	var shown string
	defer func() { s.watch(shown, -1) }()
	var lastRoster, lastNeeds []byte
	eventGen := -1 // the page gets the events kept so far, even none
	var scr screenState
	var snap pool.Snapshot
	kick <- struct{}{}
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-want:
			if a != shown {
				s.watch(a, 1)
				s.watch(shown, -1)
				shown, scr = a, screenState{}
			}
		case <-kick:
		}
		// Session still live? A revoked or expired one is closed.
		if !s.sessionLive(r) {
			c.Close(websocket.StatusPolicyViolation, "session revoked or expired")
			return
		}
		rm := s.roster()
		if p, _ := json.Marshal(rm); string(p) != string(lastRoster) {
			if !s.send(ctx, c, p) {
				return
			}
			lastRoster = p
		}
		if p, _ := json.Marshal(s.needs()); string(p) != string(lastNeeds) {
			if !s.send(ctx, c, p) {
				return
			}
			lastNeeds = p
		}
		if m, gen := s.eventsSince(eventGen); m != nil {
			p, _ := json.Marshal(m)
			if !s.send(ctx, c, p) {
				return
			}
			eventGen = gen
		}
		if shown != "" {
			status := ""
			for _, a := range rm.Agents {
				if a.Name == shown {
					status = a.Status
				}
			}
			if m := s.screenUpdate(&scr, shown, &snap, status); m != nil {
				p, _ := json.Marshal(m)
				if !s.send(ctx, c, p) {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.cfg.FramePace):
		}
	}
}

// sessionLive reports whether r's session is still live (not revoked, not
// expired).
func (s *Server) sessionLive(r *http.Request) bool {
	_, ok := s.cfg.Store.Check(credentials(r))
	return ok
}

func (s *Server) send(ctx context.Context, c *websocket.Conn, p []byte) bool {
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return c.Write(wctx, websocket.MessageText, p) == nil
}
