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

	"github.com/spf13/cobra"

	"office/engine"
)

func newAttachCmd(e *env, g *globals) *cobra.Command {
	var stdio bool
	c := &cobra.Command{
		Use:   "attach --stdio",
		Short: "bridge stdin/stdout to the server's client socket (for ssh)",
		Long: `With --stdio, copy stdin to the office server's client socket and the socket to
stdout, so a client on another host reaches the server through ssh:
'ssh HOST office attach --stdio [--state DIR]' (what 'office events --ssh HOST'
and 'office wait --ssh HOST' run). The bytes are the client protocol
(docs/protocol.md). No server running: exit 1.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if !stdio {
				return usagef("office attach: needs --stdio (the UI attaches with 'office')")
			}
			return runAttach(c.Context(), e, g)
		},
	}
	c.Flags().BoolVar(&stdio, "stdio", false, "bridge stdin and stdout to the server's socket")
	return c
}

func runAttach(ctx context.Context, e *env, g *globals) error {
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
