package main

// attach.go is `office attach --stdio`: it bridges stdin and stdout to the
// server's client socket, so a client on another host reaches the server
// through ssh (`ssh HOST office attach --stdio`). The bytes are the wire
// protocol; the server checks this process's uid like any client's.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"

	"office/engine"
)

func runAttach(ctx context.Context, e *env, g *globals, args []string) error {
	args, stdio := takeFlag(args, "--stdio")
	if err := rejectFlags("attach", args); err != nil {
		return err
	}
	if len(args) > 0 || !stdio {
		return usagef("usage: office attach --stdio [--state DIR] (the UI attaches with 'office')")
	}
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", filepath.Join(dir, engine.ClientSocketFile))
	if err != nil {
		return fmt.Errorf("attach: no office is running on state directory %s: %v", dir, err)
	}
	defer conn.Close()
	up := make(chan error, 1)
	go func() {
		_, err := io.Copy(conn, e.stdin)
		if uc, ok := conn.(*net.UnixConn); ok {
			_ = uc.CloseWrite()
		}
		up <- err
	}()
	down := make(chan error, 1)
	go func() {
		_, err := io.Copy(e.stdout, conn)
		down <- err
	}()
	select {
	case err = <-down:
	case <-ctx.Done():
		return nil
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("attach: %w", err)
	}
	return nil
}
