// Package engine is one running office: it owns the state directory's lock,
// the durable store, one pool.Terminal per agent, the single drain, and the
// table of calls its server (package server, on the Unix socket through
// which other office processes reach it) answers.
//
// There is only ever one engine per state directory (docs/design.md §6): Open takes
// an exclusive lock and fails with *LockedError naming the holder's pid, so
// there is only ever one drain typing into an agent. Commands that only store
// (send, pause, queue edits) write the SQLite file themselves and then Poke the
// socket; what a poke wakes is the one list in wake.go (the drain among
// them), and every terminal change wakes the drain too.
package engine
