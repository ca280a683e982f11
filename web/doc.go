// Package web is `office web`: office in a browser, a phone first. It is one
// more client of the state directory's office server (package client, with
// the protocol's subscribe, so it holds only the screens a browser shows),
// never a second brain: answers go through the server's calls, the same
// paths as `office approve`, `office send`, `office pause` and `office
// queue`, so the drain's rules hold for a remote person too.
//
// Nothing listens unless the person asks; what listens authenticates every
// request. A browser pairs once with a one-time token that `office web pair`
// prints (it travels in the URL's fragment, which no server sees, and then
// in one POST body) and gets a session cookie; sessions are stored hashed in
// the state directory (store.go). Every request's Host must be one the
// server accepts and every state-changing request or WebSocket upgrade must
// carry a matching Origin (guard.go). What one browser may cost (body time,
// connections, rates, the keys of one call, keys on a connection of their
// own so a stuck agent holds no other call) is in limits.go. docs/web.md is
// the reader's page.
package web
