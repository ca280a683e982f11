package web

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"office/client"
	"office/pool"
	"office/wire"
)

// fakeBackend stands in for the office server: it records the calls that
// reach it (the auth rules are the web server's; that a refused request
// reaches nothing is what these tests prove).
type fakeBackend struct {
	mu     sync.Mutex
	calls  []string
	inputs []string
	subs   [][]string
	screen map[string]string
	status map[string]string
	needs  []wire.Need
	watch  func(client.Change)
	// cursor is every screen's cursor (X, Y, Visible; zero: at 0,0 hidden).
	cursor pool.Snapshot
}

func newFake() *fakeBackend {
	return &fakeBackend{screen: map[string]string{"planner": "hello from planner\n  1. Yes\n  2. No"},
		status: map[string]string{"planner": "waiting"}}
}

func (f *fakeBackend) Roster() []wire.Agent {
	return []wire.Agent{{Name: "planner", Profile: "claude"}}
}
func (f *fakeBackend) State() wire.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return wire.State{Agents: []wire.AgentState{{Name: "planner", Status: f.status["planner"], Queued: 2, Hold: "waiting"}},
		Needs: f.needs}
}
func (f *fakeBackend) Screen(agent string, dst *pool.Snapshot) bool {
	f.mu.Lock()
	text, ok := f.screen[agent]
	f.mu.Unlock()
	if !ok {
		return false
	}
	lines := strings.Split(text, "\n")
	dst.Cols, dst.Rows = 40, len(lines)
	f.mu.Lock()
	dst.CursorX, dst.CursorY, dst.CursorVisible = f.cursor.CursorX, f.cursor.CursorY, f.cursor.CursorVisible
	f.mu.Unlock()
	dst.Cells = make([]pool.Cell, dst.Cols*dst.Rows)
	for y, l := range lines {
		for x := 0; x < dst.Cols; x++ {
			c := pool.Cell{Rune: ' ', Width: 1, FG: pool.DefaultFG, BG: pool.DefaultBG}
			if x < len(l) {
				c.Rune = rune(l[x])
			}
			dst.Cells[y*dst.Cols+x] = c
		}
	}
	return true
}
func (f *fakeBackend) Subscribe(agents []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs = append(f.subs, append([]string{}, agents...))
	return nil
}
func (f *fakeBackend) Watch(fn func(client.Change)) func() {
	f.mu.Lock()
	f.watch = fn
	f.mu.Unlock()
	return func() {}
}
func (f *fakeBackend) Call(ctx context.Context, op, agent string, args, out any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	raw, _ := json.Marshal(args)
	f.calls = append(f.calls, op+" "+agent+" "+string(raw))
	if p, ok := out.(*json.RawMessage); ok {
		*p = json.RawMessage(`{"id":7}`)
	}
	return nil
}
func (f *fakeBackend) Input(agent string, p []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs = append(f.inputs, agent+" "+string(p))
	return nil
}
func (f *fakeBackend) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string{}, f.calls...)
}

// clock is a fake clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type rig struct {
	t     *testing.T
	srv   *httptest.Server
	store *Store
	fake  *fakeBackend
	clock *clock
	logs  *bytes.Buffer
	logMu *sync.Mutex
	host  string
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// newRig is a web server on loopback in front of a fake office, with a fake
// clock and its log kept; each opt changes its Config before it starts.
func newRig(t *testing.T, opts ...func(*Config)) *rig {
	t.Helper()
	r := &rig{t: t, fake: newFake(), clock: &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}, logs: &bytes.Buffer{}, logMu: &sync.Mutex{}}
	r.store = &Store{Dir: t.TempDir(), Now: r.clock.Now}
	r.srv = httptest.NewUnstartedServer(nil)
	r.host = r.srv.Listener.Addr().String()
	cfg := Config{Store: r.store, Backend: r.fake, Hosts: []string{r.host}, Now: r.clock.Now,
		Log: slog.New(slog.NewTextHandler(lockedWriter{r.logMu, r.logs}, nil))}
	for _, o := range opts {
		o(&cfg)
	}
	s := New(cfg)
	r.srv.Config.Handler = s.Handler()
	r.srv.Start()
	t.Cleanup(func() { r.srv.Close(); s.Close() })
	return r
}

func (r *rig) origin() string { return "http://" + r.host }

// A test holds a session as a paired page does: the cookie's value and the
// page's key, joined here by a space (pair returns them so; do and wsOpts
// send them as the page does).
func creds(c string) (cookie, key string) {
	cookie, key, _ = strings.Cut(c, " ")
	return cookie, key
}

// wsOpts are a page's WebSocket dial options from origin with the session
// c: the cookie, and the key as a subprotocol beside "office".
func wsOpts(origin, c string) *websocket.DialOptions {
	cookie, key := creds(c)
	o := &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}, Subprotocols: []string{wsProtocol}}
	if cookie != "" {
		o.HTTPHeader.Set("Cookie", cookieName+"="+cookie)
	}
	if key != "" {
		o.Subprotocols = append(o.Subprotocols, keyProtocol+key)
	}
	return o
}

// do sends a request with the page's own Origin (unless hdr says otherwise)
// and the session cookie (cookie and key, as creds splits them).
func (r *rig) do(method, path, body, cookie string, hdr map[string]string) *http.Response {
	r.t.Helper()
	req, err := http.NewRequest(method, r.srv.URL+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Origin", r.origin())
	ck, key := creds(cookie)
	if ck != "" {
		req.AddCookie(&http.Cookie{Name: cookieName, Value: ck})
	}
	if key != "" {
		req.Header.Set(keyHeader, key)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// pair makes a token with caps and redeems it, returning the session's
// cookie value and the page's key (as creds splits them).
func (r *rig) pair(caps ...string) string {
	r.t.Helper()
	tok, err := r.store.Pair(caps, "")
	if err != nil {
		r.t.Fatal(err)
	}
	resp := r.do("POST", "/pair", `{"token":"`+tok+`"}`, "", nil)
	if resp.StatusCode != 200 {
		r.t.Fatalf("pair: %s", resp.Status)
	}
	var body struct{ Key string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Key == "" {
		r.t.Fatalf("pair gave the page no key: %v", err)
	}
	for _, c := range resp.Cookies() {
		if c.Name == cookieName {
			return c.Value + " " + body.Key
		}
	}
	r.t.Fatal("pair set no cookie")
	return ""
}

func TestPairTokenWorksOnce(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	tok, err := r.store.Pair([]string{CapAnswer}, "phone")
	if err != nil {
		t.Fatal(err)
	}
	resp := r.do("POST", "/pair", `{"token":"`+tok+`"}`, "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("first use: %s", resp.Status)
	}
	var ck *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == cookieName {
			ck = c
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Secure {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict, not Secure over http", ck)
	}
	if resp := r.do("POST", "/pair", `{"token":"`+tok+`"}`, "", nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("second use: %s, want 403", resp.Status)
	}
	r.logMu.Lock()
	logs := r.logs.String()
	r.logMu.Unlock()
	if strings.Contains(logs, tok) {
		t.Fatalf("the token reached the log:\n%s", logs)
	}
	raw, _ := readFile(r.store)
	if strings.Contains(raw, tok) || strings.Contains(raw, strings.SplitN(ck.Value, ".", 2)[1]) {
		t.Fatal("web.json holds a secret in the clear")
	}
}

func readFile(s *Store) (string, error) {
	d, err := s.read()
	p, _ := json.Marshal(d)
	return string(p), err
}

func TestPairTokenExpires(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	tok, err := r.store.Pair(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	r.clock.add(PairTTL + time.Second)
	if resp := r.do("POST", "/pair", `{"token":"`+tok+`"}`, "", nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("expired token: %s, want 403", resp.Status)
	}
}

func TestSecureCookieOverHTTPS(t *testing.T) {
	t.Parallel()
	st := &Store{Dir: t.TempDir()}
	s := New(Config{Store: st, Backend: newFake(), Hosts: []string{"office.example:443"}, Secure: true})
	defer s.Close()
	tok, _ := st.Pair(nil, "")
	req := httptest.NewRequest("POST", "https://office.example:443/pair", strings.NewReader(`{"token":"`+tok+`"}`))
	req.Header.Set("Origin", "https://office.example:443")
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	cs := w.Result().Cookies()
	if w.Code != 200 || len(cs) != 1 || !cs[0].Secure {
		t.Fatalf("%d %+v: want a Secure cookie", w.Code, cs)
	}
}

func TestCookieRequired(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	if resp := r.do("GET", "/api/me", "", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no cookie: %s", resp.Status)
	}
	if resp := r.do("GET", "/api/me", "", "nope.nope", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("forged cookie: %s", resp.Status)
	}
	ck := r.pair()
	id, _, _ := strings.Cut(ck, ".")
	_, key := creds(ck)
	if resp := r.do("GET", "/api/me", "", id+".wrongsecret "+key, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("right id, wrong secret: %s", resp.Status)
	}
	if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != 200 {
		t.Fatalf("paired cookie: %s", resp.Status)
	}
}

// TestCookieAloneOpensNothing: a browser sends the session cookie to every
// port of the host, so another server there can replay it; without the
// page's key (kept in the page's own origin's storage) it opens nothing:
// no read, no call, no WebSocket; nor does the key alone, or the key of
// another session with this cookie.
func TestCookieAloneOpensNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair(CapAnswer)
	other := r.pair(CapAnswer)
	cookie, key := creds(ck)
	_, otherKey := creds(other)
	for name, c := range map[string]string{"the cookie alone": cookie, "the key alone": " " + key,
		"the cookie with another session's key": cookie + " " + otherKey} {
		if resp := r.do("GET", "/api/me", "", c, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: GET /api/me %s, want 401", name, resp.Status)
		}
		if resp := r.do("POST", "/api/send", `{"agent":"planner","text":"replayed"}`, c, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: POST /api/send %s, want 401", name, resp.Status)
		}
		if _, resp, err := websocket.Dial(context.Background(), "ws://"+r.host+"/ws", wsOpts(r.origin(), c)); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: WebSocket %v %v, want 401", name, resp, err)
		}
	}
	if c := r.fake.called(); len(c) != 0 {
		t.Fatalf("a replayed cookie reached the office: %v", c)
	}
	if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != 200 {
		t.Fatalf("the cookie with its own key: %s", resp.Status)
	}
	raw, _ := readFile(r.store)
	if strings.Contains(raw, key) {
		t.Fatal("web.json holds the page's key in the clear")
	}
}

func TestBadHostRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair(CapAnswer)
	for _, h := range []string{"evil.example", "evil.example:" + strings.Split(r.host, ":")[1], "localhost:" + strings.Split(r.host, ":")[1]} {
		if resp := r.do("GET", "/api/me", "", ck, map[string]string{"Host": h}); resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: %s, want 421", h, resp.Status)
		}
		if resp := r.do("GET", "/", "", "", map[string]string{"Host": h}); resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("page under Host %s: %s, want 421", h, resp.Status)
		}
	}
	r.logMu.Lock()
	n := strings.Count(r.logs.String(), `Host \"evil.example\"`)
	r.logMu.Unlock()
	if n != 1 {
		t.Errorf("the refusal of Host evil.example was logged %d times, want once", n)
	}
}

func TestLoopbackAnyPortForTheSocket(t *testing.T) {
	t.Parallel()
	s := New(Config{Store: &Store{Dir: t.TempDir()}, Backend: newFake(), LoopbackAnyPort: true})
	defer s.Close()
	for h, want := range map[string]bool{"localhost:8787": true, "127.0.0.1:9": true, "[::1]:80": true, "localhost": true,
		"localhost.evil.example:8787": false, "evil.example": false, "127.0.0.2:8787": false} {
		if got := s.hostAllowed(h); got != want {
			t.Errorf("Host %s: allowed %v, want %v", h, got, want)
		}
	}
}

func TestBadOriginRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair(CapAnswer)
	for _, o := range []string{"http://evil.example", "", "null", "https://" + r.host} {
		resp := r.do("POST", "/api/send", `{"agent":"planner","text":"hi"}`, ck, map[string]string{"Origin": o})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %q: %s, want 403", o, resp.Status)
		}
		resp = r.do("POST", "/pair", `{"token":"x"}`, "", map[string]string{"Origin": o})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("pair with Origin %q: %s, want 403", o, resp.Status)
		}
	}
	if c := r.fake.called(); len(c) != 0 {
		t.Fatalf("a cross-site request reached the office: %v", c)
	}
	// The WebSocket upgrade too.
	_, resp, err := websocket.Dial(context.Background(), "ws://"+r.host+"/ws", wsOpts("http://evil.example", ck))
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("WebSocket from another origin: %v %v, want 403", resp, err)
	}
	// The page's own Origin is accepted.
	if resp := r.do("POST", "/api/send", `{"agent":"planner","text":"hi"}`, ck, nil); resp.StatusCode != 200 {
		t.Fatalf("own origin: %s", resp.Status)
	}
}

func TestExpiredSessionRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair()
	r.clock.add(defLimits.SessionTTL - time.Minute)
	if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != 200 {
		t.Fatalf("before expiry: %s", resp.Status)
	}
	r.clock.add(2 * time.Minute)
	if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("after expiry: %s, want 401", resp.Status)
	}
}

func TestRevokedSessionRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair(CapAnswer)
	other := r.pair()
	id, _, _ := strings.Cut(ck, ".")
	if _, err := r.store.Revoke(id, false); err != nil {
		t.Fatal(err)
	}
	if resp := r.do("POST", "/api/send", `{"agent":"planner","text":"hi"}`, ck, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("revoked: %s, want 401", resp.Status)
	}
	if resp := r.do("GET", "/api/me", "", other, nil); resp.StatusCode != 200 {
		t.Fatalf("another session after revoking one: %s", resp.Status)
	}
	if n, err := r.store.Revoke("", true); err != nil || n != 1 {
		t.Fatalf("revoke --all: %d %v", n, err)
	}
	if resp := r.do("GET", "/api/me", "", other, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("after revoke --all: %s, want 401", resp.Status)
	}
	if _, err := r.store.Revoke("nosuch", false); err == nil {
		t.Fatal("revoking an unknown session: no error")
	}
}

func TestWatchOnlySessionRefusedAnAnswer(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair() // watch only
	for _, c := range []struct{ path, body string }{
		{"/api/approve", `{"agent":"planner","option":"1"}`},
		{"/api/send", `{"agent":"planner","text":"hi"}`},
		{"/api/pause", `{"agent":"planner","paused":true}`},
		{"/api/limit/release", `{"agent":"planner"}`},
		{"/api/queue/release", `{"id":1}`},
		{"/api/queue/rm", `{"id":1}`},
		{"/api/input", `{"agent":"planner","text":"y"}`},
		{"/api/mail/reply", `{"id":"01M8","text":"yes"}`},
	} {
		if resp := r.do("POST", c.path, c.body, ck, nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s, want 403", c.path, resp.Status)
		}
	}
	if resp := r.do("GET", "/api/queue", "", ck, nil); resp.StatusCode != 200 {
		t.Errorf("watching the queue: %s", resp.Status)
	}
	if c := r.fake.called(); len(c) != 1 || !strings.HasPrefix(c[0], "queue.list") {
		t.Fatalf("calls that reached the office: %v, want only queue.list", c)
	}
}

func TestAnswerGoesThroughTheCalls(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair(CapAnswer)
	for _, c := range []struct{ path, body string }{
		{"/api/approve", `{"agent":"planner","option":"1"}`},
		{"/api/send", `{"agent":"planner","text":"run the tests"}`},
		{"/api/pause", `{"agent":"planner","paused":true}`},
		{"/api/pause", `{"agent":"planner","paused":false}`},
		{"/api/limit/release", `{"agent":"planner"}`},
		{"/api/queue/release", `{"id":3}`},
		{"/api/queue/rm", `{"id":4}`},
	} {
		if resp := r.do("POST", c.path, c.body, ck, nil); resp.StatusCode != 200 {
			t.Errorf("%s: %s", c.path, resp.Status)
		}
	}
	want := []string{`approve planner {"agent":"planner","option":"1"}`, `enqueue planner {"source":"web","text":"run the tests"}`,
		"pause planner null", "resume planner null", "limit_release planner null", `queue.release  {"id":3}`, `queue.rm  {"id":4}`}
	if got := r.fake.called(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Resume now names the agent whose account it releases.
	if resp := r.do("POST", "/api/limit/release", `{}`, ck, nil); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("limit release without an agent: %s, want 400", resp.Status)
	}
	// Typing is off unless the pairing asked for it.
	if resp := r.do("POST", "/api/input", `{"agent":"planner","text":"y"}`, ck, nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("input without the type capability: %s", resp.Status)
	}
	typist := r.pair(CapAnswer, CapType)
	if resp := r.do("POST", "/api/input", `{"agent":"planner","text":"y"}`, typist, nil); resp.StatusCode != 200 {
		t.Fatalf("input with the type capability: %s", resp.Status)
	}
}

func TestCallsAreRateLimited(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair(CapAnswer)
	for i := 0; i < defLimits.Calls; i++ {
		if resp := r.do("POST", "/api/pause", `{"agent":"planner","paused":true}`, ck, nil); resp.StatusCode != 200 {
			t.Fatalf("call %d: %s", i, resp.Status)
		}
	}
	if resp := r.do("POST", "/api/pause", `{"agent":"planner","paused":true}`, ck, nil); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("one call too many: %s, want 429", resp.Status)
	}
	r.clock.add(callWindow)
	if resp := r.do("POST", "/api/pause", `{"agent":"planner","paused":true}`, ck, nil); resp.StatusCode != 200 {
		t.Fatalf("next window: %s", resp.Status)
	}
}

func TestBodiesAreBounded(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair(CapAnswer)
	big := `{"agent":"planner","text":"` + strings.Repeat("a", int(requestBound(defLimits.MessageBytes))) + `"}`
	if resp := r.do("POST", "/api/send", big, ck, nil); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: %s, want 413", resp.Status)
	}
	if c := r.fake.called(); len(c) != 0 {
		t.Fatalf("an oversized body reached the office: %d calls", len(c))
	}
}

func TestWebSocketRosterAndScreen(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+r.host+"/ws", wsOpts(r.origin(), ck))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	read := func() map[string]any {
		_, p, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(p, &m)
		return m
	}
	m := read()
	if m["t"] != "roster" || !strings.Contains(func() string { p, _ := json.Marshal(m); return string(p) }(), `"queued":2`) {
		t.Fatalf("first message %v: want the roster with queue depth", m)
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"t":"watch","agent":"planner"}`))
	for m = read(); m["t"] == "needs" || m["t"] == "events"; m = read() {
	}
	if m["t"] != "screen" || !strings.Contains(m["text"].(string), "hello from planner") {
		t.Fatalf("after watch: %v", m)
	}
	if ansi, _ := m["ansi"].(string); !strings.HasPrefix(ansi, "hello from planner\r\n") {
		t.Fatalf("ansi %q: want the rows joined by CR LF for xterm.js", ansi)
	}
	if opts, _ := json.Marshal(m["options"]); string(opts) != `[{"label":"Yes","num":"1"},{"label":"No","num":"2"}]` {
		t.Fatalf("dialog options %s", opts)
	}
	r.fake.mu.Lock()
	subs := r.fake.subs
	r.fake.mu.Unlock()
	if len(subs) == 0 || strings.Join(subs[len(subs)-1], ",") != "planner" {
		t.Fatalf("subscriptions %v: want the shown agent", subs)
	}
	// A revoked session's socket is closed at the next update.
	id, _, _ := strings.Cut(ck, ".")
	r.store.Revoke(id, false)
	r.fake.mu.Lock()
	r.fake.screen["planner"] = "changed"
	w := r.fake.watch
	r.fake.mu.Unlock()
	w(client.Change{Kind: client.ChangeScreen, Agent: "planner"})
	for {
		if _, _, err := c.Read(ctx); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Fatalf("socket of a revoked session ended with %v", err)
			}
			break
		}
	}
}

func TestPageIsServedWithItsGuards(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	for path, want := range map[string]string{"/": "<title>office</title>", "/app.js": "new WebSocket", "/style.css": "pre#screen"} {
		resp := r.do("GET", path, "", "", map[string]string{"Origin": ""})
		buf := new(bytes.Buffer)
		buf.ReadFrom(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(buf.String(), want) {
			t.Errorf("GET %s: %s, body lacks %q", path, resp.Status, want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
	}
}

func TestWebSocketsPerSessionAreBounded(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func(cookie string) (*websocket.Conn, *http.Response, error) {
		return websocket.Dial(ctx, "ws://"+r.host+"/ws", wsOpts(r.origin(), cookie))
	}
	for i := 0; i < maxSocketsPerSession; i++ {
		c, _, err := dial(ck)
		if err != nil {
			t.Fatalf("socket %d: %v", i, err)
		}
		defer c.CloseNow()
		if _, _, err := c.Read(ctx); err != nil { // the roster: it is counted
			t.Fatal(err)
		}
	}
	if _, resp, err := dial(ck); err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("one socket too many: %v %v, want 429", resp, err)
	}
	// Another session is not held back by this one.
	c, _, err := dial(r.pair())
	if err != nil {
		t.Fatalf("another session's socket: %v", err)
	}
	c.CloseNow()
	// Without a cookie: 401, not an upgrade.
	if _, resp, err := websocket.Dial(ctx, "ws://"+r.host+"/ws", &websocket.DialOptions{
		HTTPHeader: http.Header{"Origin": {r.origin()}}}); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("socket without a session: %v %v, want 401", resp, err)
	}
}

// TestPageResumesAUsageLimitThroughItsRoute: the page's needs-you list gives
// an item of the server's usage-limit reason a "resume now" calling the
// route an answer session may call (TestAnswerGoesThroughTheCalls).
func TestPageResumesAUsageLimitThroughItsRoute(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	resp := r.do("GET", "/app.js", "", "", map[string]string{"Origin": ""})
	buf := new(bytes.Buffer)
	buf.ReadFrom(resp.Body)
	for _, want := range []string{`n.reason === "` + wire.NeedUsageLimit + `"`, `"resume now"`, `api("POST", "/api/limit/release", { agent: n.agent })`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("app.js lacks %s", want)
		}
	}
}
