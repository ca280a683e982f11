package remote

// multi.go is one view of several offices: the agents of several servers
// (this host's, others' through ssh) in one grid. Each server is one
// session with its own Office; Multi merges their rosters under names
// qualified by host (AGENT@HOST: agent names have no '@', so the name
// splits at the first one), routes every key, paste, resize and intent to
// the session that owns the agent, and lets each session lose and find its
// server on its own: the panes of an unreachable host say so, the others
// keep working.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"office/client"
	"office/pool"
	"office/ui"
	"office/wire"
)

// StatusUnreachable is the status Multi gives the agents of a host whose
// server cannot be reached right now (the UI's pane says so).
const StatusUnreachable = wire.StatusUnreachable

// Host is one server of a Multi view.
type Host struct {
	// Name is the host's name in the view: AGENT@Name in titles and
	// intents. It must not be empty or contain '@'.
	Name string
	// Transport reaches the server.
	Transport client.Transport
	// Session is the session already open to it (opened while the person
	// could still answer ssh); nil: Multi opens it, dialling quietly
	// (client.Quiet) until the server answers.
	Session *client.Session
	// Start starts the server again (see Options.Start); nil: it cannot be
	// started from here.
	Start func(ctx context.Context) error
	// DialErr is why the first dial failed when Session is nil (shown
	// until a dial works).
	DialErr error
}

// Multi implements ui.Office and ui.Remote over several servers. Its
// methods are safe for concurrent use.
type Multi struct {
	co client.Options

	mu       sync.Mutex
	hosts    []*member
	byName   map[string]*member
	watchers map[int]func(ui.Change)
	nextW    int
	queued   map[int64]*member // the host of each message id listed last (Queue)
	subs     []string          // the last Subscribe (qualified names); nil: none

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// member is one host of the view. Its fields are guarded by Multi.mu.
type member struct {
	h      Host
	sess   *client.Session // nil until the first dial works
	office *Office
	err    string // why the server cannot be dialled (sess nil)
	ended  bool   // its server stopped (Bye): its agents left the view
	kick   chan struct{}
}

// NewMulti returns the view of hosts (at least two, names unique). Hosts
// without a session are dialled in the background with the session options
// co. Close it: it closes every session.
func NewMulti(hosts []Host, co client.Options) (*Multi, error) {
	if len(hosts) < 2 {
		return nil, fmt.Errorf("one view: %d host(s); it shows two or more (one host is a plain attach)", len(hosts))
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Multi{co: co, byName: map[string]*member{}, watchers: map[int]func(ui.Change){},
		queued: map[int64]*member{}, ctx: ctx, cancel: cancel}
	for _, h := range hosts {
		if h.Name == "" || strings.Contains(h.Name, "@") {
			cancel()
			return nil, fmt.Errorf("one view: bad host name %q (not empty, no '@')", h.Name)
		}
		if m.byName[h.Name] != nil {
			cancel()
			return nil, fmt.Errorf("one view: two hosts named %q", h.Name)
		}
		mb := &member{h: h, kick: make(chan struct{}, 1)}
		m.hosts = append(m.hosts, mb)
		m.byName[h.Name] = mb
	}
	for _, mb := range m.hosts {
		if mb.h.Session != nil {
			m.join(mb, mb.h.Session)
			continue
		}
		mb.err = "unreachable"
		if mb.h.DialErr != nil {
			mb.err = mb.h.DialErr.Error()
		}
		m.wg.Add(1)
		go m.dial(mb)
	}
	return m, nil
}

// dial opens mb's session, quietly (a UI holds the terminal), with the
// sessions' back-off, until it works, the server refuses this client, or
// the view closes.
func (m *Multi) dial(mb *member) {
	defer m.wg.Done()
	wait := client.RedialMin
	for {
		s, err := client.Open(m.ctx, client.Quiet(mb.h.Transport), m.co)
		if err == nil {
			m.join(mb, s)
			m.emit(ui.Change{Kind: ui.ChangeRoster})
			m.emit(ui.Change{Kind: ui.ChangeConnection})
			return
		}
		if m.ctx.Err() != nil {
			return
		}
		m.mu.Lock()
		mb.err = err.Error()
		m.mu.Unlock()
		m.emit(ui.Change{Kind: ui.ChangeConnection})
		var rf *wire.Refused
		if errors.As(err, &rf) {
			m.mu.Lock()
			mb.ended = true
			m.mu.Unlock()
			m.emit(ui.Change{Kind: ui.ChangeNotice, Notice: ui.Notice{At: time.Now(), Kind: "host",
				Text: "host " + mb.h.Name + ": " + err.Error()}})
			return
		}
		select {
		case <-m.ctx.Done():
			return
		case <-mb.kick:
			wait = client.RedialMin
			continue
		case <-time.After(wait):
		}
		wait = min(wait*2, client.RedialMax)
	}
}

// join makes s mb's session and follows its office.
func (m *Multi) join(mb *member, s *client.Session) {
	o := New(s, Options{Start: mb.h.Start, Where: "host " + mb.h.Name})
	m.mu.Lock()
	mb.sess, mb.office, mb.err = s, o, ""
	subs := m.subs
	m.mu.Unlock()
	o.Watch(func(c ui.Change) { m.relay(mb, c) })
	if subs != nil {
		// A host that joins late gets what the view subscribed to meanwhile.
		_ = o.Subscribe(m.ofHost(mb, subs))
	}
}

// relay passes one change of mb's office on, its agent qualified.
func (m *Multi) relay(mb *member, c ui.Change) {
	if c.Agent != "" {
		c.Agent = qualify(c.Agent, mb.h.Name)
	}
	if c.Kind == ui.ChangeNotice {
		if c.Notice.Agent != "" {
			c.Notice.Agent = qualify(c.Notice.Agent, mb.h.Name)
		} else {
			c.Notice.Text = "host " + mb.h.Name + ": " + c.Notice.Text
		}
	}
	if c.Kind == ui.ChangeConnection {
		m.mu.Lock()
		o := mb.office
		m.mu.Unlock()
		if _, ended := o.Gone(); ended {
			m.mu.Lock()
			was := mb.ended
			mb.ended = true
			m.mu.Unlock()
			if !was {
				m.emit(ui.Change{Kind: ui.ChangeNotice, Notice: ui.Notice{At: time.Now(), Kind: "host",
					Text: "the office on host " + mb.h.Name + " stopped; its agents left this view"}})
			}
		}
		// The statuses of its agents changed (unreachable or back).
		m.emit(ui.Change{Kind: ui.ChangeRoster})
	}
	m.emit(c)
}

// qualify names agent of host in the view.
func qualify(agent, host string) string { return agent + "@" + host }

// owner returns the host of a qualified name and the agent's own name.
func (m *Multi) owner(name string) (*member, string, error) {
	agent, host, ok := strings.Cut(name, "@")
	m.mu.Lock()
	mb := m.byName[host]
	var o *Office
	if mb != nil {
		o = mb.office
	}
	m.mu.Unlock()
	switch {
	case !ok || mb == nil:
		return nil, "", fmt.Errorf("no agent %q in this view: name it AGENT@HOST (hosts: %s)", name, strings.Join(m.names(), ", "))
	case o == nil:
		return nil, "", fmt.Errorf("host %s is unreachable, retrying", host)
	}
	return mb, agent, nil
}

// names lists the hosts' names in order.
func (m *Multi) names() []string {
	out := make([]string, len(m.hosts))
	for i, mb := range m.hosts {
		out[i] = mb.h.Name
	}
	return out
}

// live returns the hosts whose session is open and not ended.
func (m *Multi) live() []*member {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*member
	for _, mb := range m.hosts {
		if mb.office != nil && !mb.ended {
			out = append(out, mb)
		}
	}
	return out
}

func (m *Multi) emit(c ui.Change) {
	m.mu.Lock()
	ws := make([]func(ui.Change), 0, len(m.watchers))
	for _, w := range m.watchers {
		ws = append(ws, w)
	}
	m.mu.Unlock()
	for _, w := range ws {
		w(c)
	}
}

// Close stops following every host and closes the sessions.
func (m *Multi) Close() {
	m.cancel()
	m.wg.Wait()
	m.mu.Lock()
	hosts := slices.Clone(m.hosts)
	m.mu.Unlock()
	for _, mb := range hosts {
		m.mu.Lock()
		o, s := mb.office, mb.sess
		m.mu.Unlock()
		if o != nil {
			o.Close()
			s.Close()
		}
	}
}

// Watch implements ui.Office.
func (m *Multi) Watch(fn func(ui.Change)) (stop func()) {
	m.mu.Lock()
	id := m.nextW
	m.nextW++
	m.watchers[id] = fn
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.watchers, id)
		m.mu.Unlock()
	}
}

// Agents implements ui.Office: every host's roster in host order, names
// qualified, Host set; the agents of a host that cannot be reached now have
// StatusUnreachable.
func (m *Multi) Agents() []ui.AgentInfo {
	var out []ui.AgentInfo
	for _, mb := range m.live() {
		gone, _ := mb.office.Gone()
		for _, a := range mb.office.Agents() {
			a.Name, a.Host = qualify(a.Name, mb.h.Name), mb.h.Name
			if gone != "" {
				a.Status = StatusUnreachable
			}
			out = append(out, a)
		}
	}
	return out
}

// Screen implements ui.Office.
func (m *Multi) Screen(agent string, dst *ui.Screen, rows *[]uint64) bool {
	mb, a, err := m.owner(agent)
	if err != nil {
		return false
	}
	return mb.office.Screen(a, dst, rows)
}

// History implements ui.Office.
func (m *Multi) History(ctx context.Context, agent string, from, to int64, dst []pool.HistoryLine) (ui.HistoryBounds, []pool.HistoryLine, error) {
	mb, a, err := m.owner(agent)
	if err != nil {
		return ui.HistoryBounds{}, dst[:0], err
	}
	return mb.office.History(ctx, a, from, to, dst)
}

// Floor implements ui.Office: every host's depths and holds; paused when
// every reachable host is paused.
func (m *Multi) Floor() ui.Floor {
	f := ui.Floor{Counts: map[string]int{}, Holds: map[string]string{}}
	var errs []string
	n, paused := 0, 0
	for _, mb := range m.live() {
		hf := mb.office.Floor()
		for a, c := range hf.Counts {
			f.Counts[qualify(a, mb.h.Name)] = c
		}
		for a, h := range hf.Holds {
			f.Holds[qualify(a, mb.h.Name)] = h
		}
		for _, n := range hf.Needs {
			n.Agent, n.Host = qualify(n.Agent, mb.h.Name), mb.h.Name
			f.Needs = append(f.Needs, n)
		}
		if gone, _ := mb.office.Gone(); gone == "" {
			n++
			if hf.Paused {
				paused++
			}
		}
		if hf.Err != "" {
			errs = append(errs, "host "+mb.h.Name+": "+hf.Err)
		}
	}
	f.Paused = n > 0 && paused == n
	f.Err = strings.Join(errs, "; ")
	slices.SortStableFunc(f.Needs, func(a, b ui.Need) int { return a.Since.Compare(b.Since) })
	return f
}

// Queue implements ui.Office. Message ids are each host's own; Release and
// Remove go to the host whose listing showed the id last.
func (m *Multi) Queue(ctx context.Context, agent string) (ui.QueueListing, error) {
	mb, a, err := m.owner(agent)
	if err != nil {
		return ui.QueueListing{}, err
	}
	l, err := mb.office.Queue(ctx, a)
	l.Agent = agent
	m.mu.Lock()
	for _, msg := range l.Messages {
		m.queued[msg.ID] = mb
	}
	m.mu.Unlock()
	return l, err
}

// byID is the host of message id (see Queue).
func (m *Multi) byID(id int64) (*Office, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mb := m.queued[id]
	if mb == nil || mb.office == nil {
		return nil, fmt.Errorf("message %d: open its agent's queue first (ids are per host)", id)
	}
	return mb.office, nil
}

// Input implements ui.Office: the keys go to the agent's host; a host that
// cannot be reached refuses them (they are not kept for later).
func (m *Multi) Input(agent string, p []byte) error {
	mb, a, err := m.owner(agent)
	if err != nil {
		return err
	}
	return mb.office.Input(a, p)
}

// Resize implements ui.Office.
func (m *Multi) Resize(agent string, cols, rows int) error {
	mb, a, err := m.owner(agent)
	if err != nil {
		return err
	}
	return mb.office.Resize(a, cols, rows)
}

// SetView implements ui.Remote: each host gets the panes of its agents (and
// the focus when it owns the focused one).
func (m *Multi) SetView(focus string, panes map[string]ui.PaneSize, resized bool) error {
	per := map[*member]map[string]ui.PaneSize{}
	for name, sz := range panes {
		if mb, a, err := m.owner(name); err == nil {
			if per[mb] == nil {
				per[mb] = map[string]ui.PaneSize{}
			}
			per[mb][a] = sz
		}
	}
	fm, fa, _ := m.owner(focus)
	var errs []error
	for _, mb := range m.live() {
		f := ""
		if mb == fm {
			f = fa
		}
		if err := mb.office.SetView(f, per[mb], resized); err != nil {
			errs = append(errs, fmt.Errorf("host %s: %w", mb.h.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Subscribe implements ui.Subscriber: each host gets the agents of its own
// that are named (none: an empty subscription, so it sends no screen).
func (m *Multi) Subscribe(agents []string) error {
	m.mu.Lock()
	m.subs = slices.Clone(agents)
	if m.subs == nil {
		m.subs = []string{}
	}
	m.mu.Unlock()
	var errs []error
	for _, mb := range m.live() {
		if err := mb.office.Subscribe(m.ofHost(mb, agents)); err != nil {
			errs = append(errs, fmt.Errorf("host %s: %w", mb.h.Name, err))
		}
	}
	return errors.Join(errs...)
}

// ofHost returns the own names of mb's agents among the qualified names.
func (m *Multi) ofHost(mb *member, names []string) []string {
	out := []string{}
	for _, name := range names {
		if agent, host, ok := strings.Cut(name, "@"); ok && host == mb.h.Name {
			out = append(out, agent)
		}
	}
	return out
}

// Gone implements ui.Remote: which hosts cannot be reached ("" when all
// can); ended once every host's office stopped.
func (m *Multi) Gone() (reason string, ended bool) {
	m.mu.Lock()
	hosts := slices.Clone(m.hosts)
	m.mu.Unlock()
	var down []string
	over := 0
	for _, mb := range hosts {
		m.mu.Lock()
		o, e, err := mb.office, mb.ended, mb.err
		m.mu.Unlock()
		switch {
		case e:
			over++
		case o == nil:
			down = append(down, "host "+mb.h.Name+" unreachable ("+firstLine(err)+"), retrying")
		default:
			if g, _ := o.Gone(); g != "" {
				down = append(down, "host "+mb.h.Name+" unreachable, retrying")
			}
		}
	}
	return strings.Join(down, "; "), over == len(hosts)
}

// Ended returns why the view ended (nil while any host's office runs): the
// first host's reason.
func (m *Multi) Ended() error {
	if _, ended := m.Gone(); !ended {
		return nil
	}
	for _, mb := range m.hosts {
		m.mu.Lock()
		o, err := mb.office, mb.err
		m.mu.Unlock()
		if o != nil {
			if e := o.Ended(); e != nil {
				return e
			}
		} else if err != "" {
			return errors.New("host " + mb.h.Name + ": " + err)
		}
	}
	return nil
}

// StartServer implements ui.Remote: every host that cannot be reached and
// can be started from here is started; the others are dialled again now.
func (m *Multi) StartServer(ctx context.Context) error {
	m.mu.Lock()
	hosts := slices.Clone(m.hosts)
	m.mu.Unlock()
	var errs []error
	for _, mb := range hosts {
		m.mu.Lock()
		o, e := mb.office, mb.ended
		m.mu.Unlock()
		switch {
		case e:
		case o == nil:
			if mb.h.Start != nil {
				if err := mb.h.Start(ctx); err != nil {
					errs = append(errs, fmt.Errorf("host %s: %w", mb.h.Name, err))
				}
			}
			select {
			case mb.kick <- struct{}{}:
			default:
			}
		default:
			if g, _ := o.Gone(); g != "" {
				if err := o.StartServer(ctx); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// Enqueue implements ui.Office.
func (m *Multi) Enqueue(ctx context.Context, agent, text string) (int64, error) {
	mb, a, err := m.owner(agent)
	if err != nil {
		return 0, err
	}
	return mb.office.Enqueue(ctx, a, text)
}

// SetFloorPaused implements ui.Office: every reachable host.
func (m *Multi) SetFloorPaused(ctx context.Context, paused bool) error {
	var errs []error
	for _, mb := range m.live() {
		if err := mb.office.SetFloorPaused(ctx, paused); err != nil {
			errs = append(errs, fmt.Errorf("host %s: %w", mb.h.Name, err))
		}
	}
	return errors.Join(errs...)
}

// ReleaseLimit implements ui.Office: on agent's own host, or ("") on every
// reachable host; the agents released are named AGENT@HOST.
func (m *Multi) ReleaseLimit(ctx context.Context, agent string) (wire.LimitReleaseResult, error) {
	hosts := m.live()
	name := ""
	if agent != "" {
		mb, a, err := m.owner(agent)
		if err != nil {
			return wire.LimitReleaseResult{}, err
		}
		hosts, name = []*member{mb}, a
	}
	var out wire.LimitReleaseResult
	var errs []error
	for _, mb := range hosts {
		r, err := mb.office.ReleaseLimit(ctx, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("host %s: %w", mb.h.Name, err))
			continue
		}
		for _, a := range r.Released {
			out.Released = append(out.Released, qualify(a, mb.h.Name))
		}
	}
	return out, errors.Join(errs...)
}

// Release implements ui.Office.
func (m *Multi) Release(ctx context.Context, id int64) error {
	o, err := m.byID(id)
	if err != nil {
		return err
	}
	return o.Release(ctx, id)
}

// Remove implements ui.Office.
func (m *Multi) Remove(ctx context.Context, id int64) error {
	o, err := m.byID(id)
	if err != nil {
		return err
	}
	return o.Remove(ctx, id)
}

// Clear implements ui.Office.
func (m *Multi) Clear(ctx context.Context, agent string) error {
	mb, a, err := m.owner(agent)
	if err != nil {
		return err
	}
	return mb.office.Clear(ctx, a)
}

// ClosePicker implements ui.Office.
func (m *Multi) ClosePicker(ctx context.Context, agent string) error {
	mb, a, err := m.owner(agent)
	if err != nil {
		return err
	}
	return mb.office.ClosePicker(ctx, a)
}

// RecoverPrompt implements ui.Office.
func (m *Multi) RecoverPrompt(ctx context.Context, agent string) (string, error) {
	mb, a, err := m.owner(agent)
	if err != nil {
		return "", err
	}
	return mb.office.RecoverPrompt(ctx, a)
}

// AddAgent implements ui.Office: the name says the host (NAME@HOST).
func (m *Multi) AddAgent(ctx context.Context, s ui.AgentSpec) error {
	mb, a, err := m.owner(s.Name)
	if err != nil {
		return err
	}
	s.Name = a
	return mb.office.AddAgent(ctx, s)
}

// RestartAgent implements ui.Office.
func (m *Multi) RestartAgent(ctx context.Context, agent string) error {
	mb, a, err := m.owner(agent)
	if err != nil {
		return err
	}
	return mb.office.RestartAgent(ctx, a)
}

// Quit implements ui.Office: every reachable host's office stops, at once.
func (m *Multi) Quit(ctx context.Context) error {
	live := m.live()
	errs := make([]error, len(live))
	var wg sync.WaitGroup
	for i, mb := range live {
		wg.Go(func() {
			if err := mb.office.Quit(ctx); err != nil {
				errs[i] = fmt.Errorf("host %s: %w", mb.h.Name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

var (
	_ ui.Office     = (*Multi)(nil)
	_ ui.Remote     = (*Multi)(nil)
	_ ui.Subscriber = (*Multi)(nil)
)
