// Package pool runs each agent in a pseudo-terminal of its own and keeps what
// office knows about it: a vt10x screen fed by one reader goroutine, one
// serialized writer, the person's keystroke line model, readiness, status and
// exit.
//
// A Terminal is the only way bytes reach an agent. The person's keystrokes go
// through Input, which feeds the line model (the draft and picker of seed 002);
// automated writes go through Write, which does not. Both share one ordered
// write queue served by a goroutine of its own, because a write into a PTY
// whose child is in raw mode blocks once about 18 KB are unread.
//
// Status is not decided here: each Terminal gathers the inputs of the one
// status judge (automation.Judge: the screen, title, OSC state, hook report,
// readiness, turn hold, shell foreground, last output) and keeps its answer.
// It judges again only when an input may have changed (a row the profile
// reads, the title or modes, a hook report, a key, a write) or a deadline of
// the judge is reached, so an idle agent costs no work between deadlines.
// It reads the screen row by row: the Screen records which rows each write
// changed, a read copies only those the profile reads, and the Terminal keeps
// each row's text and its prompt reading until a row they came from changes;
// no read copies the whole screen.
//
// Measured facts this package designs around: every
// PTY is drained continuously; exit shows as EIO, not EOF, and "dead" comes
// from the exit status, never from a write error (a write to a dead child's
// PTY succeeds silently); the master is switched to non-blocking mode so Close
// really interrupts a pending Read and hangs up the child; vt10x is only
// touched under its lock, through Screen, which filters what it cannot parse
// safely. vt10x costs two allocations per rune it parses, so the Screen
// follows the common redraw operations itself and writes vt10x only the cells
// a read changed (batch.go); the screen comes out as vt10x fed the filtered
// stream whole would leave it.
//
// A Screen given a History (CaptureHistory, Options.History) copies every
// line that leaves the top of its main screen into it, with its cells, just
// before vt10x would lose it (docs/history.md says exactly which operations,
// what it costs and the bounds). For a copy-mode view, History.Bounds gives
// the numbers of the lines held (first, total: numbers only grow, so a view
// keeps its place) and History.Rows decodes lines [from, to) into a reused
// slice of cells, one short lock and no allocation per frame;
// SnapshotAfterHistory gives the screen and where it starts in the history
// at one moment.
package pool
