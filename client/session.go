package client

// session.go keeps a client attached across dropped connections: an ssh that
// died, a network that went away. It dials again with a back-off, sends the
// last view again, resumes the event stream after the last stored event it
// saw, and tells its watchers.

import (
	"context"
	"errors"
	"sync"
	"time"

	"office/wire"
)

// Reconnection back-off: the first dial again after RedialMin, each failure
// doubling it up to RedialMax.
const (
	RedialMin = 200 * time.Millisecond
	RedialMax = 5 * time.Second
)

// Session is a connection that is dialled again when it drops (not when the
// server said Bye: it stopped on purpose, and not after Close).
type Session struct {
	tr Transport
	o  Options

	// subMu keeps the subscriptions sent in the order they were made (a
	// reconnect's resend never overtakes a newer one).
	subMu sync.Mutex

	mu       sync.Mutex
	cur      *Conn
	view     *wire.View
	subs     []string // the last Subscribe; nil: none sent
	since    int64
	watchers map[int]func(Change)
	nextW    int
	err      error

	kick   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// ChangeReconnected: the Session dialled again; everything (roster, state,
// screens) comes afresh from the new connection.
const ChangeReconnected ChangeKind = 100

// Open dials tr (the first dial must succeed) and keeps the connection up
// until Close or ctx ends. Events (Options.Events) reach Watch functions
// only: a Session has no Events channel.
func Open(ctx context.Context, tr Transport, o Options) (*Session, error) {
	o.EventsByWatch = true
	c, err := Dial(ctx, tr, o)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Session{tr: tr, o: o, cur: c, since: c.Welcome().Seq, watchers: map[int]func(Change){},
		kick: make(chan struct{}, 1), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	if o.Since > 0 {
		s.since = o.Since
	}
	s.attach(c)
	go s.keep()
	return s, nil
}

// Conn returns the current connection (it changes after a reconnect).
func (s *Session) Conn() *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// SetView sends the view and remembers it for the next connection.
func (s *Session) SetView(focus string, panes map[string]wire.Size, resized bool) error {
	s.mu.Lock()
	s.view = &wire.View{T: wire.TView, Focus: focus, Panes: panes}
	c := s.cur
	s.mu.Unlock()
	return c.SetView(focus, panes, resized)
}

// Subscribe sends the subscription (Conn.Subscribe) and remembers it for
// the next connection.
func (s *Session) Subscribe(agents []string) error {
	agents = append([]string{}, agents...)
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.mu.Lock()
	s.subs = agents
	c := s.cur
	s.mu.Unlock()
	return c.Subscribe(agents)
}

// Watch calls fn for every change of every connection of the session, and
// with ChangeReconnected after a reconnect, until stop is called. fn must not
// block.
func (s *Session) Watch(fn func(Change)) (stop func()) {
	s.mu.Lock()
	s.nextW++
	id := s.nextW
	s.watchers[id] = fn
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.watchers, id)
		s.mu.Unlock()
	}
}

// Redial makes a session that lost its connection dial again now instead of
// after its back-off (the server was just started again). It never blocks.
func (s *Session) Redial() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Done is closed when the session ends for good: Close, ctx, or the server
// said Bye; Err then says why.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err returns why the session ended (nil while it runs).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the session (a detach).
func (s *Session) Close() error {
	s.cancel()
	c := s.Conn()
	err := c.Close()
	<-s.done
	return err
}

// attach forwards c's changes to the session's watchers.
func (s *Session) attach(c *Conn) {
	c.Watch(func(ch Change) {
		if ch.Kind == ChangeEvent && ch.Event.Seq > 0 {
			s.mu.Lock()
			if ch.Event.Seq > s.since {
				s.since = ch.Event.Seq
			}
			s.mu.Unlock()
		}
		s.fire(ch)
	})
}

func (s *Session) fire(ch Change) {
	s.mu.Lock()
	fns := make([]func(Change), 0, len(s.watchers))
	for _, fn := range s.watchers {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn(ch)
	}
}

// keep dials again whenever the connection drops.
func (s *Session) keep() {
	defer close(s.done)
	for {
		c := s.Conn()
		select {
		case <-c.Done():
		case <-s.ctx.Done():
			c.Close()
			s.end(s.ctx.Err())
			return
		}
		var bye *ByeError
		if errors.As(c.Err(), &bye) {
			s.end(bye)
			return
		}
		if s.ctx.Err() != nil {
			s.end(s.ctx.Err())
			return
		}
		next, err := s.redial()
		if err != nil {
			s.end(err)
			return
		}
		s.subMu.Lock()
		s.mu.Lock()
		s.cur = next
		view, subs := s.view, s.subs
		s.mu.Unlock()
		s.attach(next)
		if subs != nil {
			_ = next.Subscribe(subs)
		}
		s.subMu.Unlock()
		if view != nil {
			_ = next.SetView(view.Focus, view.Panes, false)
		}
		s.fire(Change{Kind: ChangeReconnected})
	}
}

// redial dials until it works or the session ends.
func (s *Session) redial() (*Conn, error) {
	wait := RedialMin
	for {
		o := s.o
		s.mu.Lock()
		o.Since = s.since
		last := s.cur
		s.mu.Unlock()
		o.rowsFrom = last.rowsNow()
		c, err := Dial(s.ctx, Quiet(s.tr), o) // the UI may hold the terminal: ask nothing
		if err == nil {
			return c, nil
		}
		var rf *wire.Refused
		if errors.As(err, &rf) {
			return nil, err
		}
		select {
		case <-s.ctx.Done():
			return nil, s.ctx.Err()
		case <-s.kick:
			wait = RedialMin
			continue
		case <-time.After(wait):
		}
		wait = min(wait*2, RedialMax)
	}
}

func (s *Session) end(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}
