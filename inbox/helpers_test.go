package inbox

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"office/queue"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

// env is one test store file with the inbox on it.
type env struct {
	t     *testing.T
	path  string
	clock *clock
	store *queue.Store
	svc   *Service
	ds    DrainStore
	ctx   context.Context
}

// newEnv opens a real SQLite file with agents a, b and c registered.
func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "office.db"), clock: newClock(), ctx: context.Background()}
	e.open()
	if err := e.store.EnsureAgents(e.ctx, []string{"a", "b", "c"}); err != nil {
		t.Fatal(err)
	}
	return e
}

// open (re)opens the store and the service on the file, as a new process
// would.
func (e *env) open() {
	e.t.Helper()
	s, err := queue.Open(e.path, queue.Options{Now: e.clock.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	svc, err := Open(e.ctx, s, Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.store, e.svc = s, svc
	e.ds = DrainStore{Store: s, Svc: svc}
	e.t.Cleanup(func() { s.Close() })
}

// restart simulates a crashed office coming back: a new handle on the file.
func (e *env) restart() {
	e.t.Helper()
	e.store.Close()
	e.open()
}

func (e *env) send(to, from, body string) string {
	e.t.Helper()
	id, _, err := e.svc.Send(e.ctx, Message{To: to, From: from, Body: body})
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *env) mail(a MailRequestArgs) string {
	e.t.Helper()
	id, err := e.svc.SendMail(e.ctx, a)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// schedule runs Schedule and returns the inbox delivery message of agent
// (0 when there is none).
func (e *env) schedule(agent string) int64 {
	e.t.Helper()
	if _, err := e.svc.Schedule(e.ctx); err != nil {
		e.t.Fatal(err)
	}
	msgs, err := e.store.List(e.ctx, agent)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Kind == queue.KindInbox {
			return m.ID
		}
	}
	return 0
}

// deliver plays the drain: attempt (lease + render) and acknowledge.
func (e *env) deliver(msgID int64) string {
	e.t.Helper()
	m, err := e.ds.Attempt(e.ctx, msgID)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.ds.Delivered(e.ctx, msgID, "test", queue.StateUnconfirmed); err != nil {
		e.t.Fatal(err)
	}
	return m.Text
}

// deliverAll schedules and delivers agent's inbox and returns the text.
func (e *env) deliverAll(agent string) string {
	e.t.Helper()
	id := e.schedule(agent)
	if id == 0 {
		e.t.Fatalf("no inbox delivery for %s", agent)
	}
	return e.deliver(id)
}

func (e *env) mailState(id string) (MailState, string) {
	e.t.Helper()
	m, _, err := e.svc.GetMail(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return m.State, m.Reason
}

func (e *env) items(receiver string, states ...string) []Item {
	e.t.Helper()
	its, err := e.svc.Items(e.ctx, receiver, states...)
	if err != nil {
		e.t.Fatal(err)
	}
	return its
}

func (e *env) count(q string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.store.DB().QueryRowContext(e.ctx, q, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *env) eventsOf(kind string) []queue.Event {
	e.t.Helper()
	evs, err := e.store.Events(e.ctx, 0, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []queue.Event
	for _, ev := range evs {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
