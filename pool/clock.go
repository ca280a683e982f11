package pool

import "time"

// Clock is a Terminal's time source: its monitor sleeps on the clock's
// timers until the next deadline of the status judge, so a test can drive a
// Terminal with a fake clock.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that fires once d has passed.
	NewTimer(d time.Duration) Timer
}

// Timer is a Clock's one-shot timer.
type Timer interface {
	// C delivers the time when the timer fires.
	C() <-chan time.Time
	// Stop stops the timer; it reports whether it was still running.
	Stop() bool
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }
