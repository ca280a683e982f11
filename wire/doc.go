// Package wire is office's client protocol: how a client (the UI, `office
// events`, `office wait`, another tool) talks to a running office server over
// its Unix socket, directly or through `office attach --stdio` at the far end
// of an ssh connection.
//
// A connection is a stream of frames, each a 4-byte big-endian length and
// that many bytes of one JSON object whose "t" field names the message. The
// client speaks first with Hello; the server answers Welcome or Refused
// (another protocol version, another user). Then the server pushes the roster,
// the office's state, one full screen per agent and, from then on, only the
// rows that changed (with a scroll count when the screen moved up); the client
// sends keys, its panes' sizes and calls. docs/protocol.md is the reference
// for other implementations.
package wire
