// Package cluster makes one office of several hosts (a floor) over NATS
// JetStream, embedded in the office server or an existing NATS system, as
// the office file's [cluster] table says (docs/cluster.md).
//
// Each host's SQLite store stays its source of truth. An item for an agent
// of another host (an `office send` message, a mail) is first stored in
// the sender's outbox (StashTx); the sender's Node publishes it to the
// receiving host's work-queue stream with its ULID as the message id and
// removes it from the outbox only after the stream's acknowledgement,
// retrying until then. The receiving host's Node stores it in its own queue
// or inbox under a unique key on the ULID and acknowledges to JetStream only
// after that commit, so a redelivery stores nothing. Each host's stream and
// roster bucket have one replica, placed on that host's own server: no
// other host needs to be up for a host to take items.
//
// What else crosses the same way: the inbox items of an agent whose
// receiver is on another host (a child's notices to its parent there), the
// state changes of crossed mail back to its sender's host, the cancel of
// crossed mail to its receiver's host (inbox.Remote, plugged in by the Node
// and, for commands run with no server, by Bind), the refusal of an
// item the receiving host can never store, stashed in the transaction that
// records it and acknowledged only after that commit, and `office approve`
// of an agent of another host, typed there by its engine and its outcome
// sent back (Node.Approve).
//
// Each host publishes its agents to its roster bucket and keeps the last
// roster it read of every other host in its store (Lookup, Roster), so a
// send to an agent of a host that is down is accepted and waits.
package cluster
