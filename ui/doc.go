// Package ui is office's terminal UI: a Bubble Tea (v1) program that shows
// every agent as a live pane rendered from its pool.Terminal's screen, with a
// title bar saying its status, the "your draft" badge and why its queue is
// held.
//
// Keys are read raw from stdin, as tmux does: every byte goes unchanged to the
// focused pane except the prefix key (Ctrl-] by default), after which one key
// is an office command (x quit, a digit or n/p or arrows to move focus, z
// zoom, ? help). Bubble Tea's own input reader is off (tea.WithInput(nil))
// because it re-encodes keys and cannot hand raw bytes through.
//
// Model/Update/View are kept apart: Update owns every piece of state; View
// only renders from the terminals' snapshots; I/O (PTY resizes, queue reads)
// runs in commands. The person's keystrokes go to pool.Terminal.Input, which
// only enqueues and never blocks.
package ui
