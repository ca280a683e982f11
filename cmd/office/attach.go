package main

// attach.go is `office attach`: the UI on the server (here, or on another
// host through ssh with --ssh), and `office attach --stdio`, which bridges stdin and stdout to the
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
	var stdio, start bool
	var uf uiFlags
	var rf remoteFlags
	c := &cobra.Command{
		Use:   "attach [--ssh HOST | --stdio]",
		Short: "open the UI on the office's server, here or on another host through ssh",
		Long: `Open the office's UI as a client of its server, as 'office' does (starting the
server in the background when none runs on the state directory). With --ssh
HOST, the UI runs here against the server on HOST, through your own ssh
(--ssh-command or OFFICE_SSH_COMMAND replace it; --state is the far side's
state directory), starting the server there when none runs; a dropped
connection is dialled again. Prefix d detaches.

With --stdio, copy stdin to the office server's client socket and the socket to
stdout, so a client on another host reaches the server through ssh:
'ssh HOST office attach --stdio [--state DIR]' (what 'office attach --ssh HOST',
'office events --ssh HOST' and 'office wait --ssh HOST' run). The bytes are the
client protocol (docs/protocol.md). No server running: exit 1, unless --start
starts one first (in the background, as 'office start').`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if stdio {
				if rf.host != "" {
					return usagef("office attach: --stdio and --ssh do not go together (--stdio is the far side of --ssh)")
				}
				return runAttach(c.Context(), e, g, start)
			}
			if start {
				return usagef("office attach: --start goes with --stdio (the UI starts the server anyway)")
			}
			rf.start = true
			return runUI(c.Context(), e, g, uf, rf)
		},
	}
	c.Flags().BoolVar(&stdio, "stdio", false, "bridge stdin and stdout to the server's socket")
	c.Flags().BoolVar(&start, "start", false, "with --stdio: start the server in the background first when none runs")
	uf.add(c)
	rf.add(c)
	return c
}

func runAttach(ctx context.Context, e *env, g *globals, start bool) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	if start && !engine.Running(dir) {
		// Its words go to stderr: ssh shows them, stdout is the protocol.
		if err := startServer(ctx, e, g, e.stderr); err != nil && !engine.Running(dir) {
			return err
		}
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
