package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"office/configs"
	"office/pool"
	"office/wire"
)

// twoAgents is an office of the agents given, nothing in its store.
type twoAgents struct {
	noAgents
	agents []*Agent
}

func (o twoAgents) Agents() []*Agent { return o.agents }

// TestClientCopyFollowsTheScreenAcrossFocusChanges: whatever the focus does
// (the focused agent's updates start from the writer's spare copy, the
// others' from a copy of what the client has), the client's copy of every
// screen, built from the updates alone, is the screen: edits, scrolls, a
// title, the focus moving away and back while both screens change.
func TestClientCopyFollowsTheScreenAcrossFocusChanges(t *testing.T) {
	t.Parallel()
	outputs := make(chan struct{}, 1)
	notify := func(ev pool.Event) {
		if ev.Kind == pool.EventOutput {
			select {
			case outputs <- struct{}{}:
			default:
			}
		}
	}
	var agents []*Agent
	for _, name := range []string{"a", "b"} {
		// A raw, silent cat: the screen shows exactly the bytes written.
		term, err := pool.Start(pool.Options{Name: name, Argv: []string{"sh", "-c", "stty raw -echo; echo ready; exec cat"},
			Env: []string{"PATH=/usr/bin:/bin", "TERM=xterm-256color"}, Cols: 40, Rows: 12, Notify: notify})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { term.Close() })
		agents = append(agents, &Agent{Config: configs.Agent{Name: name}, Term: term})
	}
	s := &Server{office: twoAgents{agents: agents}, inst: instances{of: map[*pool.Terminal]int64{}}}
	var out bytes.Buffer
	conn, peer := net.Pipe()
	t.Cleanup(func() { conn.Close(); peer.Close() })
	c := &client{s: s, conn: conn, w: wire.NewWriter(&out), hello: wire.Hello{Screens: true},
		scr: screenWant{dirty: map[string]bool{}}, wr: writerState{sent: map[string]*sentScreen{}}, wake: make(chan struct{}, 1)}
	has := map[string]*pool.Snapshot{"a": {}, "b": {}}

	step := 0
	// show writes p to the agent's screen and waits until the screen has it
	// (the title it sets names the step).
	show := func(a *Agent, p string) {
		t.Helper()
		step++
		title := fmt.Sprintf("step %d", step)
		if err := a.Term.Write(context.Background(), []byte(p+"\x1b]0;"+title+"\x07")); err != nil {
			t.Fatal(err)
		}
		deadline := time.After(10 * time.Second)
		for {
			var snap pool.Snapshot
			a.Term.Snapshot(&snap)
			if snap.Title == title {
				return
			}
			select {
			case <-outputs:
			case <-deadline:
				t.Fatalf("%s never showed %q", a.Config.Name, title)
			}
		}
	}
	// flush sends what changed and checks every copy against its screen.
	flush := func(what string) {
		t.Helper()
		s.mu.Lock()
		c.markDirty("a")
		c.markDirty("b")
		s.mu.Unlock()
		if _, err := c.flush(); err != nil {
			t.Fatal(err)
		}
		r := wire.NewReader(&out, 1<<20)
		for {
			typ, p, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if typ != wire.TScreen {
				continue
			}
			var m wire.Screen
			if err := wire.Decode(p, &m); err != nil {
				t.Fatal(err)
			}
			if err := wire.Apply(has[m.Agent], &m); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		for _, a := range agents {
			var want pool.Snapshot
			a.Term.Snapshot(&want)
			got := has[a.Config.Name]
			if !slices.Equal(got.Cells, want.Cells) || got.CursorX != want.CursorX || got.CursorY != want.CursorY || got.Title != want.Title {
				t.Fatalf("%s: the client's copy of %s is not its screen:\ngot  %q (cursor %d,%d)\nwant %q (cursor %d,%d)",
					what, a.Config.Name, got.Text(), got.CursorX, got.CursorY, want.Text(), want.CursorX, want.CursorY)
			}
		}
	}
	a, b := agents[0], agents[1]
	show(a, "\x1b[2J\x1b[Hfirst")
	show(b, "\x1b[2J\x1b[Hother")
	c.view(wire.View{Focus: "a"})
	flush("first screens")
	show(a, "\x1b[1;6H line")
	flush("a key's echo, focused")
	show(a, "\x1b[3;1Hthird row")
	flush("another row, focused")
	c.view(wire.View{Focus: "b"})
	show(a, "\x1b[1;1HFIRST")
	show(b, "\x1b[5;1Hb's fifth")
	flush("focus moved to b, both changed")
	show(a, "\x1b[12;1H\r\nscrolled\r\nand again")
	flush("a scrolled in the background")
	c.view(wire.View{Focus: "a"})
	show(a, "\x1b[4;1Hback on a")
	flush("focus back on a: the spare is updates behind")
	show(a, "\x1b[4;1H\x1b[2K")
	show(b, "\x1b[2J\x1b[Hb cleared")
	flush("a row erased, b cleared")
	flush("nothing changed")
	show(a, "\x1b[1;1Hx")
	flush("one cell")
	if c.wr.spareOf != "a" || c.wr.spare.snap.Cols != 40 {
		t.Errorf("the focused agent's updates did not start from the spare (it is of %q, %d columns)", c.wr.spareOf, c.wr.spare.snap.Cols)
	}
}
