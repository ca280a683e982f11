package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/creack/pty"

	"office/test/testbin"
	"office/web"
)

func TestWebRefusesAnOpenAddressWithoutTLS(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	for _, a := range []string{"0.0.0.0:8787", "localhost:8787", "nonsense"} {
		r := o.cmd("", "web", "--listen", a)
		if r.code != 2 || !strings.Contains(r.stderr, "--listen") {
			t.Errorf("office web --listen %s: exit %d %q, want 2 naming --listen", a, r.code, r.stderr)
		}
	}
	if r := o.cmd("", "web", "pair", "--watch-only", "--type"); r.code != 2 {
		t.Errorf("pair --watch-only --type: exit %d", r.code)
	}
	if r := o.cmd("", "web", "revoke"); r.code != 2 {
		t.Errorf("revoke with neither ID nor --all: exit %d", r.code)
	}
	if r := o.cmd("", "web", "revoke", "nosuch"); r.code != 2 || !strings.Contains(r.stderr, "no session") {
		t.Errorf("revoke an unknown session: exit %d %q", r.code, r.stderr)
	}
}

// webOffice is an office of one fake agent (a Claude Code stand-in that asks
// a permission dialog before every turn), served in this process, and
// `office web` on loopback TCP in front of it; it returns the page's base
// URL and the fake agent's log.
func webOffice(t *testing.T) (o *testOffice, base, agentLog string) {
	t.Helper()
	bins, err := testbin.Build(t.TempDir(), "office/test/fakeagent")
	if err != nil {
		t.Fatal(err)
	}
	o = newTestOffice(t)
	agentLog = filepath.Join(t.TempDir(), "a1.jsonl")
	body := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"a1\"\nprofile = \"claude\"\ncommand = [%q, \"--log\", %q, \"--permission\", \"--busy\", \"100ms\", \"--hook-evidence\"]\n\n[[agent]]\nname = \"b2\"\ncommand = [\"cat\"]\n", bins["fakeagent"], agentLog)
	if err := os.WriteFile(o.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o.env["LANG"], o.env["TERM"] = "C.UTF-8", "xterm-256color"
	o.bin = "" // the fake Claude writes its hook records itself: its deliveries are confirmed
	o.serve()
	return o, runWebServer(t, o), agentLog
}

// runWebServer runs `office web --listen 127.0.0.1:0` in this process in
// front of o's server until the test ends and returns the page's base URL
// (no trailing slash). At the end it checks office web ended cleanly and
// no pairing URL reached its log.
func runWebServer(t *testing.T, o *testOffice) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	werr := &lockedBuffer{}
	go func() {
		e := &env{stdin: strings.NewReader(""), stdout: new(bytes.Buffer), stderr: werr,
			getenv: func(k string) string { return o.env[k] }, bin: "office"}
		done <- run(ctx, e, []string{"web", "--listen", "127.0.0.1:0", "--config", o.config, "--state", o.state})
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("office web ended with %d: %s", code, werr.String())
		}
		if got := (&web.Store{Dir: o.state}).Listen(); got != "" {
			t.Errorf("web.json still says office web listens on %s", got)
		}
		if strings.Contains(werr.String(), "#pair=") {
			t.Error("a pairing URL reached office web's log")
		}
	})
	return waitWebListens(t, o, werr)
}

// waitWebListens waits for web.json to say where the web server listens and
// returns that base URL (log: the server's log, shown when it does not).
func waitWebListens(t *testing.T, o *testOffice, log fmt.Stringer) string {
	t.Helper()
	st := &web.Store{Dir: o.state}
	deadline := time.Now().Add(20 * time.Second)
	for st.Listen() == "" {
		if time.Now().After(deadline) {
			t.Fatalf("office web did not listen within 20 s: %s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return strings.TrimSuffix(st.Listen(), "/")
}

// webPage is a browser paired with office web, as the page holds it: the
// session cookie and the page's key, sent on every request as the page
// sends them.
type webPage struct {
	t                 testing.TB
	base, cookie, key string
	http              *http.Client
}

// pairPage pairs a page with `office web pair ARGS...`, exchanging the
// printed token as the page does.
func pairPage(t *testing.T, o *testOffice, base string, args ...string) *webPage {
	t.Helper()
	r := o.cmd("", append([]string{"web", "pair"}, args...)...)
	m := regexp.MustCompile(`#pair=([A-Za-z0-9_-]+)`).FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil || !strings.Contains(r.stdout, base+"/#pair=") {
		t.Fatalf("office web pair: exit %d %q", r.code, r.stdout)
	}
	return redeemPage(t, base, m[1])
}

// redeemPage exchanges pairing token tok for a page's session.
func redeemPage(t testing.TB, base, tok string) *webPage {
	t.Helper()
	p := &webPage{t: t, base: base, http: &http.Client{Timeout: 60 * time.Second}}
	resp := p.post("/pair", `{"token":"`+tok+`"}`)
	var body struct{ Key string }
	json.NewDecoder(resp.Body).Decode(&body)
	for _, c := range resp.Cookies() {
		p.cookie = c.Value
	}
	if resp.StatusCode != 200 || p.cookie == "" || body.Key == "" {
		t.Fatalf("pairing: %s (cookie %v, key %v)", resp.Status, p.cookie != "", body.Key != "")
	}
	p.key = body.Key
	return p
}

// do sends a request with the page's Origin, cookie and key.
func (p *webPage) do(method, path, body string) *http.Response {
	p.t.Helper()
	req, _ := http.NewRequest(method, p.base+path, strings.NewReader(body))
	req.Header.Set("Origin", p.base)
	if p.cookie != "" {
		req.Header.Set("Cookie", "office_web="+p.cookie)
		req.Header.Set("X-Office-Key", p.key)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (p *webPage) post(path, body string) *http.Response { return p.do("POST", path, body) }
func (p *webPage) get(path string) *http.Response        { return p.do("GET", path, "") }

// getJSON GETs path and decodes its 200 answer into out.
func (p *webPage) getJSON(path string, out any) {
	p.t.Helper()
	resp := p.get(path)
	if resp.StatusCode != 200 {
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		p.t.Fatalf("GET %s: %s %s", path, resp.Status, e.Error)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		p.t.Fatalf("GET %s: %v", path, err)
	}
}

// dial opens the page's WebSocket (the key as its subprotocol, as a
// browser's WebSocket carries it); it is closed when the test ends.
func (p *webPage) dial(ctx context.Context) *websocket.Conn {
	p.t.Helper()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.base, "http")+"/ws", &websocket.DialOptions{
		HTTPHeader:   http.Header{"Origin": {p.base}, "Cookie": {"office_web=" + p.cookie}},
		Subprotocols: []string{"office", "office-key." + p.key}})
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { c.CloseNow() })
	return c
}

// mailFrom runs `office mail send ARGS...` as agent (in its shell) and
// returns the mail's id.
func mailFrom(t *testing.T, o *testOffice, agent string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	as := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, bin: "office", getenv: func(k string) string {
		if k == "OFFICE_AGENT" {
			return agent
		}
		return o.env[k]
	}}
	if code := run(context.Background(), as, append(append([]string{"mail", "send"}, args...), "--config", o.config, "--state", o.state)); code != 0 {
		t.Fatalf("office mail send %v as %s: %d %s", args, agent, code, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// stringer is a fixed text as a fmt.Stringer.
type stringer string

func (s stringer) String() string { return string(s) }

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestWebPairWatchAnswerAndQueue: pair with the token `office web pair`
// prints, see the roster and the agent's screen over the WebSocket, queue a
// message, see its permission dialog's options, answer it through the
// approve path and see the message delivered once; then revoke the session.
func TestWebPairWatchAnswerAndQueue(t *testing.T) {
	t.Parallel()
	o, base, agentLog := webOffice(t)
	page := pairPage(t, o, base, "--label", "test phone")
	if r := o.cmd("", "web", "sessions"); r.code != 0 || !strings.Contains(r.stdout, "test phone") || !strings.Contains(r.stdout, "watch,answer") {
		t.Fatalf("office web sessions: %d %q", r.code, r.stdout)
	}

	wctx, wcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer wcancel()
	c := page.dial(wctx)
	c.Write(wctx, websocket.MessageText, []byte(`{"t":"watch","agent":"a1"}`))
	resp := page.post("/api/send", `{"agent":"a1","text":"hello from the web"}`)
	var sent struct{ ID int64 }
	json.NewDecoder(resp.Body).Decode(&sent)
	if resp.StatusCode != 200 || sent.ID == 0 {
		t.Fatalf("queueing a message: %s", resp.Status)
	}
	var sawRoster bool
	var options []struct{ Num, Label string }
	var rows []string
	for !sawRoster || len(options) == 0 {
		_, p, err := c.Read(wctx)
		if err != nil {
			t.Fatalf("WebSocket: %v (roster %v, options %v)", err, sawRoster, options)
		}
		var msg struct {
			T, Agent, Text, Status string
			Options                []struct{ Num, Label string }
			Changed                []struct {
				Y    int
				Text string
			}
		}
		json.Unmarshal(p, &msg)
		// The whole screen comes once, then the changed rows.
		switch {
		case msg.T == "screen" && msg.Agent == "a1":
			rows = strings.Split(msg.Text, "\n")
		case msg.T == "rows" && msg.Agent == "a1":
			for _, r := range msg.Changed {
				if r.Y < 0 || r.Y >= len(rows) {
					t.Fatalf("a changed row %d outside the screen of %d rows", r.Y, len(rows))
				}
				rows[r.Y] = r.Text
			}
		}
		switch {
		case msg.T == "roster" && strings.Contains(string(p), `"a1"`) && strings.Contains(string(p), `"b2"`):
			sawRoster = true
		case (msg.T == "screen" || msg.T == "rows") && msg.Agent == "a1" && msg.Status == "waiting" &&
			strings.Contains(strings.Join(rows, "\n"), "Do you want to proceed?"):
			options = msg.Options
		}
	}
	if options[0].Num != "1" || !strings.HasPrefix(options[0].Label, "Yes") {
		t.Fatalf("dialog options %+v", options)
	}
	if resp := page.post("/api/approve", `{"agent":"a1","option":"1"}`); resp.StatusCode != 200 {
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		t.Fatalf("approve: %s %s", resp.Status, e.Error)
	}
	r := o.cmd("", "wait", "a1", "--until", "delivered:"+itoa(sent.ID), "--timeout", "30s")
	if r.code != 0 {
		t.Fatalf("office wait delivered: %d %q %q", r.code, r.stdout, r.stderr)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		raw, _ := os.ReadFile(agentLog)
		log := string(raw)
		if strings.Contains(log, `"event":"reply"`) {
			if n := strings.Count(log, `"event":"prompt","text":"hello from the web"`); n != 1 {
				t.Fatalf("the message was submitted %d times, want once:\n%s", n, log)
			}
			if !strings.Contains(log, `"event":"permission","answer":"yes"`) {
				t.Fatalf("the dialog was not answered yes:\n%s", log)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reply within 30 s:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := o.cmd("", "web", "revoke", "--all"); r.code != 0 || !strings.Contains(r.stdout, "revoked 1") {
		t.Fatalf("office web revoke --all: %d %q", r.code, r.stdout)
	}
	if resp := page.post("/api/send", `{"agent":"a1","text":"again"}`); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a revoked session queued: %s", resp.Status)
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestWebNeedsHomeAnswersADialog: the page's home, the needs-you list,
// carries the fake agent's permission dialog as a need (agent, reason,
// since, excerpt, options split into number and label), live over the
// WebSocket without watching the agent's pane; answering it with one of
// its options (the approve path) makes the agent take that option and the
// need leaves the list.
func TestWebNeedsHomeAnswersADialog(t *testing.T) {
	t.Parallel()
	o, base, agentLog := webOffice(t)
	page := pairPage(t, o, base)
	wctx, wcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer wcancel()
	c := page.dial(wctx)
	type need struct {
		Agent, Reason, Excerpt string
		Since                  time.Time
		Options                []struct{ Num, Label string }
	}
	readNeeds := func(until func([]need) bool) []need {
		t.Helper()
		for {
			_, p, err := c.Read(wctx)
			if err != nil {
				t.Fatalf("WebSocket: %v", err)
			}
			var msg struct {
				T     string
				Needs []need
			}
			json.Unmarshal(p, &msg)
			if msg.T == "needs" && until(msg.Needs) {
				return msg.Needs
			}
		}
	}
	dialogOf := func(ns []need) *need {
		for i, n := range ns {
			if n.Agent == "a1" && n.Reason == "dialog" {
				return &ns[i]
			}
		}
		return nil
	}
	if resp := page.post("/api/send", `{"agent":"a1","text":"hello from the needs list"}`); resp.StatusCode != 200 {
		t.Fatalf("queueing a message: %s", resp.Status)
	}
	d := dialogOf(readNeeds(func(ns []need) bool { return dialogOf(ns) != nil }))
	if len(d.Options) < 2 || d.Options[0].Num != "1" || !strings.HasPrefix(d.Options[0].Label, "Yes") || d.Since.IsZero() || d.Excerpt == "" {
		t.Fatalf("the dialog as a need: %+v", *d)
	}
	if resp := page.post("/api/approve", `{"agent":"a1","option":"`+d.Options[0].Num+`"}`); resp.StatusCode != 200 {
		filepath.Walk(o.state, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && (strings.HasSuffix(p, ".log") || strings.HasSuffix(p, ".jsonl")) {
				b, _ := os.ReadFile(p)
				t.Logf("%s:\n%s", p, b)
			}
			return nil
		})
		t.Fatalf("approve from the needs list: %s", resp.Status)
	}
	readNeeds(func(ns []need) bool { return dialogOf(ns) == nil })
	deadline := time.Now().Add(30 * time.Second)
	for {
		raw, _ := os.ReadFile(agentLog)
		if strings.Contains(string(raw), `"event":"permission","answer":"yes"`) {
			if n := strings.Count(string(raw), `"event":"prompt","text":"hello from the needs list"`); n != 1 {
				t.Fatalf("the message was submitted %d times, want once:\n%s", n, raw)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dialog was not answered yes within 30 s:\n%s", raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWebTableRunsTheWebServerWithTheServer: a [web] table in the office
// file makes the office's server run the web server (as `office web`
// does): a browser pairs and reaches the office through it; it stops with
// the server. A non-loopback listen without TLS is refused at its line.
func TestWebTableRunsTheWebServerWithTheServer(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	if err := os.WriteFile(o.config, []byte("brief = false\n\n[web]\nlisten = \"0.0.0.0:8787\"\n\n[[agent]]\nname = \"b2\"\ncommand = [\"cat\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := o.cmd("", "serve"); r.code != 2 || !strings.Contains(r.stderr, o.config+":4: web: listen:") {
		t.Fatalf("office serve with [web] listen 0.0.0.0 without TLS: exit %d %q", r.code, r.stderr)
	}
	// web_sessions (a settings row) bounds the [web] table's server too.
	if err := os.WriteFile(o.config, []byte("brief = false\nweb_sessions = 1\n\n[web]\nlisten = \"127.0.0.1:0\"\n\n[[agent]]\nname = \"b2\"\ncommand = [\"cat\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o.serve()
	base := waitWebListens(t, o, stringer("the server's [web] web server (its log is STATE/office.log)"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := pairPage(t, o, base).dial(ctx)
	secondPairingRefused(t, o, base)
	for {
		_, p, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("WebSocket: %v", err)
		}
		if strings.Contains(string(p), `"t":"roster"`) && strings.Contains(string(p), `"b2"`) {
			break
		}
	}
	if r := o.cmd("", "stop"); r.code != 0 {
		t.Fatalf("office stop: %d %q", r.code, r.stderr)
	}
	st, deadline := &web.Store{Dir: o.state}, time.Now().Add(20*time.Second)
	for st.Listen() != "" {
		if time.Now().After(deadline) {
			t.Fatal("web.json still says the web server listens after the office stopped")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// secondPairingRefused checks that a second browser cannot pair while one
// session is live (the office file sets web_sessions = 1): 503 naming the
// setting.
func secondPairingRefused(t *testing.T, o *testOffice, base string) {
	t.Helper()
	r := o.cmd("", "web", "pair")
	m := regexp.MustCompile(`#pair=([A-Za-z0-9_-]+)`).FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		t.Fatalf("office web pair: exit %d %q", r.code, r.stdout)
	}
	p := &webPage{t: t, base: base, http: &http.Client{Timeout: 60 * time.Second}}
	resp := p.post("/pair", `{"token":"`+m[1]+`"}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "web_sessions") {
		t.Fatalf("a second pairing with web_sessions = 1: %s %s, want 503 naming web_sessions", resp.Status, body)
	}
	if ss, err := (&web.Store{Dir: o.state}).Sessions(); err != nil || len(ss) != 1 {
		t.Fatalf("%d sessions live (%v), want 1", len(ss), err)
	}
}

// TestWebReadsItsSettingsFromTheOfficeFile: `office web` runs on the web_*
// rows of the office file it serves: with web_sessions = 1 a second
// browser cannot pair, and with web_calls = 2 a session's third call in a
// window is refused.
func TestWebReadsItsSettingsFromTheOfficeFile(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	if err := os.WriteFile(o.config, []byte("brief = false\nweb_sessions = 1\nweb_calls = 2\n\n[[agent]]\nname = \"b2\"\ncommand = [\"cat\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o.serve()
	base := runWebServer(t, o)
	page := pairPage(t, o, base)
	secondPairingRefused(t, o, base)
	for i := 0; i < 2; i++ {
		if resp := page.post("/api/pause", `{"agent":"b2","paused":true}`); resp.StatusCode != 200 {
			t.Fatalf("call %d: %s", i, resp.Status)
		}
	}
	if resp := page.post("/api/pause", `{"agent":"b2","paused":true}`); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a third call with web_calls = 2: %s, want 429", resp.Status)
	}
}

// TestWebPairPrintsAQRCodeOnATerminalOnly: on a terminal `office web pair`
// draws the printed URL as a QR code (the block is exactly that URL's
// code, and holds no text: the token is only in the URL and its own line);
// into a pipe it prints no QR code.
func TestWebPairPrintsAQRCodeOnATerminalOnly(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	r := o.cmd("", "web", "pair")
	if r.code != 0 || strings.ContainsAny(r.stdout, "█▀▄") {
		t.Fatalf("office web pair into a pipe: exit %d, a QR code or none? %q", r.code, r.stdout)
	}
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no PTY: %v", err)
	}
	defer ptm.Close()
	out := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(ptm)
		out <- string(b)
	}()
	e := &env{stdin: strings.NewReader(""), stdout: pts, stderr: new(bytes.Buffer),
		getenv: func(k string) string { return o.env[k] }, bin: "office"}
	code := run(context.Background(), e, []string{"web", "pair", "--config", o.config, "--state", o.state})
	pts.Close()
	got := strings.ReplaceAll(<-out, "\r\n", "\n")
	url := regexp.MustCompile(`http://\S+#pair=(\S+)`).FindStringSubmatch(got)
	if code != 0 || url == nil {
		t.Fatalf("office web pair on a terminal: exit %d %q", code, got)
	}
	want, err := qrBlock(url[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, want) || !strings.ContainsAny(want, "█▀▄") {
		t.Fatalf("no QR code of %s in:\n%s", url[0], got)
	}
	if strings.ContainsFunc(want, func(r rune) bool { return r < 0x80 && r != ' ' && r != '\n' }) {
		t.Fatalf("the QR block holds text:\n%s", want)
	}
	if n := strings.Count(got, url[1]); n != 2 {
		t.Fatalf("the token appears %d times, want twice (the URL and its own line):\n%s", n, got)
	}
}

// TestWebInboxShowsRequestMailAndReplies: the person's inbox on the page
// lists a request mail an agent sent the person; a reply from the page
// goes through the office server's "mail.reply" (`office mail reply`'s
// path), so the mail has the person's reply and leaves the needs-you list;
// the mail pages list both mails and show the request with its timeline.
func TestWebInboxShowsRequestMailAndReplies(t *testing.T) {
	t.Parallel()
	o, base, _ := webOffice(t)
	page := pairPage(t, o, base)
	mailID := mailFrom(t, o, "b2", "--to", "person", "--request", "may I deploy?")
	var items []struct {
		ID, Sender, Body, Type string
		Request                bool
	}
	page.getJSON("/api/inbox", &items)
	found := false
	for _, it := range items {
		if it.ID == mailID && it.Sender == "b2" && it.Request && strings.Contains(it.Body, "may I deploy?") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the inbox has no request %s from b2: %+v", mailID, items)
	}
	resp := page.post("/api/mail/reply", `{"id":"`+mailID+`","text":"yes, go ahead"}`)
	var rep struct{ ID, Error string }
	json.NewDecoder(resp.Body).Decode(&rep)
	if resp.StatusCode != 200 || rep.ID == "" {
		t.Fatalf("reply from the page: %s %q", resp.Status, rep.Error)
	}
	if r := o.cmd("", "mail", "show", mailID); r.code != 0 || !strings.Contains(r.stdout, "reply "+rep.ID+" from person") {
		t.Fatalf("office mail show %s after the reply: %d %q %q", mailID, r.code, r.stdout, r.stderr)
	}
	// The mail pages (office mail ls, show) through the office server's
	// calls: the request and the reply listed, the request shown with its
	// text and the reply in its timeline, as `office mail show` has them.
	var list struct {
		Mail []struct {
			ID, Sender, Receiver, Type, State string
		}
		Total int
	}
	page.getJSON("/api/mail", &list)
	ids := map[string]bool{}
	for _, m := range list.Mail {
		ids[m.ID] = true
	}
	if list.Total != len(list.Mail) || !ids[mailID] || !ids[rep.ID] {
		t.Fatalf("the mail list lacks the request %s or the reply %s: %+v", mailID, rep.ID, list)
	}
	var shown struct {
		ID, Sender, Receiver, Type, Text string
		Timeline                         []struct{ State, Detail string }
	}
	page.getJSON("/api/mail/show?id="+mailID, &shown)
	steps, _ := json.Marshal(shown.Timeline)
	if shown.Sender != "b2" || shown.Receiver != "person" || shown.Type != "request" || !strings.Contains(shown.Text, "may I deploy?") ||
		!strings.Contains(string(steps), "reply "+rep.ID+" from person") {
		t.Fatalf("the request as the page shows it: %+v", shown)
	}
	if resp := page.get("/api/mail/show?id=nosuch"); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("an unknown mail: %s", resp.Status)
	}
	if resp := page.get("/api/mail?state=nosuch"); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("an unknown state: %s", resp.Status)
	}
	if r := o.cmd("", "needs", "--json"); strings.Contains(r.stdout, `"reason":"request"`) {
		t.Fatalf("the answered request is still on the needs-you list: %s", r.stdout)
	}
}
