// Package ui is office's terminal UI: a Bubble Tea (v2) program that shows
// every agent as a live pane, tiled by count (1, 2, 4, 6, 9, then pages of
// 9), each with a title bar saying its status, the "your draft" badge and
// its queue depth with the reason delivery is held ("2 queued · held: your
// draft").
//
// The UI sees the office only through Office (office.go): plain values (the
// roster, screens by generation, the floor, queue listings) and intents
// (keys, resize, enqueue, pause, release, remove, clear, close picker,
// recover prompt, add agent, restart agent), with changes pushed through
// Watch. The office's server implements it for its clients (package remote,
// over the client library); an Office that is such a client also implements
// Remote: the whole view at once, and the connection's fate (gone: the
// status line says so and prefix s starts the server again; ended: the UI
// quits), and Subscriber: the UI names exactly the agents it draws (the
// page's panes, the zoomed one) whenever that changes, and holds screen
// copies of those only. The UI keeps no copy of queue truth beyond its last
// read.
//
// Drawing is event driven: the focused agent's screen is drawn as soon as it
// changed (changes that arrive meanwhile join the pending one), and so is a
// newly drawn pane's first screen (a page switched to), other panes at most
// 30 times a second, and nothing is drawn while nothing changes.
// Frames go through ultraviolet's cell renderer (the one Bubble Tea v2 uses)
// straight from Update: pane cells are written into its buffer from the
// agents' screens with no allocation per cell, chrome (titles, separators,
// the roster rail, the boxes, the status line) is rendered with lipgloss
// once per change and copied in, the open box is a lipgloss layer over the
// panes. The person's real cursor is the focused agent's cursor: at its
// cell (also when the agent hides it, so an input method composes at the
// caret), visible exactly when the agent shows it, in the shape it asked
// for (DECSCUSR); in office's own text fields it is theirs.
//
// Keys are decoded by Bubble Tea from the outer terminal (which is asked for
// the kitty keyboard protocol and modifyOtherKeys) and encoded again for the
// focused agent's modes (encode.go): the kitty flags it pushed, application
// cursor keys, bracketed paste, else legacy bytes (LegacyNewline for
// Shift/Ctrl/Alt+Enter). The prefix key (Ctrl-] by default) and the key
// after it are office's: arrows or h/j/k/l or a digit move focus, z zooms, m
// opens the composer, q the queue panel, p toggles the floor-wide pause, r
// the roster rail, n the notice list, a the add-agent form, R restarts the
// focused agent (asking first), ? the help, d detaches (the UI exits, the
// server and its agents go on), x asks whether to stop every agent or
// detach. A
// click focuses a pane; mouse reports reach an agent only if it asked for
// them, re-encoded for its mode with pane-relative coordinates.
//
// Colours: agents' colours are downsampled to the outer terminal's profile;
// the chrome uses the 16 ANSI colours chosen for the terminal's background
// (light or dark, asked with OSC 11) and no colour at all under NO_COLOR.
// Notices ring the person's terminal (BEL and OSC 9) without taking focus.
package ui
