// Package drain is office's only automated writer into agent terminals.
//
// Messages for an agent wait in the durable queue (package queue) until the
// drain can type them in without touching the person's draft or menu (seed
// 002, docs/design.md §2 and §3). One goroutine, Drainer.Run, makes
// every decision: it wakes on a fixed 200 ms debounce after any store or
// terminal change (Drainer.Wake) and on a 3 s tick, and for each agent with
// pending messages checks its head against the gates in order (not paused
// unless manual; idle, which a starting agent is not until its boot gate
// opens; no block; cooled down; precondition; paste mode). A message that passes is typed by a goroutine of its own agent (at
// most one per agent at a time), so a PTY that blocks never stalls the
// decisions or another agent.
//
// Typing is sanitized text (or one bracketed paste), a pause, then Enter
// alone. Both writes must succeed before the message counts as sent; then the
// prompt row is watched to confirm the submit. A failed write is retried after
// the cooldown and dropped loudly after the third failure. The drain never
// sends Esc, Ctrl-C or Ctrl-U and never types a message into a waiting
// dialog. Each Enter names the message it submits (Agent.PressEnter), so the
// turn it starts is known to be that delivery's.
//
// What becomes of a typed message is decided in one place, classify
// (outcome.go): a pure function of what the delivery observed (the write,
// the submit check's screen, the CLI's records, an exit), whose typed
// outcome settle (settle.go) records. A message held at its agent's head
// and start-up recovery's judgment (Recover) go through it too.
//
// Where the agent's CLI takes a message by its turn-end hook (a channel,
// docs/channels.md), Drainer.Handover hands the head over instead: called
// by the server as the hook runs, it takes the agent's one delivery slot,
// applies the gates less those about the prompt, claims the message in the
// store as a typed attempt is claimed, and returns its text for the hook's
// answer; nothing is written to the PTY. Its confirmation, from the CLI's
// own records, is settled by classify too (handover.go).
//
// The one write into a dialog is an approval (Drainer.Approve, for `office
// approve`): typed through the same per-agent writer, only while the dialog
// it answers (its DialogFingerprint, taken when it was forwarded) is still on
// screen at the pass and immediately before the write; the pause does not
// hold it and it takes no cooldown.
//
// Time comes from a Clock, so tests run in testing/synctest with exact times.
package drain
