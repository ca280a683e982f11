package drain

// The drain's source of time. Everything that waits (debounce, tick,
// cooldown, the gap before Enter, the submit check) waits on a Clock, so
// tests run in testing/synctest and see exact times.

import "time"

// Clock tells the time and waits. It must be safe for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the system clock: time.Now and time.After. The zero value is
// ready to use and safe for concurrent use.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// After returns time.After(d).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
