package client

import (
	"fmt"
	"time"
)

// writeDeadliner is a byte stream whose writes can be bounded (a net.Conn).
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// sendBounded writes m within the connection's SendTimeout (c.wmu held). A
// write that does not finish in time may have left half a frame on the
// stream, so the connection is closed: its reader ends it and a Session
// dials again.
func (c *Conn) sendBounded(m any) error {
	done := make(chan struct{})
	timer := time.AfterFunc(c.sendTimeout, func() {
		select {
		case <-done:
		default:
			c.rw.Close()
		}
	})
	if d, ok := c.rw.(writeDeadliner); ok {
		d.SetWriteDeadline(time.Now().Add(c.sendTimeout))
	}
	err := c.w.Write(m)
	if err == nil {
		err = c.w.Flush()
	}
	close(done)
	timer.Stop()
	if d, ok := c.rw.(writeDeadliner); ok {
		d.SetWriteDeadline(time.Time{})
	}
	if err != nil {
		c.rw.Close()
		return fmt.Errorf("office server did not take a write within %s (connection closed): %w", c.sendTimeout, err)
	}
	return nil
}
