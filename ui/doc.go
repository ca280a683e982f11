// Package ui is office's terminal UI: a Bubble Tea (v1) program that shows
// every agent as a live pane rendered from its pool.Terminal's screen, tiled
// by count (1, 2, 4, 6, 9, then pages of 9), each with a title bar saying its
// status, the "your draft" badge and its queue depth with the reason delivery
// is held ("2 queued · held: your draft").
//
// Keys are read raw from stdin, as tmux does: every byte goes unchanged to the
// focused pane (cursor keys rewritten for an agent in application-cursor
// mode, paste markers dropped for one without bracketed paste) except the
// prefix key (Ctrl-] by default) and the key after it: arrows or h/j/k/l or a
// digit move focus, z zooms, m opens the composer, q the queue panel, p
// toggles the floor-wide pause, r the roster rail, n the notice list, ? the
// help, x quits after a question. Bubble Tea's own input reader is off
// (tea.WithInput(nil)) because it re-encodes keys and cannot hand raw bytes
// through. Mouse reporting (SGR) is turned on in the person's terminal: a
// click focuses a pane, and reports reach an agent only if it asked for them,
// re-encoded for its mode with pane-relative coordinates.
//
// Model/Update/View are kept apart: Update owns every piece of state; a
// 30 fps frame tick snapshots only the visible screens whose generation
// moved; View renders from those snapshots into one reused buffer with no
// allocation per cell. The store and the PTYs are touched only in commands
// (commands.go): the composer and the queue panel send intents (enqueue,
// release, remove, clear, pause) through the same queue as `office send` and
// never type into a PTY; the UI keeps no copy of queue truth beyond its last
// read. The person's keystrokes go to pool.Terminal.Input, which only
// enqueues and never blocks.
//
// Notices (drops, exits, agents waiting for the person, the inbox layer's
// notices from the event log) go to a notice list and ring the person's
// terminal (BEL and OSC 9) without taking focus.
package ui
