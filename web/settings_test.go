package web

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"office/configs"
	"office/queue"
)

// defLimits are the web_* rows' defaults, as a Server without Limits runs.
var defLimits = LimitsOf(configs.Defaults())

// webConsumers reads, for each web_* row of the settings table, the field
// the web server is seeded with from an office file's settings. The
// engine's TestSettingsReachEveryConsumer leaves these rows to this test
// (package web is a client of the engine's, so the engine cannot import it).
var webConsumers = map[string]func(l Limits) int64{
	"web_connections":   func(l Limits) int64 { return int64(l.Connections) },
	"web_sockets":       func(l Limits) int64 { return int64(l.Sockets) },
	"web_sessions":      func(l Limits) int64 { return int64(l.Sessions) },
	"web_session_ttl":   func(l Limits) int64 { return int64(l.SessionTTL) },
	"web_calls":         func(l Limits) int64 { return int64(l.Calls) },
	"web_reads":         func(l Limits) int64 { return int64(l.Reads) },
	"web_keys_bytes":    func(l Limits) int64 { return int64(l.KeysBytes) },
	"web_message_bytes": func(l Limits) int64 { return int64(l.MessageBytes) },
	"web_body_timeout":  func(l Limits) int64 { return int64(l.BodyTimeout) },
	"web_keys_timeout":  func(l Limits) int64 { return int64(KeysClient(l).SendTimeout) },
}

// limitsOfFile is the web server's Limits of an office file holding src.
func limitsOfFile(t *testing.T, src string) Limits {
	t.Helper()
	c, err := configs.Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return LimitsOf(c.Settings)
}

// TestSettingsReachWeb: every web_* row of the settings table reaches its
// field of Limits, at its default with nothing in the office file and at
// another value in its range when the file sets it; and every field has
// its row.
func TestSettingsReachWeb(t *testing.T) {
	t.Parallel()
	rows := 0
	def := limitsOfFile(t, "")
	for _, row := range configs.Table() {
		if !strings.HasPrefix(row.Key, "web_") {
			continue
		}
		rows++
		get := webConsumers[row.Key]
		if get == nil {
			t.Errorf("no consumer known for %s", row.Key)
			continue
		}
		if got := get(def); got != row.Default {
			t.Errorf("%s: default %s reaches the web server as %s", row.Key, row.Format(row.Default), row.Format(got))
		}
		v := row.Max
		if v == row.Default {
			v = row.Min
		}
		lit := row.Format(v)
		if row.Kind == configs.KindDuration {
			lit = `"` + lit + `"`
		}
		if got := get(limitsOfFile(t, row.Key+" = "+lit+"\n")); got != v {
			t.Errorf("%s = %s reaches the web server as %s", row.Key, lit, row.Format(got))
		}
	}
	if rows != len(webConsumers) {
		t.Errorf("%d web_* rows, %d consumers", rows, len(webConsumers))
	}
	// A zero Limits (a Server built without them) runs on the defaults.
	if (Limits{}).orDefaults() != defLimits {
		t.Errorf("zero Limits run on %+v, want the defaults %+v", (Limits{}).orDefaults(), defLimits)
	}
}

// TestMessageBytesRangeIsTheQueues: web_message_bytes ends where the
// queue stops taking a message.
func TestMessageBytesRangeIsTheQueues(t *testing.T) {
	t.Parallel()
	row, _ := configs.Lookup("web_message_bytes")
	if row.Max != queue.MaxBody || row.Default != queue.MaxBody {
		t.Errorf("web_message_bytes default %d, most %d; queue.MaxBody %d", row.Default, row.Max, queue.MaxBody)
	}
}

// fileRig is a rig whose server runs on the Limits of an office file
// holding src.
func fileRig(t *testing.T, src string) *rig {
	t.Helper()
	lim := limitsOfFile(t, src)
	return newRig(t, func(c *Config) { c.Limits = lim })
}

// TestSmallWebSettingsAreEnforced: each web_* row, set small in the office
// file, bounds what the web server serves.
func TestSmallWebSettingsAreEnforced(t *testing.T) {
	t.Parallel()
	t.Run("web_calls and web_reads", func(t *testing.T) {
		t.Parallel()
		r := fileRig(t, "web_calls = 2\nweb_reads = 3\n")
		ck := r.pair(CapAnswer)
		for i := 0; i < 2; i++ {
			if resp := r.do("POST", "/api/pause", `{"agent":"planner","paused":true}`, ck, nil); resp.StatusCode != 200 {
				t.Fatalf("call %d: %s", i, resp.Status)
			}
		}
		if resp := r.do("POST", "/api/pause", `{"agent":"planner","paused":true}`, ck, nil); resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("a third call: %s, want 429", resp.Status)
		}
		for i := 0; i < 3; i++ {
			if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != 200 {
				t.Fatalf("read %d: %s", i, resp.Status)
			}
		}
		if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("a fourth read: %s, want 429", resp.Status)
		}
	})
	t.Run("web_sessions", func(t *testing.T) {
		t.Parallel()
		r := fileRig(t, "web_sessions = 1\n")
		r.pair()
		tok, err := r.store.Pair(nil, "")
		if err != nil {
			t.Fatal(err)
		}
		resp := r.do("POST", "/pair", `{"token":"`+tok+`"}`, "", nil)
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("a second session with web_sessions = 1: %s, want 503", resp.Status)
		}
		if ss, _ := r.store.Sessions(); len(ss) != 1 {
			t.Fatalf("%d sessions live, want 1", len(ss))
		}
	})
	t.Run("web_session_ttl", func(t *testing.T) {
		t.Parallel()
		r := fileRig(t, "web_session_ttl = \"1h\"\n")
		ck := r.pair()
		r.clock.add(59 * time.Minute)
		if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != 200 {
			t.Fatalf("before the hour: %s", resp.Status)
		}
		r.clock.add(2 * time.Minute)
		if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("after the hour: %s, want 401", resp.Status)
		}
	})
	t.Run("web_keys_bytes", func(t *testing.T) {
		t.Parallel()
		r := fileRig(t, "web_keys_bytes = 8\n")
		ck := r.pair(CapAnswer, CapType)
		if resp := r.do("POST", "/api/input", `{"agent":"planner","text":"123456789"}`, ck, nil); resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("9 bytes of keys: %s, want 413", resp.Status)
		}
		if resp := r.do("POST", "/api/input", `{"agent":"planner","text":"12345678"}`, ck, nil); resp.StatusCode != 200 {
			t.Fatalf("8 bytes of keys: %s", resp.Status)
		}
		r.fake.mu.Lock()
		defer r.fake.mu.Unlock()
		if len(r.fake.inputs) != 1 {
			t.Fatalf("%d inputs reached the office, want 1", len(r.fake.inputs))
		}
	})
	t.Run("web_message_bytes", func(t *testing.T) {
		t.Parallel()
		r := fileRig(t, "web_message_bytes = 16\n")
		ck := r.pair(CapAnswer)
		if resp := r.do("POST", "/api/send", `{"agent":"planner","text":"`+strings.Repeat("m", 17)+`"}`, ck, nil); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("a message of 17 bytes: %s, want 400", resp.Status)
		}
		// The body is bounded to the message, JSON-escaped.
		big := `{"agent":"planner","text":"` + strings.Repeat("m", int(requestBound(16))) + `"}`
		if resp := r.do("POST", "/api/send", big, ck, nil); resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("a body past 6 × 16 + 4096 bytes: %s, want 413", resp.Status)
		}
		if c := r.fake.called(); len(c) != 0 {
			t.Fatalf("%d oversized messages reached the office", len(c))
		}
		if resp := r.do("POST", "/api/send", `{"agent":"planner","text":"`+strings.Repeat("m", 16)+`"}`, ck, nil); resp.StatusCode != 200 {
			t.Fatalf("a message of 16 bytes: %s", resp.Status)
		}
	})
	t.Run("web_sockets", func(t *testing.T) {
		t.Parallel()
		r := fileRig(t, "web_sockets = 1\n")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws://"+r.host+"/ws", wsOpts(r.origin(), r.pair()))
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		if _, _, err := c.Read(ctx); err != nil { // the roster: it is counted
			t.Fatal(err)
		}
		// Another session's first socket: past the cap of all of them.
		if _, resp, err := websocket.Dial(ctx, "ws://"+r.host+"/ws", wsOpts(r.origin(), r.pair())); err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("a second socket with web_sockets = 1: %v %v, want 429", resp, err)
		}
	})
	t.Run("web_body_timeout", func(t *testing.T) {
		t.Parallel()
		r := fileRig(t, "web_body_timeout = \"1s\"\n")
		c := r.holdPair()
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("a held body still holds its connection after 20 s with web_body_timeout = 1s")
			}
			return // closed: freed
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("a held body: %s, want 400", resp.Status)
		}
	})
}

// TestConnectionSettingIsEnforced: with web_connections = 2 in the office
// file, Serve serves two connections and the third waits until one of
// them closes.
func TestConnectionSettingIsEnforced(t *testing.T) {
	t.Parallel()
	lim := limitsOfFile(t, "web_connections = 2\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	go func() { done <- Serve(ctx, &Listening{Listener: ln}, h, lim) }()
	t.Cleanup(func() { cancel(); <-done })
	get := func(c net.Conn) error {
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	var conns []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns = append(conns, c)
	}
	// The first two are served (each answered, then kept alive).
	for i, c := range conns[:2] {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if err := get(c); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	// The third is not, while both stay open.
	third := conns[2]
	third.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if err := get(third); err == nil {
		t.Fatal("a third connection was served while two are open with web_connections = 2")
	}
	conns[0].Close()
	third.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(third)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("closing a connection did not let the third in: %v", err)
	}
	resp.Body.Close()
}
