package client

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"office/pool"
	"office/wire"
)

// pipeServers is a Transport whose every dial reaches a minimal server:
// it answers the hello and sends one full screen of agent "a".
type pipeServers struct{ conns chan net.Conn }

func (p pipeServers) String() string { return "pipe servers" }

func (p pipeServers) Dial(context.Context) (io.ReadWriteCloser, error) {
	mine, theirs := net.Pipe()
	go func() {
		r, w := wire.NewReader(theirs, 1<<20), wire.NewWriter(theirs)
		if _, _, err := r.Next(); err != nil {
			return
		}
		_ = w.Write(wire.Welcome{T: wire.TWelcome, Version: wire.Version})
		_ = w.Write(&wire.Screen{T: wire.TScreen, Agent: "a", Instance: 1, Gen: 1, Full: true, Cols: 4, Rows: 2,
			Lines: []wire.Line{{Y: 0, Runs: []wire.Run{{X: 0, Text: "same"}}}}})
		_ = w.Flush()
		p.conns <- theirs
		_, _ = io.Copy(io.Discard, theirs)
	}()
	return mine, nil
}

// TestRedialGivesRowGenerationsPastTheLastConnections: a connection made
// again gives its rows generations the last one never gave, so a copy kept
// with ScreenRows across the reconnect copies every row again, even one the
// new connection's first screen shows at its first generation.
func TestRedialGivesRowGenerationsPastTheLastConnections(t *testing.T) {
	t.Parallel()
	tr := pipeServers{conns: make(chan net.Conn, 2)}
	s, err := Open(context.Background(), tr, Options{Screens: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reconnected := make(chan struct{}, 1)
	defer s.Watch(func(c Change) {
		if c.Kind == ChangeReconnected {
			reconnected <- struct{}{}
		}
	})()
	first := <-tr.conns
	timeout := time.After(10 * time.Second)
	var kept pool.Snapshot
	var rows []uint64
	for c := s.Conn(); !c.ScreenRows("a", &kept, &rows); {
		select {
		case <-c.Changed():
		case <-timeout:
			t.Fatal("no screen from the first connection")
		}
	}
	was := s.Conn().rowsNow()
	first.Close()
	select {
	case <-reconnected:
	case <-timeout:
		t.Fatal("the session did not dial again")
	}
	for c := s.Conn(); !c.ScreenRows("a", &kept, &rows); {
		select {
		case <-c.Changed():
		case <-timeout:
			t.Fatal("no screen from the second connection")
		}
	}
	for y, g := range rows {
		if g <= was {
			t.Errorf("row %d is at generation %d of the new connection; the last one gave up to %d", y, g, was)
		}
	}
}
