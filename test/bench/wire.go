package main

// wire.go: a client of office's server in this process (the client package,
// the real socket), to measure the server's push path alone: its CPU with a
// client attached, and a key's echo through it.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"office/client"
	"office/pool"
	"office/wire"
)

// wireClient attaches to the office's server showing the first nine agents
// in a 3×3 grid of the outer terminal's size, the first focused: it
// subscribes to their screens only, as the UI does.
func (o *officeRun) wireClient(as []agent) (*client.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The server opens its socket after its first agent starts (the start
	// path), so the agent's "ready" can come first: wait for the socket.
	var c *client.Conn
	for {
		var err error
		c, err = client.Dial(ctx, client.Local(o.state), client.Options{Client: "bench", Screens: true, Subscribe: true})
		if err == nil {
			break
		}
		if !errors.Is(err, client.ErrNoServer) || ctx.Err() != nil {
			return nil, fmt.Errorf("attach a client: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("attach a client: %w", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	panes := map[string]wire.Size{}
	n := min(len(as), 9)
	shown := make([]string, n)
	for i := range shown {
		shown[i] = as[i].name
	}
	if err := c.Subscribe(shown); err != nil {
		c.Close()
		return nil, err
	}
	per := 1
	for per*per < n {
		per++
	}
	for i := 0; i < n; i++ {
		panes[as[i].name] = wire.Size{Cols: (cols - per + 1) / per, Rows: (rows-1)/per - 1}
	}
	if err := c.SetView(as[0].name, panes, true); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// wireKeys types echoKey into one agent through a client of this process.
type wireKeys struct {
	c     *client.Conn
	agent string
	snap  pool.Snapshot
}

func newWireKeys(c *client.Conn, agent string) *wireKeys {
	return &wireKeys{c: c, agent: agent}
}

// has reports whether the agent's screen shows echoKey.
func (w *wireKeys) has() bool {
	w.c.Screen(w.agent, &w.snap)
	return strings.ContainsRune(w.snap.Text(), echoKey)
}

// wait waits until has is want.
func (w *wireKeys) wait(want bool) error {
	timeout := time.After(3 * time.Second)
	for w.has() != want {
		select {
		case <-w.c.Changed():
		case <-w.c.Done():
			return w.c.Err()
		case <-timeout:
			return fmt.Errorf("no echo in 3 s")
		}
	}
	return nil
}

// key types echoKey once, timing the Input to the first screen update that
// shows it (key), then clears the input at once, timing that to the update
// without it (again).
func (w *wireKeys) key() (key, again time.Duration, err error) {
	if err := w.wait(false); err != nil {
		return 0, 0, err
	}
	time.Sleep(echoQuiet) // keys typed by a person, not a paste
	start := time.Now()
	if err := w.c.Input(w.agent, []byte{echoKey}); err != nil {
		return 0, 0, err
	}
	if err := w.wait(true); err != nil {
		return 0, 0, err
	}
	key = time.Since(start)
	start = time.Now()
	if err := w.c.Input(w.agent, []byte{clearKey}); err != nil {
		return 0, 0, err
	}
	if err := w.wait(false); err != nil {
		return 0, 0, err
	}
	return key, time.Since(start), nil
}

// extraClients is how many more wire clients officeRun.furtherClients
// attaches.
const extraClients = 4

// furtherClients attaches extraClients more wire clients beside the one
// attached (the server's RSS then was base KiB), each showing the same nine
// agents, and returns what each added to the server's RSS, in KiB.
func (o *officeRun) furtherClients(as []agent, base int64) (float64, error) {
	var cs []*client.Conn
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	for i := 0; i < extraClients; i++ {
		c, err := o.wireClient(as)
		if err != nil {
			return 0, err
		}
		cs = append(cs, c)
	}
	time.Sleep(settleIdle)
	var rss int64
	for _, p := range o.pids() {
		rss += rssKB(p)
	}
	return float64(rss-base) / extraClients, nil
}
