package server

// The person's keys from a client. An agent takes at most
// pool.MaxQueuedInput bytes of them not yet written to its PTY: a client
// whose keys outrun a slow agent waits here, in its own read loop, so only
// that client is held (its other frames wait behind its keys, as they would
// on a slow link) while every other client and agent goes on. A paste past
// the bound is refused whole, and that client alone is told.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"office/pool"
	"office/wire"
)

// NoticeKeys is the kind of the notice a client gets when its keys were not
// typed (Event.Kind of an EventNotice).
const NoticeKeys = "keys"

// input types the person's keys into an agent through its line model,
// waiting while the agent's input is full, until the client goes.
func (c *client) input(m wire.Input) {
	c.s.touch(c)
	a, ok := c.s.office.Agent(m.Agent)
	if !ok || a.Term == nil {
		return
	}
	err := a.Term.InputContext(quitContext{c.gone}, m.Data)
	var big *pool.InputTooLargeError
	if errors.As(err, &big) {
		c.s.log.Info("client paste refused", "client", c.id, "agent", m.Agent, "bytes", big.Len)
		c.tell(wire.Event{Type: wire.EventNotice, At: time.Now(), Agent: m.Agent, Kind: NoticeKeys,
			Text: fmt.Sprintf("paste not typed into %s: %d bytes, more than the %d an agent's input holds (send a long text as a file)",
				m.Agent, big.Len, pool.MaxQueuedInput)})
		return
	}
	if err != nil {
		c.s.log.Debug("client input", "client", c.id, "agent", m.Agent, "err", err)
	}
}

// tell queues a notice for this client alone (when it asked for events).
func (c *client) tell(ev wire.Event) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.hello.Events {
		c.push(ev)
	}
}

// quitContext is a context that ends when quit closes: given the client's
// gone (closed when its writer returns: stopped, or its connection failed),
// a wait for room in an agent's input ends with the client.
type quitContext struct{ quit <-chan struct{} }

func (q quitContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (q quitContext) Done() <-chan struct{}       { return q.quit }
func (q quitContext) Value(any) any               { return nil }
func (q quitContext) Err() error {
	select {
	case <-q.quit:
		return context.Canceled
	default:
		return nil
	}
}
