// Package server is the office's server: the clients' Unix socket
// (wire.SocketFile, mode 0600, never TCP; a peer of another uid is refused),
// one session per attached client (the UI, `office events`, `office wait`,
// `office attach --stdio`, a command's one call) speaking the wire protocol
// (docs/protocol.md), and the table of calls (Ops: Register, Handle) whose
// names, arguments and answers wire/ops.go declares.
//
// It serves an Office: the engine gives it the roster, the state, the
// store's event log and its table of calls (engine/serve.go), and tells it
// of terminal changes (TerminalEvent), live events (AddLive) and store
// changes (Poke). It imports neither the engine nor the store.
package server
