package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"office/configs"
	"office/engine"
	"office/wire"
)

// A local server that refuses this client (here: another protocol version)
// makes the attach fail saying why, not a pane that only says unreachable.
func TestAttachRefusedLocalSaysWhy(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	// The lock held as a running server holds it, so the attach dials
	// rather than starting one.
	lock, err := os.OpenFile(filepath.Join(state, engine.LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(lock.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(state, engine.ClientSocketFile))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reason := wire.VersionMismatch(wire.Version+1, wire.Version)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			r := wire.NewReader(conn, wire.MaxClientFrame)
			_, _, _ = r.Next() // the hello
			w := wire.NewWriter(conn)
			_ = w.Write(wire.Refused{T: wire.TRefused, Version: wire.Version + 1, Reason: reason})
			_ = w.Flush()
			conn.Close()
		}
	}()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, bin: "office"}
	rh, err := openViewHost(context.Background(), e, &globals{}, configs.Host{Name: "local", State: state}, "")
	if rh.Session != nil {
		rh.Session.Close()
	}
	if err == nil {
		t.Fatalf("refused local attach: no error (dial error %v); want the refusal", rh.DialErr)
	}
	if !strings.Contains(err.Error(), "speaks protocol") || !strings.Contains(err.Error(), "host local") {
		t.Errorf("refused local attach says %q; want the host and the server's reason %q", err, reason)
	}
}
