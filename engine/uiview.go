package engine

// uiview.go is the engine as the UI sees it (ui.Office): plain values read
// from the roster, the terminals and the store, intents carried out through
// the same calls as the commands, and changes pushed to the UI: a screen as
// soon as its terminal read output, a status or exit as it happens, the
// store's depths, holds and events (a store read every uiStoreInterval, done
// here on the engine's side so no UI polls).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"office/automation"
	"office/drain"
	"office/inbox"
	"office/pool"
	"office/queue"
	"office/ui"
)

// uiStoreInterval is how often the store's depths, the floor flag, the
// drain's holds and the event log are compared with what the UI was told.
const uiStoreInterval = 500 * time.Millisecond

// UIView implements ui.Office for an engine. Create it before the engine
// (its TerminalEvent and DrainNotice are the engine's callbacks), Attach the
// engine, then Run it beside the UI.
type UIView struct {
	e atomic.Pointer[Engine]

	refreshMu sync.Mutex // one store read at a time (the log position)
	onQuit    atomic.Pointer[func()]

	mu       sync.Mutex
	watchers map[int]func(ui.Change)
	nextW    int
	floor    ui.Floor
	roster   string // names and start times, to notice roster changes
	lastSeq  int64
	waiting  map[string]bool
}

// NewUIView returns a view with no engine yet.
func NewUIView() *UIView {
	return &UIView{watchers: map[int]func(ui.Change){}, lastSeq: -1, waiting: map[string]bool{},
		floor: ui.Floor{Counts: map[string]int{}, Holds: map[string]string{}}}
}

// Attach sets the engine shown.
func (v *UIView) Attach(e *Engine) { v.e.Store(e) }

func (v *UIView) emit(c ui.Change) {
	v.mu.Lock()
	ws := make([]func(ui.Change), 0, len(v.watchers))
	for _, w := range v.watchers {
		ws = append(ws, w)
	}
	v.mu.Unlock()
	for _, w := range ws {
		w(c)
	}
}

// Watch implements ui.Office.
func (v *UIView) Watch(fn func(ui.Change)) (stop func()) {
	v.mu.Lock()
	id := v.nextW
	v.nextW++
	v.watchers[id] = fn
	v.mu.Unlock()
	return func() {
		v.mu.Lock()
		delete(v.watchers, id)
		v.mu.Unlock()
	}
}

// TerminalEvent is the engine's OnTerminal callback. It never blocks.
func (v *UIView) TerminalEvent(ev pool.Event) {
	e := v.e.Load()
	switch ev.Kind {
	case pool.EventOutput:
		v.emit(ui.Change{Kind: ui.ChangeScreen, Agent: ev.Agent})
		return
	case pool.EventExit:
		if e != nil {
			if a, ok := e.Agent(ev.Agent); ok && a.Term != nil {
				_, code := a.Term.Exited()
				v.emit(ui.Change{Kind: ui.ChangeNotice, Agent: ev.Agent, Notice: ui.Notice{At: time.Now(), Agent: ev.Agent, Kind: "exit", Text: fmt.Sprintf("exited with code %d", code)}})
			}
		}
	case pool.EventStatus:
		if e != nil {
			if a, ok := e.Agent(ev.Agent); ok && a.Term != nil {
				w := a.Term.Status() == automation.StatusWaiting
				v.mu.Lock()
				was := v.waiting[ev.Agent]
				v.waiting[ev.Agent] = w
				v.mu.Unlock()
				if w && !was {
					v.emit(ui.Change{Kind: ui.ChangeNotice, Agent: ev.Agent, Notice: ui.Notice{At: time.Now(), Agent: ev.Agent, Kind: "waiting", Text: "is waiting for you"}})
				}
			}
		}
	}
	v.emit(ui.Change{Kind: ui.ChangeAgent, Agent: ev.Agent})
}

// DrainNotice is the engine's OnNotice callback. It never blocks.
func (v *UIView) DrainNotice(n drain.Notice) {
	text := n.Text
	switch n.Kind {
	case drain.NoticeDropped:
		text = fmt.Sprintf("message %d dropped after its last failed attempt: %s", n.MsgID, firstLine(n.Text))
	case drain.NoticeTypedNotSubmitted:
		text = fmt.Sprintf("message %d typed but not submitted; it sits on the prompt as your draft", n.MsgID)
	case drain.NoticePreconditionDropped:
		text = fmt.Sprintf("message %d dropped: its precondition no longer held", n.MsgID)
	}
	v.emit(ui.Change{Kind: ui.ChangeNotice, Agent: n.Agent, Notice: ui.Notice{At: time.Now(), Agent: n.Agent, Kind: string(n.Kind), Text: text}})
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

// Run compares the store and the roster with what the UI was told every
// uiStoreInterval and pushes what changed, until ctx ends.
func (v *UIView) Run(ctx context.Context) {
	t := time.NewTicker(uiStoreInterval)
	defer t.Stop()
	for {
		v.refresh(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// refresh reads the store once and pushes the differences.
func (v *UIView) refresh(ctx context.Context) {
	e := v.e.Load()
	if e == nil {
		return
	}
	v.refreshMu.Lock()
	defer v.refreshMu.Unlock()
	var b strings.Builder
	for _, a := range e.Agents() {
		fmt.Fprintf(&b, "%s@%p;", a.Config.Name, a.Term)
	}
	f := ui.Floor{Holds: e.Holds()}
	var err error
	if f.Counts, err = e.store.Counts(ctx); err == nil {
		f.Paused, err = e.store.FloorPaused(ctx)
	}
	if err != nil {
		f.Err = err.Error()
	}
	var notices []ui.Notice
	v.mu.Lock()
	last := v.lastSeq
	v.mu.Unlock()
	if err == nil {
		if last < 0 {
			// Start at the log's end: old events are not news.
			err = e.store.DB().QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&last)
		} else {
			var evs []queue.Event
			if evs, err = e.store.Events(ctx, last, 200); err == nil {
				for _, ev := range evs {
					last = ev.Seq
					if n, ok := eventNotice(ev); ok {
						notices = append(notices, n)
					}
				}
			}
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			f.Err = err.Error()
		}
	}
	v.mu.Lock()
	v.lastSeq = last
	rosterChanged := b.String() != v.roster
	v.roster = b.String()
	floorChanged := !maps.Equal(f.Counts, v.floor.Counts) || !maps.Equal(f.Holds, v.floor.Holds) || f.Paused != v.floor.Paused || f.Err != v.floor.Err
	if floorChanged {
		v.floor = f
	}
	v.mu.Unlock()
	if rosterChanged {
		v.emit(ui.Change{Kind: ui.ChangeRoster})
	}
	if floorChanged {
		v.emit(ui.Change{Kind: ui.ChangeFloor})
	}
	for _, n := range notices {
		v.emit(ui.Change{Kind: ui.ChangeNotice, Agent: n.Agent, Notice: n})
	}
}

// eventNotice turns an event-log row written by the inbox layer into a
// notice when it is news for the person: every notification to a parent
// (completed, failed, cancelled, stalled), anything sent to the person, and
// dead letters. It reads the "KIND ID from SENDER: PREVIEW" detail of
// inbox.EventInboxSent.
func eventNotice(e queue.Event) (ui.Notice, bool) {
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

// engine returns the attached engine or an error.
func (v *UIView) engine() (*Engine, error) {
	e := v.e.Load()
	if e == nil {
		return nil, errors.New("engine: not running yet")
	}
	return e, nil
}

// Agents implements ui.Office.
func (v *UIView) Agents() []ui.AgentInfo {
	e := v.e.Load()
	if e == nil {
		return nil
	}
	agents := e.Agents()
	out := make([]ui.AgentInfo, len(agents))
	for i, a := range agents {
		info := ui.AgentInfo{Name: a.Config.Name, Profile: a.Profile.Name, ReadyMarkers: a.Profile.ReadyMarkers,
			BootGrace: e.settingsFor(a.Config).BootGrace}
		if a.SpawnErr != nil {
			info.SpawnErr = a.SpawnErr.Error()
			info.Status = automation.StatusExited.String()
		}
		if t := a.Term; t != nil {
			info.Status = t.Status().String()
			info.Exited, info.ExitCode = t.Exited()
			st := t.AutomationState()
			info.Draft, info.Picker = st.Dirty, st.PickerLatched
			info.Started = t.Spawned()
			info.Generation = t.Generation()
		}
		out[i] = info
	}
	return out
}

// term returns agent's terminal.
func (v *UIView) term(agent string) (*pool.Terminal, error) {
	e, err := v.engine()
	if err != nil {
		return nil, err
	}
	a, ok := e.Agent(agent)
	if !ok {
		return nil, fmt.Errorf("engine: %w %q", queue.ErrUnknownAgent, agent)
	}
	if a.Term == nil {
		return nil, fmt.Errorf("engine: %s is not running: %v", agent, a.SpawnErr)
	}
	return a.Term, nil
}

// Screen implements ui.Office.
func (v *UIView) Screen(agent string, dst *ui.Screen) bool {
	t, err := v.term(agent)
	if err != nil || t.Generation() == dst.Generation {
		return false
	}
	t.Snapshot(dst)
	return true
}

// Floor implements ui.Office.
func (v *UIView) Floor() ui.Floor {
	v.mu.Lock()
	defer v.mu.Unlock()
	return ui.Floor{Counts: maps.Clone(v.floor.Counts), Holds: maps.Clone(v.floor.Holds), Paused: v.floor.Paused, Err: v.floor.Err}
}

// Queue implements ui.Office.
func (v *UIView) Queue(ctx context.Context, agent string) (ui.QueueListing, error) {
	e, err := v.engine()
	if err != nil {
		return ui.QueueListing{}, err
	}
	msgs, err := e.store.List(ctx, agent)
	if err != nil {
		return ui.QueueListing{}, fmt.Errorf("engine: queue of %s: %w", agent, err)
	}
	l := ui.QueueListing{Agent: agent}
	for _, m := range msgs {
		l.Messages = append(l.Messages, ui.QueuedMessage{ID: m.ID, Created: m.Created, Attempts: m.Attempts, Manual: m.Manual, LastError: m.LastError, Text: m.Text})
	}
	if own, _, err := e.store.Paused(ctx, agent); err == nil {
		l.Paused = own
	}
	return l, nil
}

// storeChanged re-reads the store now, after an intent changed it.
func (v *UIView) storeChanged(e *Engine) {
	e.Wake()
	go v.refresh(context.Background())
}

// Input implements ui.Office.
func (v *UIView) Input(agent string, p []byte) error {
	t, err := v.term(agent)
	if err != nil {
		return err
	}
	return t.Input(p)
}

// Resize implements ui.Office.
func (v *UIView) Resize(agent string, cols, rows int) error {
	t, err := v.term(agent)
	if err != nil {
		return err
	}
	return t.Resize(cols, rows)
}

// Enqueue implements ui.Office.
func (v *UIView) Enqueue(ctx context.Context, agent, text string) (int64, error) {
	e, err := v.engine()
	if err != nil {
		return 0, err
	}
	id, err := e.store.Enqueue(ctx, agent, text, queue.EnqueueOptions{Source: "composer"})
	if err != nil {
		return 0, err
	}
	v.storeChanged(e)
	return id, nil
}

func (v *UIView) storeCall(fn func(e *Engine) error) error {
	e, err := v.engine()
	if err != nil {
		return err
	}
	if err := fn(e); err != nil {
		return err
	}
	v.storeChanged(e)
	return nil
}

// SetFloorPaused implements ui.Office.
func (v *UIView) SetFloorPaused(ctx context.Context, paused bool) error {
	return v.storeCall(func(e *Engine) error { return e.store.SetFloorPaused(ctx, paused) })
}

// Release implements ui.Office.
func (v *UIView) Release(ctx context.Context, id int64) error {
	return v.storeCall(func(e *Engine) error { return e.store.Release(ctx, id) })
}

// Remove implements ui.Office.
func (v *UIView) Remove(ctx context.Context, id int64) error {
	return v.storeCall(func(e *Engine) error { return e.store.Remove(ctx, id, "deleted in the UI") })
}

// Clear implements ui.Office.
func (v *UIView) Clear(ctx context.Context, agent string) error {
	return v.storeCall(func(e *Engine) error { _, err := e.store.Clear(ctx, agent); return err })
}

// ClosePicker implements ui.Office.
func (v *UIView) ClosePicker(ctx context.Context, agent string) error {
	t, err := v.term(agent)
	if err != nil {
		return err
	}
	return t.ClosePicker(ctx)
}

// RecoverPrompt implements ui.Office.
func (v *UIView) RecoverPrompt(ctx context.Context, agent string) (string, error) {
	t, err := v.term(agent)
	if err != nil {
		return "", err
	}
	return t.RecoverPrompt(ctx)
}

// AddAgent implements ui.Office: exactly `office team add`.
func (v *UIView) AddAgent(ctx context.Context, s ui.AgentSpec) error {
	e, err := v.engine()
	if err != nil {
		return err
	}
	if _, err := e.AddTeamAgent(ctx, TeamSpec{Name: s.Name, Profile: s.Profile, Cwd: s.Cwd, Command: s.Command}); err != nil {
		return err
	}
	go v.refresh(context.Background())
	return nil
}

// RestartAgent implements ui.Office.
func (v *UIView) RestartAgent(ctx context.Context, agent string) error {
	e, err := v.engine()
	if err != nil {
		return err
	}
	if err := e.RestartAgent(agent); err != nil {
		return err
	}
	go v.refresh(context.Background())
	return nil
}

// OnQuit sets what Quit does: stop the engine's run (the caller closes the
// engine, which stops every agent).
func (v *UIView) OnQuit(f func()) { v.onQuit.Store(&f) }

// Quit implements ui.Office.
func (v *UIView) Quit(context.Context) error {
	if f := v.onQuit.Load(); f != nil {
		(*f)()
	}
	return nil
}

var _ ui.Office = (*UIView)(nil)
