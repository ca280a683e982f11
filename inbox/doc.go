// Package inbox is office's inbox and mail layer (seeds 000 and 004,
// docs/design.md §5): durable inbox items for each agent and for
// the person, mail envelopes whose state the system owns, notices to an
// agent's parent, the reply gate, the deadline ticker, retention, stall
// bookkeeping and the progress-journal check.
//
// It never writes to a PTY. Senders insert rows; the engine keeps at most one
// "inbox delivery" message per agent in the queue (package queue, Kind
// "inbox"), and this package renders its text at attempt time from the
// agent's pending items, which it leases in the same transaction that stamps
// the attempt (LeaseTx). The transaction that acknowledges the delivery marks
// the items delivered and moves their mail claimed -> working (AckTx). A
// crash between the two leaves the items leased; ReleaseAllLeases at start-up
// puts them back, so they are delivered again (at least once; the ids let the
// agent skip a repeat) and never lost.
//
// Its tables live in the queue's SQLite file (queue.Store.Migrate, component
// "inbox"), and every state change writes its event row (queue's event log,
// plus the mail timeline) in the same transaction.
//
// Order is the integer sequence SQLite assigns (seq), never the ULID's time:
// oklog/ulid is monotonic only within one process, and several processes
// send.
//
// Concurrency: a *Service is safe for concurrent use; several processes may
// hold their own Service on the same file. Time comes from the store's clock
// (queue.Options.Now) for what is written, and from explicit now parameters
// for what the tickers decide, so tests are deterministic.
package inbox
