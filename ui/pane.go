package ui

// pane.go is one agent on screen: its last screen copy (taken only when the
// screen's generation moved), the state its title bar and the roster show,
// and the title text.

import (
	"fmt"
	"strings"
	"time"

	"office/automation"
	"office/pool"
	"office/wire"
)

// pane is one agent. Only the tea loop touches it.
type pane struct {
	info  AgentInfo
	snap  Screen
	rows  []uint64 // per row of snap, the generation it was copied at (Office.Screen)
	stale bool     // copy the screen again whatever its generation (new box)
	// graceNoticed: the person was told the agent is past its boot grace.
	graceNoticed bool
	// What of snap the frame holds: its generation, in which frame epoch,
	// in which rectangle.
	drawnGen   uint64
	drawnEpoch uint64
	drawnBody  rect
	drawnTop   int       // the first row of snap drawn (viewTop)
	drawnRows  []uint64  // rows as the frame drew them: only rows that moved since are compared
	box        rect      // whole box including the title row; zero when off screen
	cm         *copyMode // copy mode (copymode.go); nil: the agent's screen is shown

	titleC cached
	titleK titleKey
	waitC  cached
	sep    placed // the separator to the pane's left
}

// starting reports whether the agent is still starting.
func (p *pane) starting() bool {
	return p.info.SpawnErr == "" && !p.info.Exited && p.info.Status == wire.StatusStarting
}

// restartPending reports whether the agent exited and its restart waits.
func (p *pane) restartPending() bool {
	return p.info.Exited && !p.info.RestartAt.IsZero()
}

// restartIn is how long until a pending restart, to the nearest second (0
// once it is due).
func (p *pane) restartIn(now time.Time) time.Duration {
	return max(p.info.RestartAt.Sub(now), 0).Round(time.Second)
}

// statusText is the status as the person reads it.
func (p *pane) statusText(now time.Time) string {
	switch {
	case p.info.SpawnErr != "":
		return "not started"
	case p.restartPending():
		if d := p.restartIn(now); d > 0 {
			return fmt.Sprintf("exited with code %d, restarting in %s", p.info.ExitCode, d)
		}
		return fmt.Sprintf("exited with code %d, restarting now", p.info.ExitCode)
	case p.info.Exited:
		return fmt.Sprintf("exited with code %d", p.info.ExitCode)
	case p.info.Status == wire.StatusWaiting:
		return "waiting for you"
	case p.limited():
		return p.limitText(now)
	case p.info.Status == wire.StatusUnreachable:
		return "host " + p.info.Host + " unreachable, retrying"
	}
	return p.info.Status
}

// limited reports whether the agent is held on a usage limit
// (docs/limits.md).
func (p *pane) limited() bool {
	return !p.info.Exited && p.info.SpawnErr == "" && p.info.Status == wire.StatusLimited
}

// limitText is a usage-limited agent's status: "usage limit, resets 22:00
// (in 3h12m)", the time in the zone the CLI printed it in.
func (p *pane) limitText(now time.Time) string {
	if p.info.LimitAt.IsZero() {
		return p.info.Status
	}
	h := automation.LimitHold{Reset: p.info.LimitAt}
	if p.info.LimitRetry {
		h = automation.LimitHold{Until: p.info.LimitAt}
	}
	return p.info.Status + ", " + h.Describe(now)
}

// waitingFor says what a starting agent is waited for, and since when:
// "waiting for “? for shortcuts” · 4s" or, past the boot grace, that it has
// not shown its prompt.
func (p *pane) waitingFor(now time.Time) string {
	if !p.starting() {
		return ""
	}
	d := now.Sub(p.info.Started).Truncate(time.Second)
	if d < 0 {
		d = 0
	}
	what := "its first output and a quiet spell"
	if len(p.info.ReadyMarkers) > 0 {
		what = "“" + strings.Join(p.info.ReadyMarkers, "” and “") + "”"
	}
	if p.info.BootGrace > 0 && d >= p.info.BootGrace {
		return fmt.Sprintf("no prompt after %s (waited for %s); its screen is above", d, what)
	}
	return fmt.Sprintf("waiting for %s · %s", what, d)
}

// queueText is the queue part of a title: "2 queued · held: your draft",
// "paused" when the floor is paused and nothing is queued, "" otherwise.
func queueText(n int, hold string, floorPaused bool) string {
	switch {
	case n > 0 && hold != "":
		return fmt.Sprintf("%d queued · held: %s", n, hold)
	case n > 0:
		return fmt.Sprintf("%d queued", n)
	case floorPaused:
		return "paused"
	}
	return ""
}

// titleText is a pane's title bar: key number, name, profile, status, the
// draft badge, the queue and, while starting, what office waits for. When
// that is wider than w cells the profile is left out and the words
// shortened, so the status and the hold still show.
func (p *pane) titleText(key int, n int, hold string, floorPaused bool, w int, now time.Time) string {
	var b strings.Builder
	b.WriteByte(' ')
	if key > 0 {
		fmt.Fprintf(&b, "%d ", key)
	}
	fmt.Fprintf(&b, "%s · %s · %s", p.info.Name, p.info.Profile, p.statusText(now))
	if p.info.Draft && !p.info.Exited {
		b.WriteString(" · your draft")
	}
	if q := queueText(n, hold, floorPaused); q != "" {
		b.WriteString(" · ")
		b.WriteString(q)
	}
	if p.starting() {
		fmt.Fprintf(&b, " %s", max(now.Sub(p.info.Started).Truncate(time.Second), 0))
	}
	b.WriteByte(' ')
	if w <= 0 || stringCells(b.String()) <= w {
		return b.String()
	}
	b.Reset()
	b.WriteByte(' ')
	if key > 0 {
		fmt.Fprintf(&b, "%d ", key)
	}
	fmt.Fprintf(&b, "%s %s", p.info.Name, p.shortStatus())
	if p.info.Draft && !p.info.Exited {
		b.WriteString(" draft")
	}
	switch {
	case n > 0 && hold != "":
		fmt.Fprintf(&b, " %dq %s", n, hold)
	case n > 0:
		fmt.Fprintf(&b, " %dq", n)
	case floorPaused:
		b.WriteString(" paused")
	}
	if p.starting() {
		d := now.Sub(p.info.Started).Truncate(time.Second)
		fmt.Fprintf(&b, " %s", max(d, 0))
	}
	b.WriteByte(' ')
	return b.String()
}

// needsAttention reports whether the title should stand out: the agent waits
// for the person, or exited.
func (p *pane) needsAttention() bool {
	return p.info.Exited || p.info.SpawnErr != "" || p.info.Status == wire.StatusWaiting || p.info.Status == wire.StatusUnreachable
}

// viewTop is the first row of the agent's screen that a body of h rows
// shows. A screen that fits shows from its top. A taller one (another,
// larger window decides the agent's size: docs/commands.md, "Several windows") shows
// the rows that keep the cursor in view, as tmux pans a smaller client's
// view: from the top while the cursor is among the first h rows, else down
// to the cursor's row or, when they fit with it, to the last row with text
// below it (a CLI's prompt box and footer under the caret).
func (p *pane) viewTop(h int) int {
	s := &p.snap
	if h <= 0 || s.Rows <= h || s.Cols <= 0 || s.CursorY < h {
		return 0
	}
	cy := min(s.CursorY, s.Rows-1)
	bottom := cy
	for y := min(s.Rows-1, cy+h-1); y > cy; y-- {
		if (y+1)*s.Cols <= len(s.Cells) && !blankRow(s.Cells[y*s.Cols:(y+1)*s.Cols]) {
			bottom = y
			break
		}
	}
	return max(min(bottom-h+1, s.Rows-h), 0)
}

// blankRow reports whether a row shows nothing but spaces.
func blankRow(row []pool.Cell) bool {
	for i := range row {
		if r := row[i].Rune; r != 0 && r != ' ' {
			return false
		}
	}
	return true
}
