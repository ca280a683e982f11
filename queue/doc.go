// Package queue is office's durable store: one SQLite file (WAL,
// synchronous=FULL) holding everything that must survive a crash of the
// office and be shared by several processes at once (the engine, `office
// send` from any shell, an agent running `office mail`).
//
// It owns:
//
//   - the agent registry: the roster known to the store (config agents and
//     agents added with `office team add`), with a removed flag;
//   - the pause flags: one per agent and a separate floor-wide flag that also
//     covers agents added later;
//   - the per-agent message queues: messages waiting to be typed into an
//     agent's terminal, in delivery order, with their attempt bookkeeping and
//     the two dedupe rules (at most one pending compaction command and at most
//     one pending inbox delivery per agent);
//   - an append-only event log: every state change writes its event row in the
//     same transaction as the change;
//   - hold reasons: why the live engine is holding each agent's head, so that
//     another process (`office queue`) can show it;
//   - a revision counter ([Store.DataVersion]) bumped by every write
//     transaction, so any process can notice that something changed.
//
// It does not decide when or how to type a message: that is the drain's job.
// It does not render inbox items or mail: those layers enqueue through this
// package and may run their own statements inside its transactions
// ([Store.Update]) and keep their own tables in the same file
// ([Store.Migrate]).
//
// Concurrency: a *Store is safe for concurrent use by many goroutines, and any
// number of processes may open the same file. Every read-modify-write runs in
// a BEGIN IMMEDIATE transaction, so writers serialize on SQLite's write lock
// and no write is lost. Before it, each process takes an exclusive flock on
// the file's "-lock" companion, so writers of many processes take turns
// instead of polling SQLite's lock; a write gives up only after LockTimeout
// (ErrLocked). Within one *Store, every write goes through one committer
// goroutine that runs the writes waiting at the same moment in one
// transaction, each in its own savepoint, and commits them with one fsync
// (group commit). Opening a file whose schema is current, and registering
// agents already registered, only read.
//
// Durability: a method that changes state returns nil only after the commit
// carrying its change is done with synchronous=FULL, that is after the WAL has
// been fsynced. A kill -9 (or a crash of the whole office) right after such a
// return loses nothing.
package queue
