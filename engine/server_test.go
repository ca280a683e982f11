package engine_test

// server_test.go runs the engine's server in process, with the client
// library on its real socket, so the race detector sees both sides.

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"office/client"
	"office/engine"
	"office/pool"
	"office/wire"
)

func TestServerClientsInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	e := open(t, fakeConfig(t, dir, 2, "--hook-evidence"), state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)

	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	c1, err := client.Dial(dctx, client.Local(state), client.Options{Client: "one", Screens: true, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := client.Dial(dctx, client.Local(state), client.Options{Client: "two", Screens: true, Events: true, EventsByWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if c2.Events() != nil {
		t.Fatal("EventsByWatch still made an Events channel")
	}
	var mu sync.Mutex
	changes := map[client.ChangeKind]int{}
	var delivered []int64
	stop := c2.Watch(func(ch client.Change) {
		mu.Lock()
		defer mu.Unlock()
		changes[ch.Kind]++
		if ch.Kind == client.ChangeEvent && ch.Event.Type == wire.EventDelivery && ch.Event.State == wire.DeliveryVerified {
			delivered = append(delivered, ch.Event.MsgID)
		}
	})
	defer stop()
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for !cond() {
			select {
			case <-c1.Changed():
			case <-time.After(50 * time.Millisecond):
			case <-deadline:
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	text := func(c *client.Conn, agent string) string {
		var s pool.Snapshot
		if !c.Screen(agent, &s) {
			return ""
		}
		return s.Text()
	}
	idle := func(c *client.Conn, agent string) bool {
		for _, a := range c.State().Agents {
			if a.Name == agent {
				return a.Status == "idle"
			}
		}
		return false
	}
	waitUntil("a0 idle with its prompt in both clients", func() bool {
		return idle(c1, "a0") && strings.Contains(text(c1, "a0"), "? for shortcuts") && strings.Contains(text(c2, "a0"), "? for shortcuts")
	})
	if r := c1.Roster(); len(r) != 2 || r[0].Name != "a0" || r[0].Instance == 0 {
		t.Fatalf("roster = %+v", r)
	}

	if err := c1.SetView("a0", map[string]wire.Size{"a0": {Cols: 90, Rows: 25}}, true); err != nil {
		t.Fatal(err)
	}
	waitUntil("a0 at 90x25", func() bool {
		cols, rows := mustAgent(t, e, "a0").Term.Size()
		return cols == 90 && rows == 25
	})
	if err := c2.Input("a0", []byte("draft")); err != nil {
		t.Fatal(err)
	}
	waitUntil("the draft in both screens", func() bool {
		return strings.Contains(text(c1, "a0"), "draft") && strings.Contains(text(c2, "a0"), "draft") && mustAgent(t, e, "a0").Term.HasDraft()
	})
	// The updates after the first full screen carry only changed rows (the
	// server copies only the rows that changed): what each client has is
	// still the agent's screen, cell for cell.
	waitUntil("both clients' screens equal to the agent's", func() bool {
		var want, got pool.Snapshot
		mustAgent(t, e, "a0").Term.Snapshot(&want)
		for _, c := range []*client.Conn{c1, c2} {
			if !c.Screen("a0", &got) || !slices.Equal(got.Cells, want.Cells) || got.CursorX != want.CursorX || got.CursorY != want.CursorY {
				return false
			}
		}
		return true
	})
	r, err := c1.Enqueue(ctx, "a0", "queued behind the draft")
	if err != nil || r.ID == 0 {
		t.Fatalf("enqueue: %+v %v", r, err)
	}
	waitUntil("held: your draft in the queue list", func() bool {
		q, err := c1.Queue(ctx, "a0")
		return err == nil && len(q) == 1 && q[0].Held == "your draft"
	})
	got, err := c2.RecoverPrompt(ctx, "a0")
	if err != nil || got != "draft" {
		t.Fatalf("recover prompt = %q, %v", got, err)
	}
	waitUntil("the message delivered", func() bool {
		f, err := c1.Message(ctx, r.ID)
		return err == nil && f.Delivered()
	})
	var sawVerified bool
	for !sawVerified {
		select {
		case ev := <-c1.Events():
			sawVerified = ev.Type == wire.EventDelivery && ev.MsgID == r.ID && ev.State == wire.DeliveryVerified
		case <-time.After(20 * time.Second):
			t.Fatal("no verified delivery event")
		}
	}
	waitUntil("the delivery seen by client two's watcher", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(delivered) == 1 && delivered[0] == r.ID && changes[client.ChangeScreen] > 0 && changes[client.ChangeRoster] > 0 && changes[client.ChangeState] > 0
	})
	if r := c2.Roster(); r[0].Started.IsZero() || len(r[0].ReadyMarkers) == 0 {
		t.Fatalf("roster entry %+v has no start time or ready markers", r[0])
	}
	if err := c1.Pause(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if err := c1.SetFloorPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	waitUntil("the floor paused in the state", func() bool { return c2.State().FloorPaused })
	if err := c1.SetFloorPaused(ctx, false); err != nil {
		t.Fatal(err)
	}
	waitUntil("the floor resumed, a1 still paused", func() bool {
		st := c2.State()
		return !st.FloorPaused && len(st.Agents) == 2 && st.Agents[1].Paused
	})
	if err := c1.Restart(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	waitUntil("a1 as a new instance", func() bool {
		for _, a := range c2.Roster() {
			if a.Name == "a1" {
				return a.Instance > 2
			}
		}
		return false
	})
	var ce *client.CallError
	if err := c1.Call(ctx, "no.such.call", "", nil, nil); !errors.As(err, &ce) {
		t.Fatalf("unknown call: %v", err)
	}
	if err := c1.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.StopRequested():
	case <-time.After(5 * time.Second):
		t.Fatal("stop call did not reach the engine")
	}
	e.Close()
	for _, c := range []*client.Conn{c1, c2} {
		<-c.Done()
		var bye *client.ByeError
		if !errors.As(c.Err(), &bye) {
			t.Fatalf("client ended with %v, want bye", c.Err())
		}
	}
}

func mustAgent(t *testing.T, e *engine.Engine, name string) *engine.Agent {
	t.Helper()
	a, ok := e.Agent(name)
	if !ok || a.Term == nil {
		t.Fatalf("agent %s not running", name)
	}
	return a
}
