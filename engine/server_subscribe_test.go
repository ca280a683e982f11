package engine_test

// server_subscribe_test.go speaks the wire protocol by hand on the server's
// real socket, so what the server sends is seen as sent (the client library
// would drop screens it did not subscribe to, and hide a server that sent
// them).

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/engine"
	"office/pool"
	"office/wire"
)

// rawClient is a hand-made client: frames written, frames read in order.
type rawClient struct {
	t      *testing.T
	conn   net.Conn
	w      *wire.Writer
	frames chan rawFrame
	state  wire.State // the last state read
}

type rawFrame struct {
	typ string
	p   []byte
}

func dialRaw(t *testing.T, state string, hello wire.Hello) *rawClient {
	t.Helper()
	conn, err := net.Dial("unix", filepath.Join(state, wire.SocketFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &rawClient{t: t, conn: conn, w: wire.NewWriter(conn), frames: make(chan rawFrame, 4096)}
	go func() {
		defer close(c.frames)
		r := wire.NewReader(conn, wire.MaxServerFrame)
		for {
			typ, p, err := r.Next()
			if err != nil {
				return
			}
			c.frames <- rawFrame{typ, append([]byte(nil), p...)}
		}
	}()
	c.send(hello)
	return c
}

func (c *rawClient) send(m any) {
	c.t.Helper()
	if err := c.w.Write(m); err != nil {
		c.t.Fatal(err)
	}
	if err := c.w.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

// until reads frames until done (asked after every frame, with the latest
// state) says so, passing each screen to screen, which fails the test for a
// screen that must not come.
func (c *rawClient) until(what string, screen func(wire.Screen), done func(st wire.State) bool) {
	c.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case f, ok := <-c.frames:
			if !ok {
				c.t.Fatalf("connection closed waiting for %s", what)
			}
			switch f.typ {
			case wire.TScreen:
				var s wire.Screen
				if err := wire.Decode(f.p, &s); err != nil {
					c.t.Fatal(err)
				}
				screen(s)
			case wire.TState:
				if err := wire.Decode(f.p, &c.state); err != nil {
					c.t.Fatal(err)
				}
			}
			if done(c.state) {
				return
			}
		case <-deadline:
			c.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func agentState(st wire.State, name string) wire.AgentState {
	for _, a := range st.Agents {
		if a.Name == name {
			return a
		}
	}
	return wire.AgentState{}
}

// A client that subscribes gets the screens of the agents it names only:
// an unsubscribed agent's changes are not sent (its state still is); the
// agent named next comes as a full screen with what changed meanwhile, and
// the one dropped stops.
func TestSubscribedClientGetsOnlyItsPanesScreens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	e := open(t, fakeConfig(t, dir, 2), state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)

	h := wire.NewHello("subscriber")
	h.Screens, h.Subscribe = true, true
	c := dialRaw(t, state, h)
	c.send(wire.Subscribe{T: wire.TSubscribe, Agents: []string{"a0"}})

	// Each agent's copy as this client would hold it.
	snaps := map[string]*pool.Snapshot{"a0": {}, "a1": {}}
	fulls := map[string]int{}
	apply := func(s wire.Screen) {
		snap := snaps[s.Agent]
		if snap == nil {
			t.Fatalf("a screen of %q", s.Agent)
		}
		if s.Full {
			fulls[s.Agent]++
		}
		if err := wire.Apply(snap, &s); err != nil {
			t.Fatal(err)
		}
	}
	only := func(agent string) func(wire.Screen) {
		return func(s wire.Screen) {
			if s.Agent != agent {
				t.Fatalf("a screen of %s was sent to a client subscribed to %s only", s.Agent, agent)
			}
			apply(s)
		}
	}
	c.until("both idle, a0's prompt on its screen", only("a0"), func(st wire.State) bool {
		return agentState(st, "a0").Status == "idle" && agentState(st, "a1").Status == "idle" &&
			strings.Contains(snaps["a0"].Text(), "? for shortcuts")
	})
	// a1's screen changes (a draft on its prompt): its state says so, no
	// screen of it comes.
	c.send(wire.Input{T: wire.TInput, Agent: "a1", Data: []byte("unseen")})
	c.until("a1's draft in the state", only("a0"), func(st wire.State) bool { return agentState(st, "a1").Draft })
	c.send(wire.Input{T: wire.TInput, Agent: "a0", Data: []byte("seen")})
	c.until("a0's draft on its screen", only("a0"), func(st wire.State) bool {
		return agentState(st, "a0").Draft && strings.Contains(snaps["a0"].Text(), "seen")
	})
	if fulls["a0"] != 1 || fulls["a1"] != 0 {
		t.Fatalf("full screens %v, want one of a0", fulls)
	}

	// Now a1 only: its whole screen comes, with the draft typed while it
	// was not shown; a0's changes stop.
	c.send(wire.Subscribe{T: wire.TSubscribe, Agents: []string{"a1"}})
	a0Screens := 0
	onlyA1 := func(s wire.Screen) {
		if s.Agent == "a0" {
			a0Screens++ // sent before the server read the subscription, or a fault
			return
		}
		apply(s)
	}
	c.until("a1's whole screen with its draft", onlyA1, func(wire.State) bool {
		return fulls["a1"] == 1 && strings.Contains(snaps["a1"].Text(), "unseen")
	})
	a0Screens = 0
	// a0's screen changes on the server; then a1's. A screen of a0 would
	// go out with a1's (the writer sends every changed screen it was told
	// of, in roster order): none comes.
	c.send(wire.Input{T: wire.TInput, Agent: "a0", Data: []byte(" more")})
	waitCond(t, 20*time.Second, "a0's keys on its screen in the server", func() bool {
		return strings.Contains(serverText(t, e, "a0"), "more")
	})
	c.send(wire.Input{T: wire.TInput, Agent: "a1", Data: []byte(" last")})
	c.until("a1's last keys on its screen", onlyA1, func(wire.State) bool { return strings.Contains(snaps["a1"].Text(), "last") })
	if a0Screens > 0 {
		t.Fatalf("%d screens of a0 were sent after the client subscribed to a1 only", a0Screens)
	}
	if fulls["a1"] != 1 {
		t.Fatalf("a1 got %d full screens, want 1", fulls["a1"])
	}
	// What the client holds of a1 is the agent's screen.
	if got, want := snaps["a1"].Text(), serverText(t, e, "a1"); got != want {
		t.Fatalf("a1's copy:\n%s\nthe agent's screen:\n%s", got, want)
	}
}

// serverText is the text of agent's screen in the server.
func serverText(t *testing.T, e *engine.Engine, name string) string {
	var s pool.Snapshot
	mustAgent(t, e, name).Term.Snapshot(&s)
	return s.Text()
}
