package engine

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"office/configs"
	"office/inbox"
	"office/queue"
)

// manualClock is a drain.Clock a test moves by hand: After's channels fire
// only when the test advances past their time.
type manualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	armed   chan struct{} // a new waiter was added
}

type waiter struct {
	at time.Time
	c  chan time.Time
}

func newManualClock(now time.Time) *manualClock {
	return &manualClock{now: now, armed: make(chan struct{}, 16)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waiters = append(c.waiters, waiter{at: c.now.Add(d), c: ch})
	c.armed <- struct{}{}
	return ch
}

// advance moves the time by d and fires every waiter that is due.
func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.c <- c.now
			continue
		}
		kept = append(kept, w)
	}
	c.waiters = kept
}

// The mail deadline ticker runs on the inbox goroutine's clock: working
// mail fails with "timeout" at the first tick after its deadline, not
// before, with no real time passing.
func TestMailDeadlineTickerRunsOnTheInboxClock(t *testing.T) {
	dir := t.TempDir()
	src := "brief = false\nmail_timeout = \"30m\"\n\n[[agent]]\nname = \"dev\"\ncommand = [\"sh\", \"-c\", \"exec sleep 600\"]\n"
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Options{Config: c, StateDir: filepath.Join(dir, "state"), HostEnv: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := e.inbox.svc
	id := workingMail(ctx, t, e, "dev")
	state := func() inbox.MailState {
		m, _, err := svc.GetMail(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return m.State
	}
	if st := state(); st != inbox.MailWorking {
		t.Fatalf("mail %s, want working", st)
	}

	// The inbox clock starts a second before the mail went working, so its
	// deadline falls between two ticks.
	clock := newManualClock(time.Now().Add(-time.Second))
	e.inbox.clock = clock
	done := make(chan struct{})
	go func() { e.runInbox(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	// sampled waits until the goroutine has done a sample's work (it arms
	// the next one); step moves the clock one sample on and waits for it.
	sampled := func() { <-clock.armed }
	step := func() { clock.advance(defaults.StallSample); sampled() }
	sampled()
	for elapsed := time.Duration(0); elapsed < 30*time.Minute; elapsed += defaults.StallSample {
		step()
	}
	if st := state(); st != inbox.MailWorking {
		t.Fatalf("mail %s at its deadline, want still working", st)
	}
	for range int(defaults.MailSweep / defaults.StallSample) {
		step()
	}
	m, _, err := svc.GetMail(ctx, id)
	if err != nil || m.State != inbox.MailFailed || m.Reason != inbox.ReasonTimeout {
		t.Fatalf("mail %s(%s) %v one tick past its deadline, want failed(timeout)", m.State, m.Reason, err)
	}
}

// lastAt returns when the newest waiter is due (zero: none).
func (c *manualClock) lastAt() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return time.Time{}
	}
	return c.waiters[len(c.waiters)-1].at
}

// set moves the clock to t without firing anything (before a test starts
// its timers).
func (c *manualClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// workingMail sends a mail from the person to agent, delivers it through
// the inbox's drain store as the drain would, and returns its id: the mail
// is then working.
func workingMail(ctx context.Context, t *testing.T, e *Engine, agent string) string {
	t.Helper()
	svc := e.inbox.svc
	id, err := svc.SendMail(ctx, inbox.MailRequestArgs{To: agent, From: inbox.Person, Title: "t", Text: "do it"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Schedule(ctx); err != nil {
		t.Fatal(err)
	}
	msgs, err := e.store.List(ctx, agent)
	if err != nil || len(msgs) != 1 || msgs[0].Kind != queue.KindInbox {
		t.Fatalf("inbox delivery: %+v %v", msgs, err)
	}
	ds := inbox.DrainStore{Store: e.store, Svc: svc}
	if _, err := ds.Attempt(ctx, msgs[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := ds.Delivered(ctx, msgs[0].ID, "test", queue.StateUnconfirmed); err != nil {
		t.Fatal(err)
	}
	return id
}
