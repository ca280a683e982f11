package configs

// Durations in config files: TOML strings in Go's time.ParseDuration form
// ("400ms", "1.5s", "2h30m"), never bare numbers, so a unit is always written.

import (
	"fmt"
	"time"
)

// Duration is a time.Duration written in TOML as a string such as "400ms" or
// "2h" (time.ParseDuration syntax; "0" and "0s" mean zero). Negative values and
// empty strings are rejected. The zero value is a zero duration, which fields
// document as "use the default".
type Duration struct{ time.Duration }

// UnmarshalText parses text with time.ParseDuration and sets d. It fails,
// leaving d unchanged, for empty text, bad syntax and negative durations.
func (d *Duration) UnmarshalText(text []byte) error {
	s := string(text)
	if s == "" {
		return fmt.Errorf("empty duration (want a string like \"400ms\" or \"2h\")")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("bad duration %q (want a string like \"400ms\" or \"2h\"): %w", s, err)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", s)
	}
	d.Duration = v
	return nil
}

// MarshalText returns the duration in time.Duration.String form ("400ms",
// "2h0m0s"), which UnmarshalText reads back to the same value.
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(d.Duration.String()), nil
}

// Or returns d's duration, or def when d is zero.
func (d Duration) Or(def time.Duration) time.Duration {
	if d.Duration == 0 {
		return def
	}
	return d.Duration
}
