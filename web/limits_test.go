package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestInputIsCapped: keys past web_keys_bytes are refused whole with 413 and a
// message, and reach nothing; keys within it are typed.
func TestInputIsCapped(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair(CapAnswer, CapType)
	for _, n := range []int{defLimits.KeysBytes + 1, 900 << 10} {
		resp := r.do("POST", "/api/input", `{"agent":"planner","text":"`+strings.Repeat("k", n)+`"}`, ck, nil)
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(e.Error, "message") {
			t.Fatalf("%d bytes of keys: %s %q, want 413 saying to send a message", n, resp.Status, e.Error)
		}
	}
	r.fake.mu.Lock()
	n := len(r.fake.inputs)
	r.fake.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d oversized inputs reached the office", n)
	}
	if resp := r.do("POST", "/api/input", `{"agent":"planner","text":"`+strings.Repeat("k", defLimits.KeysBytes)+`"}`, ck, nil); resp.StatusCode != 200 {
		t.Fatalf("%d bytes of keys: %s", defLimits.KeysBytes, resp.Status)
	}
}

// newRigWith is newRig with the server's Config changed by edit.
func newRigWith(t *testing.T, edit func(*Config)) *rig {
	t.Helper()
	r := &rig{t: t, fake: newFake(), clock: &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}, logs: &bytes.Buffer{}, logMu: &sync.Mutex{}}
	r.store = &Store{Dir: t.TempDir(), Now: r.clock.Now}
	r.srv = httptest.NewUnstartedServer(nil)
	r.host = r.srv.Listener.Addr().String()
	cfg := Config{Store: r.store, Backend: r.fake, Hosts: []string{r.host}, Now: r.clock.Now,
		Log: slog.New(slog.NewTextHandler(lockedWriter{r.logMu, r.logs}, nil))}
	edit(&cfg)
	s := New(cfg)
	r.srv.Config.Handler = s.Handler()
	r.srv.Start()
	t.Cleanup(func() { r.srv.Close(); s.Close() })
	return r
}

// holdPair opens a connection that sends /pair's headers and part of its
// body, then nothing.
func (r *rig) holdPair() net.Conn {
	r.t.Helper()
	c, err := net.Dial("tcp", r.host)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /pair HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"token\":\"", r.host, r.origin())
	return c
}

// TestHeldBodiesCostNoPairingAttempt: 40 pairings whose bodies never come
// do not use up the pairing allowance.
func TestHeldBodiesCostNoPairingAttempt(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	for i := 0; i < 40; i++ {
		r.holdPair()
	}
	r.pair(CapWatch) // fails the test on 429
}

// TestABodyThatNeverEndsIsCutOff: a body that stops coming is answered
// (and its connection freed) after the body timeout.
func TestABodyThatNeverEndsIsCutOff(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, func(c *Config) { c.Limits.BodyTimeout = 100 * time.Millisecond })
	c := r.holdPair()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("a held body still holds its connection after 20 s")
		}
		return // closed: freed
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a held body: %s, want 400", resp.Status)
	}
}

// TestConnectionsAreCapped: past the cap, a connection waits to be
// accepted until one of those served closes.
func TestConnectionsAreCapped(t *testing.T) {
	t.Parallel()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := limitConns(inner, 2)
	defer l.Close()
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	a, _ := l.Accept()
	if _, err := l.Accept(); err != nil {
		t.Fatal(err)
	}
	third := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		third <- c
	}()
	select {
	case <-third:
		t.Fatal("a third connection was accepted while two are open")
	case <-time.After(50 * time.Millisecond):
	}
	a.Close()
	a.Close() // twice frees one place only
	select {
	case c := <-third:
		c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("closing a connection did not let the next in")
	}
}

// TestReadsAreRateLimited: reads have a window of their own, looser than
// the calls', and it does not eat the calls' allowance.
func TestReadsAreRateLimited(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ck := r.pair(CapAnswer)
	for i := 0; i < defLimits.Reads; i++ {
		if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != 200 {
			t.Fatalf("read %d: %s", i, resp.Status)
		}
	}
	if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("one read too many: %s, want 429", resp.Status)
	}
	if resp := r.do("POST", "/api/pause", `{"agent":"planner","paused":true}`, ck, nil); resp.StatusCode != 200 {
		t.Fatalf("a call after the reads: %s", resp.Status)
	}
	r.clock.add(callWindow)
	if resp := r.do("GET", "/api/me", "", ck, nil); resp.StatusCode != 200 {
		t.Fatalf("next window: %s", resp.Status)
	}
}

// TestRefusedPairingsAreLoggedOnceAWindow: a guesser's refused tokens
// are logged once a window, not once each.
func TestRefusedPairingsAreLoggedOnceAWindow(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	logged := func() int {
		r.logMu.Lock()
		defer r.logMu.Unlock()
		return strings.Count(r.logs.String(), "token is unknown")
	}
	for i := 0; i < 5; i++ {
		if resp := r.do("POST", "/pair", `{"token":"nosuch"}`, "", nil); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a bad token: %s", resp.Status)
		}
	}
	if n := logged(); n != 1 {
		t.Fatalf("5 refused pairings logged %d times, want once", n)
	}
	r.clock.add(callWindow)
	r.do("POST", "/pair", `{"token":"nosuch"}`, "", nil)
	if n := logged(); n != 2 {
		t.Fatalf("a refusal in the next window: logged %d times in all, want 2", n)
	}
}
