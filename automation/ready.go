package automation

// Readiness: when an agent's CLI has drawn enough of its UI to take a prompt.
// A profile's ready marker (its idle prompt on screen) must have been seen for
// a settle time first; failing that, the boot grace ends the wait.

import (
	"strings"
	"time"
)

const (
	// BootGrace is how long after spawn automation waits for a CLI that never
	// shows its ready marker (seed 002: BOOT_GRACE_MS = 35_000).
	BootGrace = 35 * time.Second
	// ClaudeReadySettle is how long Claude Code's ready marker must stay on
	// screen before the first write.
	ClaudeReadySettle = 400 * time.Millisecond
	// CodexReadySettle is the same for Codex.
	CodexReadySettle = 500 * time.Millisecond
	// GeminiReadySettle is the same for Gemini CLI.
	GeminiReadySettle = 500 * time.Millisecond
	// CustomReadyQuiet is how long a custom command must be quiet after its
	// first output to count as ready (docs/design.md §4).
	CustomReadyQuiet = 2 * time.Second
)

// ReadySettled reports whether a ready marker first seen at markerSince has
// stayed long enough: false for a zero markerSince (never seen), else
// now.Sub(markerSince) >= settle.
func ReadySettled(markerSince time.Time, settle time.Duration, now time.Time) bool {
	if markerSince.IsZero() {
		return false
	}
	return now.Sub(markerSince) >= settle
}

// BootGraceOver reports whether the boot gate is open: true when the agent is
// ready, or when the grace has passed since spawned (now.Sub(spawned) >=
// grace; grace <= 0 means BootGrace, the office file's boot_grace sets
// another). A zero spawned time counts as long ago.
func BootGraceOver(spawned time.Time, ready bool, grace time.Duration, now time.Time) bool {
	if grace <= 0 {
		grace = BootGrace
	}
	return ready || now.Sub(spawned) >= grace
}

// MarkerAlternatives separates the alternatives of one ready marker: a
// marker "A || B" shows when A or B does (Claude Code's footer names its
// permission mode in one of several ways).
const MarkerAlternatives = " || "

// MarkerShown reports whether the ready marker m shows on rows: any of its
// alternatives (MarkerAlternatives) does.
func MarkerShown(rows Rows, m string) bool {
	for _, alt := range strings.Split(m, MarkerAlternatives) {
		if ScreenHas(rows, alt) {
			return true
		}
	}
	return false
}

// MarkerTexts returns every alternative of every marker, in order: the
// texts a ready marker may show on screen.
func MarkerTexts(markers []string) []string {
	var out []string
	for _, m := range markers {
		out = append(out, strings.Split(m, MarkerAlternatives)...)
	}
	return out
}
