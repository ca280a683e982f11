// Package client is the client side of office's server: it dials a running
// office (its Unix socket, or `office attach --stdio` on another host through
// the user's own ssh), keeps a copy of every agent's screen (or of those it
// subscribed to), the roster and the live state as the server pushes them,
// and sends the person's keys, pane sizes, subscriptions and intents. The
// UI, `office events` and `office wait` are built on it; docs/protocol.md
// describes what travels.
package client
