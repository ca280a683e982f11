package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"office/wire"
)

// socketPair is a connected pair of Unix stream sockets, the writer's
// send buffer as small as the kernel allows, so writes fill it at once.
func socketPair(t *testing.T) (w, r net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.SetsockoptInt(fds[0], syscall.SOL_SOCKET, syscall.SO_SNDBUF, 1); err != nil {
		t.Fatal(err)
	}
	conn := func(fd int, name string) net.Conn {
		f := os.NewFile(uintptr(fd), name)
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	return conn(fds[0], "w"), conn(fds[1], "r")
}

// TestTryInputNeverWaitsAndLeavesWholeFrames: into a stream whose reader
// reads nothing, TryInput writes what fits and then says not sent, without
// waiting; frames the stream took only part of are finished before any
// later send. Read at last, the stream holds exactly the frames said sent
// and the later sends, in order, each whole.
func TestTryInputNeverWaitsAndLeavesWholeFrames(t *testing.T) {
	t.Parallel()
	w, r := socketPair(t)
	c := &Conn{rw: w, raw: rawConn(w), w: wire.NewWriter(w), sendTimeout: 20 * time.Second}
	if c.raw == nil {
		t.Fatal("a Unix socket has no raw conn")
	}
	var want [][]byte
	refused := 0
	for i := 0; refused < 3; i++ {
		if i > 10000 {
			t.Fatal("the stream took 10000 frames without filling")
		}
		key := fmt.Appendf(nil, "key %d %s", i, bytes.Repeat([]byte{'a' + byte(i%26)}, 9000+i%7000))
		start := time.Now()
		sent := c.TryInput("a", key)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("TryInput waited %s", d)
		}
		if sent {
			want = append(want, key)
		} else {
			refused++
		}
	}
	if len(want) == 0 {
		t.Fatal("no frame was written")
	}
	later := []byte("after the refused ones")
	sendDone := make(chan error, 1)
	go func() { sendDone <- c.Input("a", later) }() // waits for any frame's rest
	want = append(want, later)

	rd := wire.NewReader(r, wire.MaxClientFrame)
	for i, k := range want {
		typ, p, err := rd.Next()
		if err != nil {
			t.Fatalf("frame %d of %d: %v", i, len(want), err)
		}
		var m wire.Input
		if typ != wire.TInput || wire.Decode(p, &m) != nil || m.Agent != "a" || !bytes.Equal(m.Data, k) {
			t.Fatalf("frame %d: %s %q, want input %.20q", i, typ, p[:min(len(p), 40)], k)
		}
	}
	if err := <-sendDone; err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, _, err := rd.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the frames: %v, want the end", err)
	}
}

// TestTryInputDefersToAWriteUnderWay: while another write holds the
// stream, TryInput writes nothing.
func TestTryInputDefersToAWriteUnderWay(t *testing.T) {
	t.Parallel()
	w, _ := socketPair(t)
	c := &Conn{rw: w, raw: rawConn(w), w: wire.NewWriter(w)}
	c.wmu.Lock()
	if c.TryInput("a", []byte("x")) {
		t.Fatal("TryInput wrote while another write held the stream")
	}
	c.wmu.Unlock()
	if !c.TryInput("a", []byte("x")) {
		t.Fatal("TryInput did not write into an empty stream")
	}
}
