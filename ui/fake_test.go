package ui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"office/configs"
	"office/pool"
	"office/wire"
)

// testClock is the fixed time of golden frames.
var testClock = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// fakeAgent is one agent of a fakeOffice: a real pool.Screen (the same VT
// screen and filter the engine's terminals use) with its state set by the
// test and its input recorded.
type fakeAgent struct {
	info    AgentInfo
	scr     *pool.Screen
	input   []byte
	resizes [][2]int
	escs    int
	draft   string
	echo    bool // feed input back to the screen, as a shell's echo does
	retired bool // its output ended: the screen's rows are in the history (exit)
}

// fakeOffice is an office of fake agents with an in-memory queue. It
// implements Office from plain values, as the remote office does.
type fakeOffice struct {
	mu       sync.Mutex
	agents   []*fakeAgent
	floor    Floor
	msgs     map[string][]QueuedMessage
	paused   map[string]bool
	nextID   int64
	watchers map[int]func(Change)
	nextW    int
	added    []AgentSpec
	restarts []string
	quits    int
	addErr   error
	// limits are the agents whose account each ReleaseLimit named ("":
	// every account); held are the agents a release sets going, by the
	// agent named (and "" for all); limitErr fails it.
	limits   []string
	held     map[string][]string
	limitErr error
}

func newFakeOffice(names ...string) *fakeOffice {
	o := &fakeOffice{msgs: map[string][]QueuedMessage{}, paused: map[string]bool{}, watchers: map[int]func(Change){},
		floor: Floor{Counts: map[string]int{}, Holds: map[string]string{}}}
	for _, n := range names {
		o.addFake(n, agentScreen(n))
	}
	return o
}

// agentScreen is what a fake agent shows: a banner, a coloured line and a
// prompt row.
func agentScreen(name string) string {
	return "\x1b[1m" + name + "\x1b[0m ready\r\n\x1b[32mgreen\x1b[0m \x1b[7mrev\x1b[0m \x1b[38;2;255;128;0mtrue\x1b[0m\r\n❯ "
}

func (o *fakeOffice) addFake(name, output string) *fakeAgent {
	a := &fakeAgent{info: AgentInfo{Name: name, Profile: "claude", Status: "idle", Started: testClock.Add(-time.Minute)},
		scr: pool.NewScreen(120, 40, nil)}
	a.scr.CaptureHistory(pool.NewHistory(configs.Defaults().History), func() time.Time { return testClock })
	a.scr.Feed([]byte(output))
	o.mu.Lock()
	o.agents = append(o.agents, a)
	o.mu.Unlock()
	return a
}

func (o *fakeOffice) agent(name string) *fakeAgent {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, a := range o.agents {
		if a.info.Name == name {
			return a
		}
	}
	return nil
}

// set changes an agent's state and tells the watchers.
func (o *fakeOffice) set(name string, f func(a *fakeAgent)) {
	o.mu.Lock()
	for _, a := range o.agents {
		if a.info.Name == name {
			f(a)
		}
	}
	o.mu.Unlock()
	o.emit(Change{Kind: ChangeAgent, Agent: name})
}

// feed writes agent output to name's screen and tells the watchers.
func (o *fakeOffice) feed(name, s string) {
	o.agent(name).scr.Feed([]byte(s))
	o.emit(Change{Kind: ChangeScreen, Agent: name})
}

func (o *fakeOffice) emit(c Change) {
	o.mu.Lock()
	var ws []func(Change)
	for _, w := range o.watchers {
		ws = append(ws, w)
	}
	o.mu.Unlock()
	for _, w := range ws {
		w(c)
	}
}

func (o *fakeOffice) Agents() []AgentInfo {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]AgentInfo, len(o.agents))
	for i, a := range o.agents {
		out[i] = a.info
		out[i].Draft = a.draft != "" || a.info.Draft
		out[i].Generation = a.scr.Generation()
	}
	return out
}

func (o *fakeOffice) Screen(agent string, dst *Screen, rows *[]uint64) bool {
	a := o.agent(agent)
	if a == nil || a.info.SpawnErr != "" || a.scr.Generation() == dst.Generation {
		return false
	}
	if rows == nil {
		a.scr.Snapshot(dst)
	} else {
		a.scr.SnapshotRows(dst, rows)
	}
	return true
}

func (o *fakeOffice) History(_ context.Context, agent string, from, to int64, dst []HistoryLine) (HistoryBounds, []HistoryLine, error) {
	a := o.agent(agent)
	if a == nil || a.info.SpawnErr != "" || a.scr.History() == nil {
		return HistoryBounds{}, dst[:0], fmt.Errorf("history of %s: no such agent", agent)
	}
	h := a.scr.History()
	var b HistoryBounds
	b.First, b.Total = h.Bounds()
	o.mu.Lock()
	b.Live = !a.retired
	o.mu.Unlock()
	return b, h.Rows(from, to, dst), nil
}

// exit ends name's output as a terminal's does when its process exits:
// the screen's rows, down to the last one not blank, are appended to the
// history and the screen goes on showing them (pool retires it so).
func (o *fakeOffice) exit(name string) {
	a := o.agent(name)
	var snap Screen
	a.scr.Snapshot(&snap)
	last := -1
	for y := 0; y < snap.Rows; y++ {
		for _, c := range snap.Cells[y*snap.Cols : (y+1)*snap.Cols] {
			if c.Rune != ' ' && c.Rune != 0 {
				last = y
				break
			}
		}
	}
	h := a.scr.History()
	_, total := h.Bounds()
	for y := 0; y <= last; y++ {
		rec := pool.AppendLine(nil, snap.Cells[y*snap.Cols:(y+1)*snap.Cols])
		if err := h.Restore(pool.HistoryRecord{Seq: total + int64(y), At: testClock.UnixMilli(), Line: rec}); err != nil {
			panic(err)
		}
	}
	o.set(name, func(a *fakeAgent) { a.retired, a.info.Exited, a.info.Status = true, true, "exited" })
}

func (o *fakeOffice) Floor() Floor {
	o.mu.Lock()
	defer o.mu.Unlock()
	f := Floor{Counts: map[string]int{}, Holds: map[string]string{}, Paused: o.floor.Paused, Err: o.floor.Err, Needs: o.floor.Needs}
	for k, v := range o.msgs {
		if len(v) > 0 {
			f.Counts[k] = len(v)
		}
	}
	for k, v := range o.floor.Holds {
		f.Holds[k] = v
	}
	return f
}

func (o *fakeOffice) setHold(agent, reason string) {
	o.mu.Lock()
	o.floor.Holds[agent] = reason
	o.mu.Unlock()
	o.emit(Change{Kind: ChangeFloor})
}

func (o *fakeOffice) Queue(_ context.Context, agent string) (QueueListing, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return QueueListing{Agent: agent, Messages: append([]QueuedMessage(nil), o.msgs[agent]...), Paused: o.paused[agent]}, nil
}

func (o *fakeOffice) Watch(fn func(Change)) func() {
	o.mu.Lock()
	id := o.nextW
	o.nextW++
	o.watchers[id] = fn
	o.mu.Unlock()
	return func() {
		o.mu.Lock()
		delete(o.watchers, id)
		o.mu.Unlock()
	}
}

func (o *fakeOffice) Input(agent string, p []byte) error {
	a := o.agent(agent)
	if a == nil {
		return fmt.Errorf("no agent %q", agent)
	}
	o.mu.Lock()
	a.input = append(a.input, p...)
	echo := a.echo
	o.mu.Unlock()
	if echo {
		o.feed(agent, string(p))
	}
	return nil
}

func (o *fakeOffice) got(agent string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, a := range o.agents {
		if a.info.Name == agent {
			return string(a.input)
		}
	}
	return ""
}

func (o *fakeOffice) Resize(agent string, cols, rows int) error {
	a := o.agent(agent)
	if a == nil {
		return fmt.Errorf("no agent %q", agent)
	}
	a.scr.Resize(cols, rows)
	o.mu.Lock()
	a.resizes = append(a.resizes, [2]int{cols, rows})
	o.mu.Unlock()
	return nil
}

func (o *fakeOffice) Enqueue(_ context.Context, agent, text string) (int64, error) {
	if strings.TrimSpace(text) == "" {
		return 0, errors.New("blank text")
	}
	if o.agent(agent) == nil {
		return 0, fmt.Errorf("unknown agent %q", agent)
	}
	o.mu.Lock()
	o.nextID++
	id := o.nextID
	o.msgs[agent] = append(o.msgs[agent], QueuedMessage{ID: id, Created: testClock.Add(-90 * time.Second), Text: text})
	o.mu.Unlock()
	o.emit(Change{Kind: ChangeFloor})
	return id, nil
}

func (o *fakeOffice) SetFloorPaused(_ context.Context, paused bool) error {
	o.mu.Lock()
	o.floor.Paused = paused
	o.mu.Unlock()
	o.emit(Change{Kind: ChangeFloor})
	return nil
}

func (o *fakeOffice) ReleaseLimit(_ context.Context, agent string) (wire.LimitReleaseResult, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.limits = append(o.limits, agent)
	if o.limitErr != nil {
		return wire.LimitReleaseResult{}, o.limitErr
	}
	return wire.LimitReleaseResult{Released: o.held[agent]}, nil
}

func (o *fakeOffice) edit(id int64, f func(agent string, i int)) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for agent, ms := range o.msgs {
		for i, m := range ms {
			if m.ID == id {
				f(agent, i)
				return nil
			}
		}
	}
	return fmt.Errorf("no message %d", id)
}

func (o *fakeOffice) Release(_ context.Context, id int64) error {
	err := o.edit(id, func(agent string, i int) { o.msgs[agent][i].Manual = true })
	o.emit(Change{Kind: ChangeFloor})
	return err
}

func (o *fakeOffice) Remove(_ context.Context, id int64) error {
	err := o.edit(id, func(agent string, i int) { o.msgs[agent] = append(o.msgs[agent][:i:i], o.msgs[agent][i+1:]...) })
	o.emit(Change{Kind: ChangeFloor})
	return err
}

func (o *fakeOffice) Clear(_ context.Context, agent string) error {
	o.mu.Lock()
	delete(o.msgs, agent)
	o.mu.Unlock()
	o.emit(Change{Kind: ChangeFloor})
	return nil
}

func (o *fakeOffice) ClosePicker(_ context.Context, agent string) error {
	o.set(agent, func(a *fakeAgent) { a.escs++; a.info.Picker = false })
	return nil
}

func (o *fakeOffice) RecoverPrompt(_ context.Context, agent string) (string, error) {
	var d string
	o.set(agent, func(a *fakeAgent) { d, a.draft = a.draft, "" })
	return d, nil
}

func (o *fakeOffice) AddAgent(_ context.Context, s AgentSpec) error {
	if o.addErr != nil {
		return o.addErr
	}
	o.mu.Lock()
	o.added = append(o.added, s)
	o.mu.Unlock()
	o.addFake(s.Name, "$ ")
	o.emit(Change{Kind: ChangeRoster})
	return nil
}

func (o *fakeOffice) Quit(context.Context) error {
	o.mu.Lock()
	o.quits++
	o.mu.Unlock()
	return nil
}

func (o *fakeOffice) RestartAgent(_ context.Context, agent string) error {
	o.mu.Lock()
	o.restarts = append(o.restarts, agent)
	o.mu.Unlock()
	o.set(agent, func(a *fakeAgent) { a.info.Started = a.info.Started.Add(time.Second) })
	o.emit(Change{Kind: ChangeRoster})
	return nil
}

// harness drives a model over a fakeOffice by hand: every change the
// office reports is handed to Update at once (no program, no timers).
type harness struct {
	t  testing.TB
	m  *model
	o  *fakeOffice
	dc *uv.EventDecoder
}

func newHarness(t testing.TB, names ...string) *harness {
	t.Helper()
	return newHarnessOpts(t, Options{}, names...)
}

func newHarnessOpts(t testing.TB, opts Options, names ...string) *harness {
	t.Helper()
	o := newFakeOffice(names...)
	m := newModel(o, opts)
	m.now = func() time.Time { return testClock }
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	return &harness{t: t, m: m, o: o, dc: &uv.EventDecoder{}}
}

// size lays the model out at w × h and runs the resize commands.
func (h *harness) size(w, ht int) {
	h.run(h.m.Update(tea.WindowSizeMsg{Width: w, Height: ht}))
	h.changed()
}

// changed delivers "everything changed".
func (h *harness) changed() {
	h.run(h.m.Update(changedMsg{focus: true, bg: true, state: true}))
}

// run runs a command and feeds its messages back (the model's timers are
// taken out).
func (h *harness) run(_ tea.Model, cmd tea.Cmd) {
	h.cmd(cmd, 0)
}

func (h *harness) cmd(cmd tea.Cmd, depth int) {
	if cmd == nil || depth > 8 {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.cmd(c, depth+1)
		}
	default:
		_, next := h.m.Update(msg)
		h.cmd(next, depth+1)
	}
}

// keys feeds raw terminal input, decoded by Bubble Tea's own decoder, and
// then "everything changed".
func (h *harness) keys(s string) {
	b := []byte(s)
	for len(b) > 0 {
		n, ev := h.dc.Decode(b)
		if n == 0 {
			break
		}
		b = b[n:]
		var msg tea.Msg
		switch ev := ev.(type) {
		case uv.KeyPressEvent:
			msg = tea.KeyPressMsg(ev)
		case uv.MouseClickEvent:
			msg = tea.MouseClickMsg(ev)
		case uv.MouseReleaseEvent:
			msg = tea.MouseReleaseMsg(ev)
		case uv.MouseMotionEvent:
			msg = tea.MouseMotionMsg(ev)
		case uv.MouseWheelEvent:
			msg = tea.MouseWheelMsg(ev)
		default:
			msg = ev
		}
		h.run(h.m.Update(msg))
	}
	h.changed()
}

// text is the frame's text, trailing spaces trimmed.
func (h *harness) text() string {
	h.m.draw()
	return h.m.frame.text()
}

// queued returns agent's queued texts.
func (h *harness) queued(agent string) []string {
	l, _ := h.o.Queue(context.Background(), agent)
	var out []string
	for _, m := range l.Messages {
		out = append(out, m.Text)
	}
	sort.Strings(out)
	return out
}
