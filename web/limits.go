package web

// limits.go holds the bounds that keep one browser (or one stuck agent) from
// holding the web server for everybody: the size of the keys one call types
// and of a message, the time a request body may take, the connections and
// sockets served at once, the sessions, and the rates of calls and reads.
// They are the office file's web_* settings (Limits).

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"office/client"
	"office/configs"
	"office/queue"
)

// Limits are the web server's bounds a person may tune: the office file's
// web_* rows (configs/settings.go says each one's reason), through
// LimitsOf. A zero field takes its row's default.
type Limits struct {
	// Connections are served at once (above Sockets: a page holds its
	// WebSocket and makes calls beside it); more wait to be accepted.
	Connections int
	// Sockets: WebSockets open at once, every session together.
	Sockets int
	// Sessions live at once (pairing refuses more) and each one's
	// lifetime: the Store's MaxSessions and SessionTTL.
	Sessions   int
	SessionTTL time.Duration
	// Calls (POSTs) and Reads (GETs) of one session per callWindow.
	Calls, Reads int
	// KeysBytes bounds the keys of one /api/input call; a bigger paste is
	// refused whole (413): send it as a message instead.
	KeysBytes int
	// MessageBytes bounds a message or a reply a page sends (at most
	// queue.MaxBody).
	MessageBytes int
	// BodyTimeout bounds the time a request body may take to arrive.
	BodyTimeout time.Duration
	// KeysTimeout bounds a write of keys to the office server on the keys
	// connection (its client.Options.SendTimeout).
	KeysTimeout time.Duration
}

// LimitsOf is the web server's Limits in an office file's settings.
func LimitsOf(s configs.Settings) Limits {
	return Limits{Connections: s.WebConnections, Sockets: s.WebSockets, Sessions: s.WebSessions, SessionTTL: s.WebSessionTTL,
		Calls: s.WebCalls, Reads: s.WebReads, KeysBytes: s.WebKeysBytes, MessageBytes: s.WebMessageBytes,
		BodyTimeout: s.WebBodyTimeout, KeysTimeout: s.WebKeysTimeout}
}

// orDefaults is l with each zero field at its row's default.
func (l Limits) orDefaults() Limits {
	d := LimitsOf(configs.Defaults())
	for _, f := range []struct{ v, def *int }{{&l.Connections, &d.Connections}, {&l.Sockets, &d.Sockets},
		{&l.Sessions, &d.Sessions}, {&l.Calls, &d.Calls}, {&l.Reads, &d.Reads}, {&l.KeysBytes, &d.KeysBytes},
		{&l.MessageBytes, &d.MessageBytes}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	for _, f := range []struct{ v, def *time.Duration }{{&l.SessionTTL, &d.SessionTTL}, {&l.BodyTimeout, &d.BodyTimeout},
		{&l.KeysTimeout, &d.KeysTimeout}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	l.MessageBytes = min(l.MessageBytes, queue.MaxBody)
	return l
}

// requestBound bounds a request body that carries n bytes of text:
// JSON-escaped (at most 6 bytes a byte, for control characters), plus the
// rest of the object.
func requestBound(n int) int64 { return 6*int64(n) + 4096 }

// KeysClient is what the web server's keys connection asks of the office
// server: nothing but to type, each write bounded by l.KeysTimeout.
func KeysClient(l Limits) client.Options {
	return client.Options{Client: "office web keys", SendTimeout: l.orDefaults().KeysTimeout}
}

// WithKeys is b with the person's keys typed over their own connection:
// the office server waits, in that connection's read loop, while an agent's
// input is full, so keys for a stuck agent must not share the connection
// the calls (send, approve) and screens of every page go over.
func WithKeys(b Backend, keys *client.Session) Backend { return keysBackend{b, keys} }

type keysBackend struct {
	Backend
	keys *client.Session
}

func (k keysBackend) Input(agent string, p []byte) error { return k.keys.Conn().Input(agent, p) }

// bodyDeadline gives r's body Limits.BodyTimeout to arrive: a body held
// open for ever would hold its connection.
func (s *Server) bodyDeadline(w http.ResponseWriter) {
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.lim.BodyTimeout))
}

// limitListener accepts at most n connections open at once.
type limitListener struct {
	net.Listener
	sem chan struct{}
}

func limitConns(l net.Listener, n int) net.Listener {
	return &limitListener{Listener: l, sem: make(chan struct{}, n)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// tooLarge answers 413 when err is a body past its bound.
func tooLarge(w http.ResponseWriter, err error) bool {
	var big *http.MaxBytesError
	if !errors.As(err, &big) {
		return false
	}
	jsonError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body past its bound of %d bytes: type a few keys at a time, send a long text as a message", big.Limit))
	return true
}

// rateOf is the window a request of session id counts in and its limit:
// a change per Limits.Calls, a read (a page's WebSocket, its queue list)
// in a window of its own, looser (Limits.Reads).
func (s *Server) rateOf(r *http.Request, id string) (key string, limit int) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return "get " + id, s.lim.Reads
	}
	return id, s.lim.Calls
}

// logWindow starts a new window of logged refusals once callWindow has
// passed since the last began (s.mu held).
func (s *Server) logWindow(now time.Time) {
	if now.Sub(s.loggedAt) >= callWindow || now.Before(s.loggedAt) {
		clear(s.logged)
		s.loggedAt = now
	}
}
