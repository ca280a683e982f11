package drain_test

// Fakes for the drain's dependencies, for use inside a testing/synctest
// bubble: time is virtual, every fake records what it was asked with the
// virtual time since the test's start.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
	"office/queue"
	"office/records"
)

const ms = time.Millisecond

// fakeClock is the real clock's functions; inside a synctest bubble they are
// the bubble's virtual, exact time.
type fakeClock struct{}

func (fakeClock) Now() time.Time                         { return time.Now() }
func (fakeClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// call is one recorded call to the fake store.
type call struct {
	at    time.Duration
	op    string // Attempt, Unattempt, Hold, Delivered, AttemptFailed, Drop, TypedNotSubmitted, SetHold
	id    int64
	agent string
	arg   string // note, error text, reason or hold reason
}

// fakeStore is an in-memory queue.
type fakeStore struct {
	start time.Time

	mu          sync.Mutex
	nextID      int64
	queues      map[string][]queue.Message
	agentPaused map[string]bool
	floorPaused bool
	calls       []call
	// renderAt, if set, replaces a message's text when it is attempted (as
	// the inbox layer renders a delivery at attempt time).
	renderAt func(queue.Message) string
	// onAttempt, if set, runs (unlocked) after an attempt is stamped;
	// onWriting and onEntering, after Writing and Entering are recorded
	// (what changes on the screen while the store is written).
	onAttempt  func()
	onWriting  func()
	onEntering func()
	// beforeSetAside, if set, runs (unlocked) when SetAsideHeld is called,
	// before it decides: what the person does in that instant.
	beforeSetAside func(id int64)
	// deliveredErrs is how many Delivered calls fail before one succeeds;
	// setAsideErrs and holdErrs, the same for SetAside and Hold.
	deliveredErrs int
	setAsideErrs  int
	holdErrs      int
	// inFlight is the store's in_flight flag: set by Attempt, cleared by
	// whatever settles the attempt (Unattempt, AttemptFailed, Hold,
	// SetAside).
	inFlight map[int64]bool
}

func newFakeStore(start time.Time) *fakeStore {
	return &fakeStore{start: start, queues: map[string][]queue.Message{}, agentPaused: map[string]bool{}, inFlight: map[int64]bool{}}
}

func (s *fakeStore) record(c call) {
	c.at = time.Since(s.start)
	s.calls = append(s.calls, c)
}

// enqueue appends a message for agent and returns its id.
func (s *fakeStore) enqueue(agent, text string, edit ...func(*queue.Message)) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	m := queue.Message{ID: s.nextID, Agent: agent, Text: text, Created: time.Now()}
	for _, e := range edit {
		e(&m)
	}
	s.queues[agent] = append(s.queues[agent], m)
	return m.ID
}

// sendNow is the person's release (queue.Store.Release): message id is
// marked manual, no longer held or set aside, and moved to the front of its
// queue. As the store, it refuses a message in flight (queue.ErrInFlight):
// a test that releases one asks for a state production cannot reach.
func (s *fakeStore) sendNow(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight[id] {
		panic(fmt.Sprintf("fake store: release of message %d in flight: the store refuses it (queue.ErrInFlight)", id))
	}
	for agent, q := range s.queues {
		for i, m := range q {
			if m.ID == id {
				m.Manual, m.Interrupted, m.SetAside, m.Evidence = true, false, false, ""
				s.queues[agent] = append([]queue.Message{m}, slices.Delete(q, i, i+1)...)
				return
			}
		}
	}
}

func (s *fakeStore) setPaused(agent string, paused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.agentPaused[agent] = paused
}

func (s *fakeStore) setFloorPaused(paused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.floorPaused = paused
}

// queued returns a copy of the agent's queue.
func (s *fakeStore) queued(agent string) []queue.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queues[agent])
}

// callsOf returns the recorded calls of op ("" for all).
func (s *fakeStore) callsOf(op string) []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []call
	for _, c := range s.calls {
		if op == "" || c.op == op {
			out = append(out, c)
		}
	}
	return out
}

func (s *fakeStore) remove(id int64) (queue.Message, bool) {
	for agent, q := range s.queues {
		for i, m := range q {
			if m.ID == id {
				s.queues[agent] = slices.Delete(q, i, i+1)
				if len(s.queues[agent]) == 0 {
					delete(s.queues, agent)
				}
				return m, true
			}
		}
	}
	return queue.Message{}, false
}

func (s *fakeStore) find(id int64) *queue.Message {
	for _, q := range s.queues {
		for i := range q {
			if q[i].ID == id {
				return &q[i]
			}
		}
	}
	return nil
}

// errNotFound is queue.ErrNotFound, as the store wraps it.
var errNotFound = fmt.Errorf("fake store: message not queued: %w", queue.ErrNotFound)

func (s *fakeStore) PendingAgents(ctx context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for agent, q := range s.queues {
		if len(q) > 0 {
			out = append(out, agent)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (s *fakeStore) Head(ctx context.Context, agent string) (queue.Message, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.queues[agent] {
		if !m.SetAside { // as the store: a message set aside is skipped
			return m, true, nil
		}
	}
	return queue.Message{}, false, nil
}

func (s *fakeStore) Paused(ctx context.Context, agent string) (bool, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agentPaused[agent], s.floorPaused, nil
}

func (s *fakeStore) Attempt(ctx context.Context, id int64) (queue.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.find(id)
	if m == nil {
		return queue.Message{}, errNotFound
	}
	m.LastAttempt = time.Now()
	s.inFlight[id] = true
	if s.renderAt != nil {
		m.Text = s.renderAt(*m)
	}
	s.record(call{op: "Attempt", id: id, agent: m.Agent})
	if f := s.onAttempt; f != nil {
		s.mu.Unlock()
		f()
		s.mu.Lock()
	}
	return *m, nil
}

func (s *fakeStore) Hold(ctx context.Context, id int64, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.find(id)
	if m == nil {
		return errNotFound
	}
	if s.holdErrs > 0 {
		s.holdErrs--
		s.record(call{op: "HoldFailed", id: id})
		return errors.New("database is locked")
	}
	m.Interrupted, m.Evidence = true, reason
	s.inFlight[id] = false
	s.record(call{op: "Hold", id: id, agent: m.Agent, arg: reason})
	return nil
}

func (s *fakeStore) Writing(ctx context.Context, id int64) error {
	s.mu.Lock()
	m := s.find(id)
	if m == nil {
		s.mu.Unlock()
		return errNotFound
	}
	m.Writing = time.Now()
	f := s.onWriting
	s.mu.Unlock()
	if f != nil {
		f()
	}
	return nil
}

// Handing records a hand-over as the store does: writing and entered at
// once, only for a message in flight.
func (s *fakeStore) Handing(ctx context.Context, id int64, channel string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.find(id)
	if m == nil || !s.inFlight[id] {
		return errNotFound
	}
	m.Writing, m.Entered = time.Now(), time.Now()
	s.record(call{op: "Handing", id: id, agent: m.Agent, arg: channel})
	return nil
}

// SetAsideHeld sets a held message aside (Head skips it from now on), as the
// store does: only if it is still queued and held from the typing read
// (read's Writing stamp), else errNotFound and nothing changes.
func (s *fakeStore) SetAsideHeld(ctx context.Context, read queue.Message, evidence string) error {
	if f := s.beforeSetAside; f != nil {
		f(read.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.find(read.ID)
	if m == nil || !m.Interrupted || m.SetAside || m.Writing.IsZero() || !m.Writing.Equal(read.Writing) {
		return errNotFound
	}
	m.SetAside, m.Evidence = true, evidence
	s.record(call{op: "SetAsideHeld", id: read.ID, agent: m.Agent, arg: evidence})
	return nil
}

// SetAside sets aside a message being typed, as the store does: only one
// still queued, in flight and not set aside, else errNotFound.
func (s *fakeStore) SetAside(ctx context.Context, id int64, evidence string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.setAsideErrs > 0 {
		s.setAsideErrs--
		s.record(call{op: "SetAsideFailed", id: id})
		return errors.New("database is locked")
	}
	m := s.find(id)
	if m == nil || m.SetAside || !s.inFlight[id] {
		return errNotFound
	}
	m.Interrupted, m.SetAside, m.Evidence = true, true, evidence
	s.inFlight[id] = false
	s.record(call{op: "SetAside", id: id, agent: m.Agent, arg: evidence})
	return nil
}

func (s *fakeStore) Entering(ctx context.Context, id int64) error {
	s.mu.Lock()
	if s.find(id) == nil {
		s.mu.Unlock()
		return errNotFound
	}
	f := s.onEntering
	s.mu.Unlock()
	if f != nil {
		f()
	}
	return nil
}

func (s *fakeStore) Unattempt(ctx context.Context, id int64, why string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.find(id)
	if m == nil {
		return errNotFound
	}
	m.Writing = time.Time{}
	s.inFlight[id] = false
	s.record(call{op: "Unattempt", id: id, agent: m.Agent, arg: why})
	return nil
}

func (s *fakeStore) Delivered(ctx context.Context, id int64, note, state string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deliveredErrs > 0 {
		s.deliveredErrs--
		s.record(call{op: "DeliveredFailed", id: id})
		return errors.New("database is locked")
	}
	m, ok := s.remove(id)
	if !ok {
		return errNotFound
	}
	s.record(call{op: "Delivered", id: id, agent: m.Agent, arg: note})
	return nil
}

func (s *fakeStore) AttemptFailed(ctx context.Context, id int64, errText string, maxAttempts int) (bool, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.find(id)
	if m == nil {
		return false, 0, errNotFound
	}
	m.Attempts++
	m.LastError = errText
	s.inFlight[id] = false
	s.record(call{op: "AttemptFailed", id: id, agent: m.Agent, arg: errText})
	if m.Attempts >= maxAttempts {
		attempts := m.Attempts
		s.remove(id)
		return true, attempts, nil
	}
	return false, m.Attempts, nil
}

func (s *fakeStore) Drop(ctx context.Context, id int64, reason drain.DropReason) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.remove(id)
	if !ok {
		return errNotFound
	}
	s.record(call{op: "Drop", id: id, agent: m.Agent, arg: string(reason)})
	return nil
}

func (s *fakeStore) TypedNotSubmitted(ctx context.Context, id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.remove(id)
	if !ok {
		return errNotFound
	}
	s.record(call{op: "TypedNotSubmitted", id: id, agent: m.Agent})
	return nil
}

func (s *fakeStore) SetHold(ctx context.Context, agent string, reason drain.Hold) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(call{op: "SetHold", agent: agent, arg: string(reason)})
	return nil
}

// write is one recorded PTY write.
type write struct {
	at   time.Duration
	data string
	err  bool // the write failed
}

// fakeAgent is a terminal running a CLI that echoes typed text onto its
// prompt row and, by default, submits (clears the row) on Enter.
type fakeAgent struct {
	t     *testing.T
	start time.Time

	mu          sync.Mutex
	status      automation.Status
	block       automation.Block
	paste       bool
	profile     drain.SubmitProfile
	prompt      string
	promptOK    bool
	ignoreEnter int         // how many Enters leave the prompt as it is
	ignoreText  int         // how many text writes never show on the prompt (a CLI still loading)
	busyOnEnter bool        // an Enter turns the agent busy (the row keeps its text)
	exitOnEnter bool        // an Enter submits, then the process exits (/exit, a one-shot CLI)
	restoreExit bool        // with exitOnEnter: the exit restores the terminal (no prompt row left)
	clearExit   bool        // with exitOnEnter: the CLI cleared its input before it exited
	taken       []string    // the prompts the CLI took (submitted or queued), in order
	takenAt     []time.Time // when it took each (its record's date)
	writeErr    error
	exitOnFail  bool          // a failed write means the process has exited
	hang        chan struct{} // non-nil: Write blocks until closed or ctx is done
	swallowed   bool          // the last text write was ignored
	lastOutput  time.Time     // what LastOutput reports
	spawned     time.Time     // what Spawned reports (a restart moves it)
	writes      []write
	drafts      []string
	enters      []automation.TurnCause // the cause of every Enter that reached the PTY
	// screens is what Text returns, one entry per call, the last one
	// repeated (a dialog that closes after it was looked at).
	screens []string
}

func newFakeAgent(t *testing.T, start time.Time) *fakeAgent {
	return &fakeAgent{t: t, start: start, status: automation.StatusIdle, promptOK: true}
}

// set changes the agent under its lock.
func (a *fakeAgent) set(f func(a *fakeAgent)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(a)
}

// Status and Block are coupled on exit as a terminal couples them (one lock
// sets both): an exited process is status exited and block exited at once.
func (a *fakeAgent) Status() automation.Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.block == automation.BlockExited {
		return automation.StatusExited
	}
	return a.status
}

func (a *fakeAgent) Block(now time.Time) automation.Block {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.status == automation.StatusExited {
		return automation.BlockExited
	}
	return a.block
}

func (a *fakeAgent) BracketedPaste() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.paste
}

func (a *fakeAgent) Submit() drain.SubmitProfile {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.profile
}

func (a *fakeAgent) Prompt() (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.promptOK {
		return "", false
	}
	return "❯\u00a0" + a.prompt, true
}

func (a *fakeAgent) LastOutput() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastOutput
}

func (a *fakeAgent) Spawned() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.spawned
}

func (a *fakeAgent) Text() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.screens) == 0 {
		return ""
	}
	s := a.screens[0]
	if len(a.screens) > 1 {
		a.screens = a.screens[1:]
	}
	return s
}

func (a *fakeAgent) MarkDraft(text string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.drafts = append(a.drafts, text)
}

// forbidden reports a key the drain must never press.
func forbidden(p string) string {
	p = strings.ReplaceAll(strings.ReplaceAll(p, "\x1b[200~", ""), "\x1b[201~", "")
	// The arrows an approval moves a dialog's pointer with.
	p = strings.ReplaceAll(strings.ReplaceAll(p, "\x1b[A", ""), "\x1b[B", "")
	for _, k := range []struct{ b, name string }{{"\x1b", "Esc"}, {"\x03", "Ctrl-C"}, {"\x15", "Ctrl-U"}} {
		if strings.Contains(p, k.b) {
			return k.name
		}
	}
	return ""
}

func (a *fakeAgent) Write(ctx context.Context, p []byte) error {
	data := string(p)
	if k := forbidden(data); k != "" {
		a.t.Errorf("drain wrote %s: %q", k, data)
	}
	a.mu.Lock()
	at := time.Since(a.start)
	if a.hang != nil {
		hang := a.hang
		a.writes = append(a.writes, write{at: at, data: data})
		a.mu.Unlock()
		select {
		case <-hang:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer a.mu.Unlock()
	if a.writeErr != nil {
		a.writes = append(a.writes, write{at: at, data: data, err: true})
		if a.exitOnFail {
			a.status = automation.StatusExited
		}
		return a.writeErr
	}
	a.writes = append(a.writes, write{at: at, data: data})
	if data != "\r" {
		if a.ignoreText > 0 {
			a.ignoreText--
			a.swallowed = true
			return nil
		}
		a.prompt += strings.TrimSuffix(strings.TrimPrefix(data, "\x1b[200~"), "\x1b[201~")
		return nil
	}
	if a.swallowed { // the Enter after a swallowed text does nothing either
		a.swallowed = false
		return nil
	}
	if a.ignoreEnter > 0 {
		a.ignoreEnter--
		return nil
	}
	a.taken = append(a.taken, a.prompt)
	a.takenAt = append(a.takenAt, time.Now())
	switch {
	case a.exitOnEnter: // it leaves its last screen as it was, unless it restores the terminal
		a.status = automation.StatusExited
		a.promptOK = !a.restoreExit
		if a.clearExit {
			a.prompt = ""
		}
	case a.busyOnEnter:
		a.status = automation.StatusBusy
	default:
		a.prompt = ""
	}
	return nil
}

// tookRecords returns the prompts the CLI took as its records show them,
// each dated when it was taken.
func (a *fakeAgent) tookRecords() []records.Entry {
	a.mu.Lock()
	defer a.mu.Unlock()
	es := make([]records.Entry, len(a.taken))
	for i, p := range a.taken {
		es[i] = records.Entry{Role: records.RoleUser, Text: p, At: a.takenAt[i], Source: "hook"}
	}
	return es
}

// tookPrompts returns the prompts the CLI took.
func (a *fakeAgent) tookPrompts() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.taken)
}

// PressEnter is Write("\r") that records its cause once it succeeded.
func (a *fakeAgent) PressEnter(ctx context.Context, c automation.TurnCause) error {
	if err := a.Write(ctx, []byte("\r")); err != nil {
		return err
	}
	a.mu.Lock()
	a.enters = append(a.enters, c)
	a.mu.Unlock()
	return nil
}

// enterCauses returns the causes of the Enters that reached the PTY.
func (a *fakeAgent) enterCauses() []automation.TurnCause {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.enters)
}

// written returns a copy of the recorded writes.
func (a *fakeAgent) written() []write {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.writes)
}

func (a *fakeAgent) markedDrafts() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.drafts)
}

// fakeAgents maps names to fake agents.
type fakeAgents struct {
	mu sync.Mutex
	m  map[string]*fakeAgent
}

func (f *fakeAgents) Agent(name string) (drain.Agent, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.m[name]
	if !ok {
		return nil, false
	}
	return a, true
}

// lockedBuffer is a log sink safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// harness runs a Drainer on fakes inside a synctest bubble.
type harness struct {
	t      *testing.T
	start  time.Time
	store  *fakeStore
	agents *fakeAgents
	d      *drain.Drainer
	log    *lockedBuffer

	mu      sync.Mutex
	notices []drain.Notice

	cancel context.CancelFunc
	errc   chan error
}

// newHarness starts Run at virtual time 0 with agents named by names (idle,
// ready, no paste mode). edit may change the config before New.
func newHarness(t *testing.T, names []string, edit func(*drain.Config)) *harness {
	t.Helper()
	h := &harness{t: t, start: time.Now(), log: &lockedBuffer{}, errc: make(chan error, 1)}
	h.store = newFakeStore(h.start)
	h.agents = &fakeAgents{m: map[string]*fakeAgent{}}
	for _, n := range names {
		h.agents.m[n] = newFakeAgent(t, h.start)
	}
	cfg := drain.Config{
		Store:  h.store,
		Agents: h.agents,
		Clock:  fakeClock{},
		Notify: func(n drain.Notice) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.notices = append(h.notices, n)
		},
		Logger: slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if edit != nil {
		edit(&cfg)
	}
	h.d = drain.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.errc <- h.d.Run(ctx) }()
	synctest.Wait()
	return h
}

// agent returns the named fake agent.
func (h *harness) agent(name string) *fakeAgent { return h.agents.m[name] }

// until sleeps to virtual time at (since the start) and lets every goroutine
// settle.
func (h *harness) until(at time.Duration) {
	h.t.Helper()
	if d := at - time.Since(h.start); d > 0 {
		time.Sleep(d)
	}
	synctest.Wait()
}

// stop cancels Run and checks that it returns context.Canceled.
func (h *harness) stop() {
	h.t.Helper()
	h.cancel()
	if err := <-h.errc; !errors.Is(err, context.Canceled) {
		h.t.Errorf("Run returned %v, want context.Canceled", err)
	}
}

func (h *harness) noticeList() []drain.Notice {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.notices)
}
