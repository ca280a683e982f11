package ui

// pane.go is one agent on screen: its snapshot (taken only when the screen's
// generation moved), the state its title bar and the roster show (read once
// per frame), and the title text.

import (
	"fmt"
	"strings"

	"office/automation"
	"office/pool"
)

// pane is one agent. Only the tea loop touches it.
type pane struct {
	name     string
	profile  string
	term     terminal
	spawnErr error

	snap  pool.Snapshot
	gen   uint64 // generation of snap
	stale bool   // snapshot again whatever the generation (new box)
	box   rect   // whole box including the title row; zero when off screen

	// Read from the terminal once per frame.
	status automation.Status
	exited bool
	code   int
	draft  bool
	picker bool
	modes  pool.Modes // read for the focused pane only (mouse reports)

	title string // rendered title text
}

// read takes the terminal's state; it reports whether anything shown changed.
func (p *pane) read() bool {
	t := p.term
	if t == nil {
		changed := !p.exited
		p.exited, p.status = true, automation.StatusExited
		return changed
	}
	st := t.Status()
	exited, code := t.Exited()
	as := t.AutomationState()
	changed := st != p.status || exited != p.exited || code != p.code || as.Dirty != p.draft || as.PickerLatched != p.picker
	p.status, p.exited, p.code, p.draft, p.picker = st, exited, code, as.Dirty, as.PickerLatched
	return changed
}

// statusText is the status as the person reads it.
func (p *pane) statusText() string {
	switch {
	case p.term == nil:
		return "not started"
	case p.exited:
		return fmt.Sprintf("exited with code %d", p.code)
	case p.status == automation.StatusWaiting:
		return "waiting for you"
	}
	return p.status.String()
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
// draft badge and the queue. When that is wider than w cells the profile is
// left out and the words shortened, so the status and the hold still show.
func (p *pane) titleText(key int, n int, hold string, floorPaused bool, w int) string {
	var b strings.Builder
	b.WriteByte(' ')
	if key > 0 {
		fmt.Fprintf(&b, "%d ", key)
	}
	fmt.Fprintf(&b, "%s · %s · %s", p.name, p.profile, p.statusText())
	if p.draft && !p.exited {
		b.WriteString(" · your draft")
	}
	if q := queueText(n, hold, floorPaused); q != "" {
		b.WriteString(" · ")
		b.WriteString(q)
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
	fmt.Fprintf(&b, "%s %s", p.name, p.shortStatus())
	if p.draft && !p.exited {
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
	b.WriteByte(' ')
	return b.String()
}

// needsAttention reports whether the title should stand out: the agent waits
// for the person, or exited.
func (p *pane) needsAttention() bool {
	return p.exited || p.status == automation.StatusWaiting
}
