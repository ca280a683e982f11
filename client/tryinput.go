package client

// tryinput.go writes the person's keys on the caller's goroutine when the
// stream can take them at once: a key's frame is a few dozen bytes, and
// handing it to another goroutine to write (a wakeup, on a busy machine a
// thread's) was a measurable part of a key's echo.

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"office/wire"
)

// TryInput writes agent's keys (Input's frame) now if that takes one
// non-blocking write and no other write is under way; it never waits. sent
// false means nothing was written (another write holds the stream, the
// stream has no room or cannot be written without blocking, or the write
// failed) and the caller sends them the usual way, which reports any
// error. When the stream took only part of the frame, the rest is written
// off the caller's goroutine before any other write (bounded like a send:
// a stream that takes none of it within the connection's SendTimeout, or
// tryRestTimeout without one, is closed), and sent is true.
func (c *Conn) TryInput(agent string, p []byte) (sent bool) {
	rc := c.raw
	if rc == nil || !c.wmu.TryLock() {
		return false
	}
	if c.w.Buffered() > 0 { // never: every send flushes
		c.wmu.Unlock()
		return false
	}
	payload, err := wire.Marshal(wire.Input{T: wire.TInput, Agent: agent, Data: p})
	if err != nil {
		c.wmu.Unlock()
		return false
	}
	frame, err := wire.AppendFrame(make([]byte, 0, 4+len(payload)), payload)
	if err != nil {
		c.wmu.Unlock()
		return false
	}
	n := 0
	_ = rc.Write(func(fd uintptr) bool { // an error (closed) leaves n 0
		for {
			m, err := unix.Write(int(fd), frame)
			if err == unix.EINTR {
				continue
			}
			if m > 0 {
				n = m
			}
			return true // one attempt: EAGAIN is "no room", not a wait
		}
	})
	switch {
	case n == len(frame):
		c.wmu.Unlock()
		return true
	case n == 0:
		c.wmu.Unlock()
		return false
	}
	// Part of the frame is on the stream: the rest must follow it before
	// anything else, so the lock goes with it.
	go func(rest []byte) {
		defer c.wmu.Unlock()
		c.writeRest(rest)
	}(frame[n:])
	return true
}

// tryRestTimeout bounds the rest of a frame TryInput began when the
// connection has no SendTimeout.
const tryRestTimeout = 10 * time.Second

// writeRest writes what is left of a frame (c.wmu held), closing the
// connection if it cannot: half a frame would make the rest of the stream
// unreadable.
func (c *Conn) writeRest(rest []byte) {
	d := c.sendTimeout
	if d <= 0 {
		d = tryRestTimeout
	}
	timer := time.AfterFunc(d, func() { c.rw.Close() })
	defer timer.Stop()
	if _, err := c.rw.Write(rest); err != nil {
		c.rw.Close()
	}
}

// rawConn is rw's file descriptor when it has one the runtime polls (the
// local socket, ssh's stdin pipe), or nil.
func rawConn(rw any) syscall.RawConn {
	sc, ok := rw.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}
