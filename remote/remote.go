// Package remote is the office as the UI sees it (ui.Office) through a
// connection to the office's server (client.Session): the roster, live state
// and screens the server pushes, the person's keys and intents sent back.
// Nothing polls: every change the UI hears of is a message the server sent.
package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"office/automation"
	"office/client"
	"office/drain"
	"office/inbox"
	"office/pool"
	"office/ui"
	"office/wire"
)

// Timing and bounds of the remote office.
const (
	// goneAfter is how long a lost connection may stay lost before the UI
	// is told (a killed ssh comes back well within it, without a word).
	goneAfter = time.Second
	// inputQueue bounds the person's keys waiting to be written to the
	// server; beyond it Input refuses them instead of blocking the UI.
	inputQueue = 1024
)

// Options say how the remote office reaches and restarts its server.
type Options struct {
	// Start starts the server again after it went away; nil: it cannot be
	// started from here (another host), the UI only waits for it.
	Start func(ctx context.Context) error
	// Where names the server in messages ("office server on host H").
	Where string
}

// Office implements ui.Office and ui.Remote on a session. Its methods are
// safe for concurrent use.
type Office struct {
	s *client.Session
	o Options

	mu       sync.Mutex
	watchers map[int]func(ui.Change)
	nextW    int
	gens     map[string]uint64 // the local generation of each agent's screen
	gen      uint64
	panes    map[string]wire.Size
	waiting  map[string]bool
	gone     string
	ended    bool
	goneT    *time.Timer
	hist     map[string]map[int64][]byte // history lines fetched, by agent and number (History)

	input  chan wire.Input
	queued atomic.Int64 // keys in input or being written by writeInput
	quit   chan struct{}
	once   sync.Once
}

// New returns the office seen through s. Close it (it does not close s).
func New(s *client.Session, o Options) *Office {
	if o.Where == "" {
		o.Where = "the office's server"
	}
	r := &Office{s: s, o: o, watchers: map[int]func(ui.Change){}, gens: map[string]uint64{},
		panes: map[string]wire.Size{}, waiting: map[string]bool{},
		input: make(chan wire.Input, inputQueue), quit: make(chan struct{})}
	stop := s.Watch(r.change)
	r.seed() // screens that arrived before the watch
	go func() {
		<-r.quit
		stop()
	}()
	go r.writeInput()
	go func() {
		select {
		case <-s.Done():
			r.mu.Lock()
			r.ended = true
			r.mu.Unlock()
			r.emit(ui.Change{Kind: ui.ChangeConnection})
		case <-r.quit:
		}
	}()
	return r
}

// Close stops following the session.
func (r *Office) Close() { r.once.Do(func() { close(r.quit) }) }

// writeInput writes the person's keys in order, off the UI's loop.
func (r *Office) writeInput() {
	var told *client.Conn // the connection whose lost keys were told (once each)
	for {
		select {
		case <-r.quit:
			return
		case m := <-r.input:
			c := r.s.Conn()
			err := c.Input(m.Agent, m.Data)
			r.queued.Add(-1)
			if err != nil && told != c {
				told = c
				r.emit(ui.Change{Kind: ui.ChangeNotice, Agent: m.Agent, Notice: ui.Notice{At: time.Now(), Agent: m.Agent,
					Kind: "keys", Text: "keys not sent: the connection to " + r.o.Where + " dropped"}})
			}
		}
	}
}

func (r *Office) emit(c ui.Change) {
	r.mu.Lock()
	ws := make([]func(ui.Change), 0, len(r.watchers))
	for _, w := range r.watchers {
		ws = append(ws, w)
	}
	r.mu.Unlock()
	for _, w := range ws {
		w(c)
	}
}

// change turns the session's changes into the UI's.
func (r *Office) change(c client.Change) {
	switch c.Kind {
	case client.ChangeScreen:
		r.mu.Lock()
		r.gen++
		r.gens[c.Agent] = r.gen
		r.mu.Unlock()
		r.emit(ui.Change{Kind: ui.ChangeScreen, Agent: c.Agent})
	case client.ChangeRoster:
		r.emit(ui.Change{Kind: ui.ChangeRoster})
	case client.ChangeState:
		r.emit(ui.Change{Kind: ui.ChangeFloor})
	case client.ChangeEvent:
		if n, ok := r.notice(c.Event); ok {
			r.emit(ui.Change{Kind: ui.ChangeNotice, Agent: n.Agent, Notice: n})
		}
	case client.ChangeGone:
		r.mu.Lock()
		if r.goneT == nil {
			r.goneT = time.AfterFunc(goneAfter, r.lost)
		}
		r.mu.Unlock()
	case client.ChangeReconnected:
		r.mu.Lock()
		if r.goneT != nil {
			r.goneT.Stop()
			r.goneT = nil
		}
		was := r.gone
		r.gone = ""
		// Every screen comes afresh: make the UI copy each again.
		for a := range r.gens {
			r.gen++
			r.gens[a] = r.gen
		}
		r.mu.Unlock()
		r.emit(ui.Change{Kind: ui.ChangeRoster})
		if was != "" {
			r.emit(ui.Change{Kind: ui.ChangeConnection})
		}
	}
}

// seed gives a generation to every screen the connection holds that has
// none yet (it arrived before Watch): the UI copies it.
func (r *Office) seed() {
	c := r.s.Conn()
	roster := c.Roster()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range roster {
		if _, ok := r.gens[a.Name]; !ok && c.Generation(a.Name) > 0 {
			r.gen++
			r.gens[a.Name] = r.gen
		}
	}
}

// lost tells the UI the connection stayed lost.
func (r *Office) lost() {
	r.mu.Lock()
	if r.goneT == nil || r.ended { // reconnected meanwhile, or over for good
		r.mu.Unlock()
		return
	}
	r.gone = r.o.Where + " is gone; reconnecting"
	r.mu.Unlock()
	r.emit(ui.Change{Kind: ui.ChangeConnection})
}

// notice turns one event of the stream into news for the person.
func (r *Office) notice(ev wire.Event) (ui.Notice, bool) {
	switch ev.Type {
	case wire.EventNotice:
		text := ev.Text
		switch drain.NoticeKind(ev.Kind) {
		case drain.NoticeDropped:
			text = fmt.Sprintf("message %d dropped after its last failed attempt: %s", ev.MsgID, firstLine(ev.Text))
		case drain.NoticeTypedNotSubmitted:
			text = fmt.Sprintf("message %d typed but not submitted; it sits on the prompt as your draft", ev.MsgID)
		case drain.NoticePreconditionDropped:
			text = fmt.Sprintf("message %d dropped: its precondition no longer held", ev.MsgID)
		}
		return ui.Notice{At: ev.At, Agent: ev.Agent, Kind: ev.Kind, Text: text}, true
	case wire.EventExit:
		code := 0
		if ev.Code != nil {
			code = *ev.Code
		}
		return ui.Notice{At: ev.At, Agent: ev.Agent, Kind: "exit", Text: fmt.Sprintf("exited with code %d", code)}, true
	case wire.EventStatus:
		w := ev.Status == wire.StatusWaiting
		r.mu.Lock()
		was := r.waiting[ev.Agent]
		r.waiting[ev.Agent] = w
		r.mu.Unlock()
		if w && !was {
			return ui.Notice{At: ev.At, Agent: ev.Agent, Kind: "waiting", Text: "is waiting for you"}, true
		}
	case wire.EventStore:
		return storeNotice(ev)
	case wire.EventAlert:
		return ui.Notice{At: ev.At, Agent: ev.Agent, Kind: ev.Kind, Alert: true, Title: ev.Detail, Text: ev.Text}, true
	}
	return ui.Notice{}, false
}

// storeNotice is news in an entry of the store's log written by the inbox
// layer: every notification to a parent (completed, failed, cancelled,
// stalled), anything sent to the person, and dead letters. An item sent
// comes with its kind, sender and preview as the event's fields (the
// server reads them out of the log's detail: wire.Event.Item).
func storeNotice(e wire.Event) (ui.Notice, bool) {
	switch e.Kind {
	case inbox.EventInboxSent:
		kind, sender, text := e.Item, e.From, e.Text
		switch {
		case kind == inbox.KindNotification && e.Agent == inbox.Person:
			return ui.Notice{At: e.At, Agent: sender, Kind: kind, Text: text}, true
		case kind == inbox.KindNotification:
			return ui.Notice{At: e.At, Agent: sender, Kind: kind, Text: text + " (to " + e.Agent + ")"}, true
		case e.Agent == inbox.Person:
			return ui.Notice{At: e.At, Agent: sender, Kind: kind, Text: kind + " for you: " + text}, true
		}
	case inbox.EventInboxDead:
		return ui.Notice{At: e.At, Agent: e.Agent, Kind: e.Kind, Text: "dead letter: " + e.Detail}, true
	}
	return ui.Notice{}, false
}

// firstLine is text's first line, at most 60 runes.
func firstLine(text string) string {
	line, _, multi := strings.Cut(text, "\n")
	if r := []rune(line); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	if multi {
		return line + " …"
	}
	return line
}

// Watch implements ui.Office.
func (r *Office) Watch(fn func(ui.Change)) (stop func()) {
	r.mu.Lock()
	id := r.nextW
	r.nextW++
	r.watchers[id] = fn
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.watchers, id)
		r.mu.Unlock()
	}
}

// Agents implements ui.Office: the roster with each agent's live state.
func (r *Office) Agents() []ui.AgentInfo {
	c := r.s.Conn()
	roster, st := c.Roster(), c.State()
	byName := make(map[string]wire.AgentState, len(st.Agents))
	for _, a := range st.Agents {
		byName[a.Name] = a
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ui.AgentInfo, len(roster))
	for i, a := range roster {
		info := ui.AgentInfo{Name: a.Name, Profile: a.Profile, Started: a.Started, ReadyMarkers: a.ReadyMarkers,
			BootGrace: automation.BootGrace, SpawnErr: a.SpawnError, Generation: r.gens[a.Name],
			Status: wire.StatusStarting}
		if s, ok := byName[a.Name]; ok {
			info.Status, info.Draft, info.Picker = s.Status, s.Draft, s.Picker
			info.LimitAt, info.LimitRetry = s.LimitAt, s.LimitRetry
			if s.ExitCode != nil {
				info.Exited, info.ExitCode, info.RestartAt = true, *s.ExitCode, s.RestartAt
			}
		}
		if a.SpawnError != "" {
			info.Status = wire.StatusExited
		}
		out[i] = info
	}
	return out
}

// Screen implements ui.Office.
func (r *Office) Screen(agent string, dst *ui.Screen, rows *[]uint64) bool {
	r.mu.Lock()
	g, ok := r.gens[agent]
	r.mu.Unlock()
	if !ok || g == dst.Generation {
		return false
	}
	if rows == nil {
		if !r.s.Conn().Screen(agent, dst) {
			return false
		}
	} else if !r.s.Conn().ScreenRows(agent, dst, rows) {
		return false
	}
	dst.Generation = g
	return true
}

// Floor implements ui.Office.
func (r *Office) Floor() ui.Floor {
	st := r.s.Conn().State()
	f := ui.Floor{Counts: make(map[string]int, len(st.Agents)), Holds: map[string]string{}, Paused: st.FloorPaused}
	for _, a := range st.Agents {
		f.Counts[a.Name] = a.Queued
		if a.Hold != "" {
			f.Holds[a.Name] = a.Hold
		}
	}
	for _, n := range st.Needs {
		f.Needs = append(f.Needs, ui.Need{Agent: n.Agent, Host: n.Host, Reason: n.Reason, Since: n.Since, Excerpt: n.Excerpt, Options: n.Options, Ref: n.Ref})
	}
	return f
}

// Queue implements ui.Office.
func (r *Office) Queue(ctx context.Context, agent string) (ui.QueueListing, error) {
	c := r.s.Conn()
	msgs, err := c.Queue(ctx, agent)
	if err != nil {
		return ui.QueueListing{}, fmt.Errorf("queue of %s: %w", agent, err)
	}
	l := ui.QueueListing{Agent: agent}
	for _, a := range c.State().Agents {
		if a.Name == agent {
			l.Paused = a.Paused
		}
	}
	for _, m := range msgs {
		if m.Agent != agent {
			continue
		}
		l.Messages = append(l.Messages, ui.QueuedMessage{ID: m.ID, Created: m.Created, Attempts: m.Attempts,
			Manual: m.Manual, LastError: m.LastError, Text: m.Text})
	}
	return l, nil
}

// ErrInputFull says the server is not taking the person's keys as fast as
// they come (the connection is stalled).
var ErrInputFull = errors.New("the office's server is not reading keys; this one was dropped")

// Input implements ui.Office: the keys are written in order, on the
// caller's goroutine when nothing is queued and the stream takes them at
// once (client.Conn.TryInput), else off it; it never blocks. Keys come from
// one goroutine (the UI's loop), so none can be queued between the check
// and the write.
func (r *Office) Input(agent string, p []byte) error {
	c := r.s.Conn()
	select {
	case <-c.Done():
		// Keys typed at a screen that stopped moving are not kept for
		// later: replayed after a reconnect they would land on whatever
		// the agent shows by then, unseen.
		return fmt.Errorf("%s is unreachable: keys not sent", r.o.Where)
	default:
	}
	if r.queued.Load() == 0 && c.TryInput(agent, p) {
		return nil
	}
	r.queued.Add(1)
	select {
	case r.input <- wire.Input{Agent: agent, Data: append([]byte(nil), p...)}:
		return nil
	default:
		r.queued.Add(-1)
		return ErrInputFull
	}
}

// Resize implements ui.Office: agent's pane joins the view, which is sent
// whole (the UI uses SetView, which replaces it).
func (r *Office) Resize(agent string, cols, rows int) error {
	r.mu.Lock()
	r.panes[agent] = wire.Size{Cols: cols, Rows: rows}
	panes := make(map[string]wire.Size, len(r.panes))
	for a, sz := range r.panes {
		panes[a] = sz
	}
	r.mu.Unlock()
	return r.s.SetView("", panes, false)
}

// SetView implements ui.Remote: one view with every shown pane.
func (r *Office) SetView(focus string, panes map[string]ui.PaneSize, resized bool) error {
	wp := make(map[string]wire.Size, len(panes))
	for a, sz := range panes {
		wp[a] = wire.Size{Cols: sz.Cols, Rows: sz.Rows}
	}
	r.mu.Lock()
	r.panes = wp
	r.mu.Unlock()
	return r.s.SetView(focus, wp, resized)
}

// Subscribe implements ui.Subscriber: the server sends the screens of
// these agents only (the session's connection must have been opened with
// client.Options.Subscribe for none to come before the first one).
func (r *Office) Subscribe(agents []string) error { return r.s.Subscribe(agents) }

// Gone implements ui.Remote.
func (r *Office) Gone() (reason string, ended bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gone, r.ended
}

// Ended returns why the session ended for good (nil while it runs): a
// *client.ByeError when the office stopped.
func (r *Office) Ended() error {
	select {
	case <-r.s.Done():
		return r.s.Err()
	default:
		return nil
	}
}

// StartServer implements ui.Remote.
func (r *Office) StartServer(ctx context.Context) error {
	if r.o.Start == nil {
		return fmt.Errorf("%s cannot be started from here: start it where it runs (office start)", r.o.Where)
	}
	if err := r.o.Start(ctx); err != nil {
		return err
	}
	r.s.Redial()
	return nil
}

// maxCachedLines bounds the history lines kept per agent (their stored
// form, at most pool.MaxLineBytes each); past it the cache starts over.
const maxCachedLines = 8192

// History implements ui.Office: the numbers of the lines the server holds
// (first … total-1), whether the agent's screen is live (the server's
// "live": false once its last screen went into the history), and lines
// [from, to) as held, decoded into dst (reused) and numbered (their times
// are not carried). A line never changes once
// numbered, so the lines fetched are kept and only the others are asked
// for: a view scrolling back over lines it showed costs a bounds-only call.
func (r *Office) History(ctx context.Context, agent string, from, to int64, dst []pool.HistoryLine) (ui.HistoryBounds, []pool.HistoryLine, error) {
	r.mu.Lock()
	cache := r.hist[agent]
	ask := from
	for ask < to && cache[ask] != nil {
		ask++
	}
	r.mu.Unlock()
	askTo := to
	if ask >= to {
		ask, askTo = 0, 0 // every line is here: the bounds alone
	}
	rep, err := client.Do(ctx, r.s.Conn(), wire.OpHistory, agent, wire.HistoryArgs{From: ask, To: askTo})
	if err != nil {
		return ui.HistoryBounds{}, dst[:0], fmt.Errorf("history of %s: %w", agent, err)
	}
	r.mu.Lock()
	if r.hist == nil {
		r.hist = map[string]map[int64][]byte{}
	}
	cache = r.hist[agent]
	if cache == nil || len(cache)+len(rep.Rows) > maxCachedLines {
		cache = make(map[int64][]byte, len(rep.Rows))
		r.hist[agent] = cache
	}
	seq := max(ask, rep.First)
	for _, b := range rep.Rows {
		cache[seq] = b
		seq++
	}
	rows := dst[:0]
	for seq := max(from, rep.First); seq < min(to, rep.Total); seq++ {
		b := cache[seq]
		if b == nil {
			break
		}
		var l pool.HistoryLine
		if len(rows) < cap(rows) {
			l = rows[:len(rows)+1][len(rows)]
		}
		cells, err := pool.DecodeLine(b, l.Cells[:0])
		if err != nil {
			r.mu.Unlock()
			return ui.HistoryBounds{}, dst[:0], fmt.Errorf("history of %s: line %d: %w", agent, seq, err)
		}
		rows = append(rows, pool.HistoryLine{Seq: seq, Cells: cells})
	}
	r.mu.Unlock()
	return ui.HistoryBounds{First: rep.First, Total: rep.Total, Live: rep.Live}, rows, nil
}

// Enqueue implements ui.Office.
func (r *Office) Enqueue(ctx context.Context, agent, text string) (int64, error) {
	res, err := r.s.Conn().Enqueue(ctx, agent, text)
	return res.ID, err
}

// SetFloorPaused implements ui.Office.
func (r *Office) SetFloorPaused(ctx context.Context, paused bool) error {
	return r.s.Conn().SetFloorPaused(ctx, paused)
}

// ReleaseLimit implements ui.Office: the server's limit_release.
func (r *Office) ReleaseLimit(ctx context.Context, agent string) (wire.LimitReleaseResult, error) {
	return client.Do(ctx, r.s.Conn(), wire.OpLimitRelease, agent, wire.None{})
}

// Release implements ui.Office.
func (r *Office) Release(ctx context.Context, id int64) error { return r.s.Conn().Release(ctx, id) }

// Remove implements ui.Office.
func (r *Office) Remove(ctx context.Context, id int64) error { return r.s.Conn().Remove(ctx, id) }

// Clear implements ui.Office.
func (r *Office) Clear(ctx context.Context, agent string) error { return r.s.Conn().Clear(ctx, agent) }

// ClosePicker implements ui.Office.
func (r *Office) ClosePicker(ctx context.Context, agent string) error {
	return r.s.Conn().ClosePicker(ctx, agent)
}

// RecoverPrompt implements ui.Office.
func (r *Office) RecoverPrompt(ctx context.Context, agent string) (string, error) {
	return r.s.Conn().RecoverPrompt(ctx, agent)
}

// teamSpec is "team.add"'s spec, as `office team add` takes it.
type teamSpec struct {
	Name    string   `json:"name"`
	Profile string   `json:"profile,omitempty"`
	Command []string `json:"command,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
}

// AddAgent implements ui.Office.
func (r *Office) AddAgent(ctx context.Context, s ui.AgentSpec) error {
	return r.s.Conn().AddAgent(ctx, teamSpec{Name: s.Name, Profile: s.Profile, Command: s.Command, Cwd: s.Cwd})
}

// RestartAgent implements ui.Office.
func (r *Office) RestartAgent(ctx context.Context, agent string) error {
	return r.s.Conn().Restart(ctx, agent)
}

// Quit implements ui.Office: the office stops (as `office stop`); it returns
// once the server said goodbye.
func (r *Office) Quit(ctx context.Context) error {
	if err := r.s.Conn().Stop(ctx); err != nil {
		return err
	}
	select {
	case <-r.s.Done():
	case <-ctx.Done():
	}
	return nil
}

var (
	_ ui.Office     = (*Office)(nil)
	_ ui.Remote     = (*Office)(nil)
	_ ui.Subscriber = (*Office)(nil)
)
