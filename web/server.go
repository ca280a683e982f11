package web

// server.go is the HTTP side: the page, the pairing exchange, the JSON calls
// and the one WebSocket a page holds. Every request passes guard (Host,
// Origin, session, capability) before any handler runs.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"office/client"
	"office/pool"

	"office/wire"
)

// Bounds of what a browser may send and hold; the ones a person may tune
// are Limits (the office file's web_* settings).
const (
	// maxSocketsPerSession bounds one session's WebSockets (a page holds
	// one; a few tabs of one phone); Limits.Sockets bounds them all.
	maxSocketsPerSession = 4
	// maxWSMessage bounds a message a page sends on its WebSocket (a
	// watch request names one agent).
	maxWSMessage = 4096
	// pairAttemptsPerWindow pairings per callWindow for the whole server
	// (tokens are 192 bits: this only keeps a guesser from costing the
	// disk); Limits.Calls and Limits.Reads count in the same window.
	pairAttemptsPerWindow = 10
	callWindow            = 10 * time.Second
	// framePace: a page gets at most one update per framePace (a phone
	// draws no faster; states in between are skipped, the latest is sent).
	framePace = 100 * time.Millisecond
	// writeTimeout: a page that does not take an update within it is
	// dropped (it reconnects by itself).
	writeTimeout = 10 * time.Second
	// callTimeout bounds one call to the office server.
	callTimeout = 15 * time.Second
	// maxLogged distinct refusals are logged (each once), then no more.
	maxLogged = 64
	// cookieName is the session cookie.
	cookieName = "office_web"
	// keyHeader carries the page's key on every request but the
	// WebSocket's, which carries it as a subprotocol (keyProtocol+KEY)
	// beside wsProtocol: a browser's WebSocket sets no other header.
	keyHeader   = "X-Office-Key"
	keyProtocol = "office-key."
	wsProtocol  = "office"
)

// Backend is what the web server needs of the office server: a
// client.Session (SessionBackend) in production.
type Backend interface {
	Roster() []wire.Agent
	State() wire.State
	Screen(agent string, dst *pool.Snapshot) bool
	Subscribe(agents []string) error
	Watch(fn func(client.Change)) (stop func())
	Call(ctx context.Context, op, agent string, args, out any) error
	Input(agent string, p []byte) error
}

// SessionBackend is a client.Session as a Backend.
func SessionBackend(s *client.Session) Backend { return sessionBackend{s} }

type sessionBackend struct{ s *client.Session }

func (b sessionBackend) Roster() []wire.Agent { return b.s.Conn().Roster() }
func (b sessionBackend) State() wire.State    { return b.s.Conn().State() }
func (b sessionBackend) Screen(agent string, dst *pool.Snapshot) bool {
	return b.s.Conn().Screen(agent, dst)
}
func (b sessionBackend) Subscribe(agents []string) error     { return b.s.Subscribe(agents) }
func (b sessionBackend) Watch(fn func(client.Change)) func() { return b.s.Watch(fn) }
func (b sessionBackend) Input(agent string, p []byte) error  { return b.s.Conn().Input(agent, p) }
func (b sessionBackend) Call(ctx context.Context, op, agent string, args, out any) error {
	return b.s.Conn().Call(ctx, op, agent, args, out)
}

// Config configures a Server.
type Config struct {
	Store   *Store
	Backend Backend
	// Hosts are the Host header values accepted exactly ("127.0.0.1:8787").
	Hosts []string
	// LoopbackAnyPort also accepts localhost, 127.0.0.1 and [::1] with any
	// port (the Unix socket, reached through the person's own tunnel).
	LoopbackAnyPort bool
	// Secure: served over https (the cookie is Secure, Origins are https).
	Secure bool
	Log    *slog.Logger
	Now    func() time.Time
	// Mail is the office's mail and the person's inbox (nil: the page has
	// none): SessionMail in production.
	Mail Mail
	// FramePace overrides framePace (tests; 0: framePace).
	FramePace time.Duration
	// Limits are the bounds a person may tune (LimitsOf the office
	// file's settings; a zero field: its default). Its Sessions and
	// SessionTTL govern Store's pairings unless Store sets its own.
	Limits Limits
}

// Server is the web server of one office.
type Server struct {
	cfg    Config
	lim    Limits
	log    *slog.Logger
	static fs.FS

	mu       sync.Mutex
	logged   map[string]bool
	loggedAt time.Time          // when the window of logged began
	calls    map[string]*window // by session id
	pairs    window
	sockets  map[string]int // open WebSockets by session id
	nsockets int
	watching map[string]int // agents shown by some page, with how many
	kicks    map[chan struct{}]bool
	events   []eventRow // the newest maxEvents, oldest first
	eventGen int        // counts the events seen, for each page to tell new ones
	subMu    sync.Mutex

	stop func()
}

// window counts events in a fixed window of callWindow.
type window struct {
	start time.Time
	n     int
}

func (w *window) allow(now time.Time, limit int) bool {
	if now.Sub(w.start) >= callWindow || now.Before(w.start) {
		w.start, w.n = now, 0
	}
	if w.n >= limit {
		return false
	}
	w.n++
	return true
}

// New makes a server; Close stops watching the backend.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FramePace <= 0 {
		cfg.FramePace = framePace
	}
	lim := cfg.Limits.orDefaults()
	if cfg.Store.MaxSessions <= 0 {
		cfg.Store.MaxSessions = lim.Sessions
	}
	if cfg.Store.SessionTTL <= 0 {
		cfg.Store.SessionTTL = lim.SessionTTL
	}
	s := &Server{cfg: cfg, lim: lim, log: cfg.Log, static: staticFS(), logged: map[string]bool{}, calls: map[string]*window{},
		sockets: map[string]int{}, watching: map[string]int{}, kicks: map[chan struct{}]bool{}}
	s.stop = cfg.Backend.Watch(func(ch client.Change) {
		if ch.Kind == client.ChangeEvent {
			s.addEvent(ch.Event)
		}
		s.kickAll()
	})
	return s
}

// Close stops the server's watch of the backend.
func (s *Server) Close() { s.stop() }

func (s *Server) kickAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.kicks {
		select {
		case k <- struct{}{}:
		default:
		}
	}
}

// Handler returns the server's handler: every route behind the guard.
func (s *Server) Handler() http.Handler {
	m := http.NewServeMux()
	m.Handle("GET /", http.FileServerFS(s.static))
	m.HandleFunc("POST /pair", s.handlePair)
	m.HandleFunc("POST /logout", s.need(CapWatch, s.handleLogout))
	m.HandleFunc("GET /api/me", s.need(CapWatch, s.handleMe))
	m.HandleFunc("GET /api/queue", s.need(CapWatch, s.handleQueue))
	m.HandleFunc("GET /ws", s.need(CapWatch, s.handleWS))
	m.HandleFunc("POST /api/approve", s.need(CapAnswer, s.handleApprove))
	m.HandleFunc("POST /api/send", s.need(CapAnswer, s.handleSend))
	m.HandleFunc("POST /api/pause", s.need(CapAnswer, s.handlePause))
	m.HandleFunc("POST /api/limit/release", s.need(CapAnswer, s.handleLimitRelease))
	m.HandleFunc("POST /api/queue/release", s.need(CapAnswer, s.handleQueueEdit("queue.release")))
	m.HandleFunc("POST /api/queue/rm", s.need(CapAnswer, s.handleQueueEdit("queue.rm")))
	m.HandleFunc("POST /api/input", s.need(CapType, s.handleInput))
	m.HandleFunc("GET /api/inbox", s.need(CapWatch, s.handleInbox))
	m.HandleFunc("POST /api/mail/reply", s.need(CapAnswer, s.handleReply))
	m.HandleFunc("GET /api/mail", s.need(CapWatch, s.handleMailList))
	m.HandleFunc("GET /api/mail/show", s.need(CapWatch, s.handleMailShow))
	return s.guard(m)
}

// session is the request's session, set by need.
type ctxKey struct{}

func sessionOf(r *http.Request) Session { return r.Context().Value(ctxKey{}).(Session) }

// need wraps h: the request must carry a live session with capability c,
// and a call must be within the session's rate.
func (s *Server) need(c string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cookie, key := credentials(r)
		if cookie == "" || key == "" {
			jsonError(w, http.StatusUnauthorized, "not paired: run `office web pair` and open the URL it prints")
			return
		}
		ss, ok := s.cfg.Store.Check(cookie, key)
		if !ok {
			jsonError(w, http.StatusUnauthorized, "this session expired or was revoked: pair again with `office web pair`")
			return
		}
		if !ss.Can(c) {
			s.refuse("capability "+c+" of session "+ss.ID, r)
			jsonError(w, http.StatusForbidden, "this session may not "+c+" (pair with the capability to)")
			return
		}
		if key, limit := s.rateOf(r, ss.ID); limit > 0 {
			s.mu.Lock()
			win := s.calls[key]
			if win == nil {
				if len(s.calls) >= s.lim.Sessions*4 { // a window of calls and one of reads a session
					clear(s.calls)
				}
				win = &window{}
				s.calls[key] = win
			}
			ok := win.allow(s.cfg.Now(), limit)
			s.mu.Unlock()
			if !ok {
				jsonError(w, http.StatusTooManyRequests, "too many calls: wait a few seconds")
				return
			}
		}
		h(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, ss)))
	}
}

// credentials are what r carries of a session: the cookie's value and the
// page's key (its header, or on a WebSocket upgrade its subprotocol). The
// browser sends the cookie to every port of the host; the key only the
// page sends, from its own origin's storage.
func credentials(r *http.Request) (cookie, key string) {
	if ck, err := r.Cookie(cookieName); err == nil {
		cookie = ck.Value
	}
	key = r.Header.Get(keyHeader)
	if key == "" && strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
			for _, p := range strings.Split(h, ",") {
				if k, ok := strings.CutPrefix(strings.TrimSpace(p), keyProtocol); ok {
					key = k
				}
			}
		}
	}
	return cookie, key
}

func jsonError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

// decode reads a bounded JSON body into v.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	s.bodyDeadline(w)
	r.Body = http.MaxBytesReader(w, r.Body, requestBound(s.lim.MessageBytes))
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		if tooLarge(w, err) {
			return false
		}
		jsonError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return false
	}
	return true
}

func (s *Server) handlePair(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Token string `json:"token"`
	}
	if !s.decode(w, r, &body) {
		return
	}
	// Counted once the body is in: a body held back costs no attempt.
	s.mu.Lock()
	ok := s.pairs.allow(s.cfg.Now(), pairAttemptsPerWindow)
	s.mu.Unlock()
	if !ok {
		jsonError(w, http.StatusTooManyRequests, "too many pairing attempts: wait a few seconds")
		return
	}
	ss, cookie, key, err := s.cfg.Store.Redeem(body.Token)
	if errors.Is(err, ErrBadToken) {
		s.refuse("a pairing: its token is unknown, used or expired", r)
		jsonError(w, http.StatusForbidden, "this pairing token is unknown, used or expired: run `office web pair` again")
		return
	}
	if err != nil {
		jsonError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	s.log.Info("web: a browser paired", "session", ss.ID, "caps", ss.Caps)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: cookie, Path: "/", Expires: ss.Expires, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.cfg.Secure})
	// The key goes to the page alone, in this answer to its own POST; it
	// keeps it in its origin's storage, which no other port's page reads.
	writeJSON(w, map[string]any{"id": ss.ID, "caps": ss.Caps, "expires": ss.Expires, "key": key})
}

func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	ss := sessionOf(r)
	if _, err := s.cfg.Store.Revoke(ss.ID, false); err != nil {
		jsonError(w, http.StatusInternalServerError, err.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.cfg.Secure})
	writeJSON(w, map[string]any{})
}

func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) {
	ss := sessionOf(r)
	writeJSON(w, map[string]any{"id": ss.ID, "caps": ss.Caps, "expires": ss.Expires})
}

// call runs op on the office server and answers with its result.
func (s *Server) call(w http.ResponseWriter, r *http.Request, op, agent string, args any) {
	ctx, cancel := context.WithTimeout(r.Context(), callTimeout)
	defer cancel()
	var out json.RawMessage
	if err := s.cfg.Backend.Call(ctx, op, agent, args, &out); err != nil {
		msg := err.Error()
		var ce *client.CallError
		if errors.As(err, &ce) {
			msg = ce.PersonMessage()
		}
		jsonError(w, http.StatusBadRequest, msg)
		return
	}
	if len(out) == 0 {
		out = json.RawMessage("{}")
	}
	writeJSON(w, out)
}

func (s *Server) handleQueue(w http.ResponseWriter, r *http.Request) {
	s.call(w, r, "queue.list", r.URL.Query().Get("agent"), nil)
}

func (s *Server) handleApprove(w http.ResponseWriter, r *http.Request) {
	var b struct{ Agent, Option string }
	if !s.decode(w, r, &b) {
		return
	}
	if b.Agent == "" || b.Option == "" {
		jsonError(w, http.StatusBadRequest, "approve needs an agent and an option")
		return
	}
	// By "": the person, as `office approve` from a terminal.
	s.log.Info("web: approve", "session", sessionOf(r).ID, "agent", b.Agent, "option", b.Option)
	s.call(w, r, "approve", b.Agent, map[string]string{"agent": b.Agent, "option": b.Option})
}

func (s *Server) handleSend(w http.ResponseWriter, r *http.Request) {
	var b struct{ Agent, Text string }
	if !s.decode(w, r, &b) {
		return
	}
	if b.Agent == "" || len(b.Text) == 0 || len(b.Text) > s.lim.MessageBytes {
		jsonError(w, http.StatusBadRequest, fmt.Sprintf("send needs an agent and a message of 1 to %d bytes (web_message_bytes)", s.lim.MessageBytes))
		return
	}
	s.call(w, r, "enqueue", b.Agent, map[string]string{"text": b.Text, "source": "web"})
}

func (s *Server) handlePause(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Agent  string
		Paused bool
	}
	if !s.decode(w, r, &b) {
		return
	}
	op := "resume"
	if b.Paused {
		op = "pause"
	}
	s.call(w, r, op, b.Agent, nil)
}

// handleLimitRelease ends the usage-limit hold of the agent's account
// early, as `office resume AGENT` does (docs/limits.md); it answers with
// the agents released.
func (s *Server) handleLimitRelease(w http.ResponseWriter, r *http.Request) {
	var b struct{ Agent string }
	if !s.decode(w, r, &b) {
		return
	}
	if b.Agent == "" {
		jsonError(w, http.StatusBadRequest, "resume now needs an agent")
		return
	}
	s.log.Info("web: limit release", "session", sessionOf(r).ID, "agent", b.Agent)
	s.call(w, r, wire.OpLimitRelease.Name, b.Agent, nil)
}

func (s *Server) handleQueueEdit(op string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var b struct{ ID int64 }
		if !s.decode(w, r, &b) {
			return
		}
		if b.ID <= 0 {
			jsonError(w, http.StatusBadRequest, "give the message's id")
			return
		}
		s.call(w, r, op, "", map[string]int64{"id": b.ID})
	}
}

func (s *Server) handleInput(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, requestBound(s.lim.KeysBytes))
	var b struct{ Agent, Text string }
	if !s.decode(w, r, &b) {
		return
	}
	if b.Agent == "" || b.Text == "" {
		jsonError(w, http.StatusBadRequest, "input needs an agent and keys")
		return
	}
	if len(b.Text) > s.lim.KeysBytes {
		jsonError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%d bytes of keys at once, more than the %d a call types (web_keys_bytes): send a long text as a message", len(b.Text), s.lim.KeysBytes))
		return
	}
	if err := s.cfg.Backend.Input(b.Agent, []byte(b.Text)); err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, map[string]any{})
}

// watch changes the count of pages showing agent by d and subscribes the
// backend to the agents some page shows.
func (s *Server) watch(agent string, d int) {
	if agent == "" {
		return
	}
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.mu.Lock()
	s.watching[agent] += d
	if s.watching[agent] <= 0 {
		delete(s.watching, agent)
	}
	names := make([]string, 0, len(s.watching))
	for a := range s.watching {
		names = append(names, a)
	}
	s.mu.Unlock()
	sort.Strings(names)
	if err := s.cfg.Backend.Subscribe(names); err != nil {
		s.log.Warn("web: subscribe", "err", err)
	}
}
