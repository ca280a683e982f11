package configs

// The one table of office's tunables: every timing and size the engine runs
// on, with its default, unit and where the number comes from. It documents
// (`office config show`); the packages that use a value keep their own named
// constant, and a test may cross-check the two.

import (
	"fmt"
	"time"
)

// Units of a Setting.
const (
	// UnitDuration: the default is Setting.Duration.
	UnitDuration = "duration"
	// UnitBytes: the default is Setting.N bytes.
	UnitBytes = "bytes"
	// UnitCount: the default is Setting.N (attempts, items).
	UnitCount = "count"
)

// Setting is one tunable of office.
type Setting struct {
	// Name is the setting's short name, as `office config show` prints it.
	Name string
	// Key is the office-file key that overrides it, "" when it is fixed.
	Key string
	// Unit is UnitDuration, UnitBytes or UnitCount.
	Unit string
	// Duration is the default when Unit is UnitDuration.
	Duration time.Duration
	// N is the default when Unit is UnitBytes or UnitCount.
	N int
	// Help says what the setting does and cites the seed or design rule it
	// comes from.
	Help string
}

// Value returns the default as text: "200ms", "30m0s", "512 bytes", "3".
func (s Setting) Value() string {
	switch s.Unit {
	case UnitDuration:
		return s.Duration.String()
	case UnitBytes:
		return fmt.Sprintf("%d bytes", s.N)
	}
	return fmt.Sprint(s.N)
}

// Settings returns office's tunables in a fixed order (scheduling, typing,
// status, inbox and mail), as a fresh slice.
func Settings() []Setting {
	return []Setting{
		{Name: "debounce", Unit: UnitDuration, Duration: 200 * time.Millisecond,
			Help: "delay from a store or terminal change to the drain's pass, a fixed window from the first change (seed 002: setTimeout(flush, 200))"},
		{Name: "tick", Unit: UnitDuration, Duration: 3 * time.Second,
			Help: "the drain's fallback pass, run even when nothing changed (seed 002: setInterval(flush, 3000))"},
		{Name: "cooldown", Unit: UnitDuration, Duration: 4500 * time.Millisecond,
			Help: "least time between two delivery attempts to one agent (seed 002: FLUSH_COOLDOWN_MS = 4500)"},
		{Name: "boot_grace", Unit: UnitDuration, Duration: 35 * time.Second,
			Help: "after spawn, no automated write until the profile's ready markers or this long (seed 002: BOOT_GRACE_MS = 35_000)"},
		{Name: "paste_gap", Unit: UnitDuration, Duration: 140 * time.Millisecond,
			Help: "gap between the text and the Enter written alone; a profile's enter_delay or paste_enter_delay may lengthen it (seed 002: 140 ms, useHive.ts)"},
		{Name: "paste_threshold", Unit: UnitBytes, N: 512,
			Help: "text longer than this, or with a newline, goes as one bracketed paste when the CLI has paste mode on (design.md §4)"},
		{Name: "verify", Unit: UnitDuration, Duration: 2 * time.Second,
			Help: "after Enter, how long office waits for the prompt to empty or the agent to turn busy before one more Enter (design.md §9, Typing)"},
		{Name: "max_attempts", Unit: UnitCount, N: 3,
			Help: "failed delivery attempts before a message is dropped loudly (seed 002: MAX_SEND_ATTEMPTS = 3)"},
		{Name: "stale", Unit: UnitDuration, Duration: 30 * time.Minute,
			Help: "a draft or picker block expires this long after the last keystroke or latch (seed 002: STALE_INPUT_MS = STALE_PICKER_MS = 1_800_000)"},
		{Name: "echo_grace", Unit: UnitDuration, Duration: time.Second,
			Help: "the screen is no evidence about a draft this soon after a keystroke (seed 002: ECHO_GRACE_MS = 1000)"},
		{Name: "picker_settle", Unit: UnitDuration, Duration: 500 * time.Millisecond,
			Help: "settling block after a picker is released by Enter, Esc or Ctrl-C (design.md §5)"},
		{Name: "quiet", Unit: UnitDuration, Duration: 12 * time.Second,
			Help: "busy with no output this long means idle, when no stronger signal decides; a profile's quiet overrides it (design.md §3)"},
		{Name: "turn_wait", Unit: UnitDuration, Duration: 10 * time.Second,
			Help: "a turn that never shows busy ends when the agent is idle this long after the Enter (design.md §9, Status and turns)"},
		{Name: "stall", Unit: UnitDuration, Duration: 6 * time.Minute,
			Help: "busy with no activity this long is a stall, noticed once to the parent (seed 000: the stall watchdog's 6 minutes)"},
		{Name: "batch_items", Unit: UnitCount, N: 100,
			Help: "most inbox items rendered into one delivery (seed 000: up to 100 rows per drain)"},
		{Name: "batch_bytes", Unit: UnitBytes, N: 32 << 10,
			Help: "most bytes of inbox items rendered into one delivery (design.md §6)"},
		{Name: "mail_timeout", Key: "mail_timeout", Unit: UnitDuration, Duration: DefaultMailTimeout,
			Help: "deadline of working mail sent without --deadline (seed 004: default_task_timeout_minutes = 30)"},
		{Name: "mail_sweep", Unit: UnitDuration, Duration: 30 * time.Second,
			Help: "how often working mail past its deadline is failed (seed 004: the ticker scans every 30 s)"},
		{Name: "retention", Unit: UnitDuration, Duration: 7 * 24 * time.Hour,
			Help: "delivered and terminal rows older than this are deleted; undelivered ones become dead letters (seed 000: rows older than 7 days)"},
	}
}
