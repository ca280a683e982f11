package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"office/client"
	"office/configs"
	"office/engine"
	"office/wire"
)

// TestFailedAgentNotifiesTheWebhookOnceAndEveryClient: with [notify] url
// set to a loopback HTTP server, an agent failing (a transition in on)
// reaches the server as one small JSON document, and every attached
// client gets the alert event for its terminal.
func TestFailedAgentNotifiesTheWebhookOnceAndEveryClient(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var posts []map[string]any
	got := make(chan struct{}, 8)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(b, &m) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		posts = append(posts, m)
		mu.Unlock()
		got <- struct{}{}
	}))
	defer hs.Close()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	src := fmt.Sprintf("[notify]\non = [\"failed\"]\nurl = %q\n\n[[agent]]\nname = \"crash\"\ncommand = [\"sh\", \"-c\", \"read x; exit 3\"]\n\n"+
		"[[agent]]\nname = \"fine\"\ncommand = [\"sh\", \"-c\", \"read x; exit 0\"]\n", hs.URL)
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := open(t, c, state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	var conns []*client.Conn
	for _, name := range []string{"one", "two"} {
		dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
		conn, err := client.Dial(dctx, client.Local(state), client.Options{Client: name, Events: true})
		dcancel()
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conns = append(conns, conn)
	}
	waitCond(t, 10*time.Second, "both agents running", func() bool {
		return len(e.Status()) == 2 && e.Status()[0].Pid > 0 && e.Status()[1].Pid > 0
	})
	<-e.NotifyReady() // what is on the list before is not announced
	// "fine" exits 0 (exited, not in on); "crash" fails.
	for _, name := range []string{"fine", "crash"} {
		if err := mustAgent(t, e, name).Term.Input([]byte("go\r")); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("the webhook got nothing")
	}
	for i, conn := range conns {
		deadline := time.After(10 * time.Second)
	wait:
		for {
			select {
			case ev := <-conn.Events():
				if ev.Type == wire.EventAlert {
					if ev.Agent != "crash" || ev.Kind != wire.NeedFailed {
						t.Fatalf("client %d: alert %+v, want crash failed", i, ev)
					}
					break wait
				}
			case <-deadline:
				t.Fatalf("client %d got no alert", i)
			}
		}
	}
	select {
	case <-got:
		t.Fatal("the webhook got a second POST")
	case <-time.After(3 * time.Second): // notifyTick and more, with nothing to wait for
	}
	mu.Lock()
	defer mu.Unlock()
	p := posts[0]
	if p["agent"] != "crash" || p["reason"] != "failed" || p["text"] == "" || p["at"] == "" {
		t.Fatalf("webhook JSON %v", p)
	}
}

// TestNoNotificationForThePaneAPersonWatches: a client whose terminal has
// focus (its focus report) and shows the agent focused keeps the agent's
// notification from every sink.
func TestNoNotificationForThePaneAPersonWatches(t *testing.T) {
	t.Parallel()
	var posts atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { posts.Add(1) }))
	defer hs.Close()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	src := fmt.Sprintf("[notify]\non = [\"failed\"]\nurl = %q\n\n[[agent]]\nname = \"crash\"\ncommand = [\"sh\", \"-c\", \"read x; exit 3\"]\n", hs.URL)
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	conn, err := client.Dial(dctx, client.Local(state), client.Options{Client: "looking", Events: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetView("crash", map[string]wire.Size{"crash": {Cols: 80, Rows: 24}}, false); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetFocus(true); err != nil {
		t.Fatal(err)
	}
	<-e.NotifyReady()
	waitCond(t, 10*time.Second, "crash running", func() bool { return e.Status()[0].Pid > 0 })
	// The view and focus are read in order with the input below: the
	// server handles one client's messages in order, and the input
	// reaches the agent only after them.
	if err := conn.Input("crash", []byte("go\r")); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 20*time.Second, "the notification kept back", func() bool { return strings.Contains(log.String(), "its pane is watched") })
	for {
		select {
		case ev := <-conn.Events():
			if ev.Type == wire.EventAlert {
				t.Fatalf("an alert for the watched pane: %+v", ev)
			}
			continue
		default:
		}
		break
	}
	if n := posts.Load(); n != 0 {
		t.Fatalf("the webhook got %d POSTs for a watched pane", n)
	}
}
