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
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"office/client"
	"office/configs"
	"office/engine"
	"office/remote"
	"office/ui"
	"office/wire"
)

func newAttachCmd(e *env, g *globals) *cobra.Command {
	var stdio, start bool
	var uf uiFlags
	var af attachFlags
	c := &cobra.Command{
		Use:   "attach [--ssh HOST]... [--host NAME]... [--local] | --stdio",
		Short: "open the UI on the office's server, here or on other hosts through ssh, several in one view",
		Long: `Open the office's UI as a client of its server, as 'office' does (starting the
server in the background when none runs on the state directory). With --ssh
HOST, the UI runs here against the server on HOST, through your own ssh
(--ssh-command or OFFICE_SSH_COMMAND replace it; --state and --config are the
far side's state directory and office file), starting the server there when
none runs; a dropped connection is dialled again, without asking anything
(ssh BatchMode: use keys or an ssh-agent). Prefix d detaches.

One view: several servers in one grid. --ssh is repeatable, --host NAME names a
[hosts.NAME] table of the office file (--config: ssh, state, config, office),
and --local adds the server of this machine's --state. Agents are shown as
AGENT@HOST; keys and intents go to the agent's own server, each server
reconnects on its own, and the panes of one that cannot be reached say so
while the others keep working (docs/cluster.md, "One view").

With --stdio, copy stdin to the office server's client socket and the socket to
stdout, so a client on another host reaches the server through ssh:
'ssh HOST office attach --stdio [--state DIR]' (what 'office attach --ssh HOST',
'office events --ssh HOST' and 'office wait --ssh HOST' run). The bytes are the
client protocol (docs/protocol.md). No server running: exit 1, unless --start
starts one first (in the background, as 'office start', with --config).`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if stdio {
				if len(af.ssh) > 0 || len(af.hosts) > 0 || af.local {
					return usagef("office attach: --stdio does not go with --ssh, --host or --local (--stdio is the far side of --ssh)")
				}
				return runAttach(c.Context(), e, g, start)
			}
			if start {
				return usagef("office attach: --start goes with --stdio (the UI starts the server anyway)")
			}
			hosts, err := af.viewHosts(g, e.getenv("HOME"))
			if err != nil {
				return err
			}
			return runView(c.Context(), e, g, uf, af, hosts)
		},
	}
	c.Flags().BoolVar(&stdio, "stdio", false, "bridge stdin and stdout to the server's socket")
	c.Flags().BoolVar(&start, "start", false, "with --stdio: start the server in the background first when none runs")
	uf.add(c)
	af.add(c)
	return c
}

// attachFlags choose the servers `office attach` shows.
type attachFlags struct {
	ssh        []string // --ssh HOST, repeatable
	hosts      []string // --host NAME: [hosts.NAME] of the office file
	local      bool     // this machine's server (of --state)
	sshCommand string
	office     string // the office command on the far side
}

func (a *attachFlags) add(c *cobra.Command) {
	c.Flags().StringArrayVar(&a.ssh, "ssh", nil, "show the office on `HOST`, reached through ssh (repeatable: one view of several)")
	c.Flags().StringArrayVar(&a.hosts, "host", nil, "show the server of the office file's [hosts.`NAME`] table (repeatable)")
	c.Flags().BoolVar(&a.local, "local", false, "with --ssh or --host: show this machine's server too")
	c.Flags().StringVar(&a.sshCommand, "ssh-command", "", "the ssh command line (default $OFFICE_SSH_COMMAND, else ssh)")
	c.Flags().StringVar(&a.office, "remote-office", "", "the office command on the far side (default office)")
}

// localHost is the name of this machine's server in a view (--local).
const localHost = "local"

// viewHosts lists the servers to show, in the order --local, --host, --ssh.
// No flag: this machine's server alone. Names must differ. home expands a
// "~/" in the paths of this machine's [hosts] tables.
func (a attachFlags) viewHosts(g *globals, home string) ([]configs.Host, error) {
	var out []configs.Host
	if a.local || len(a.ssh)+len(a.hosts) == 0 {
		out = append(out, configs.Host{Name: localHost, State: g.state, Config: g.config})
	}
	if len(a.hosts) > 0 {
		if g.config == "" {
			return nil, usagef("office attach: --host %s names a [hosts.%s] table of the office file: give it with --config FILE", a.hosts[0], a.hosts[0])
		}
		data, err := os.ReadFile(g.config)
		if err != nil {
			return nil, &inputError{fmt.Errorf("office attach: --config: %w", err)}
		}
		cfg, err := configs.Parse(g.config, data)
		if err != nil {
			return nil, &inputError{err}
		}
		for _, n := range a.hosts {
			h, ok := cfg.Hosts[n]
			if !ok {
				known := slices.Sorted(maps.Keys(cfg.Hosts))
				return nil, usagef("office attach: --host %s: %s has no [hosts.%s] table (hosts: %s)", n, g.config, n, strings.Join(known, ", "))
			}
			if h.SSH != "" && h.Office == "" {
				h.Office = a.office
			}
			if h.SSH == "" {
				h.State, h.Config = homePath(h.State, home), homePath(h.Config, home)
			}
			out = append(out, h)
		}
	}
	for _, s := range a.ssh {
		// Named by the host part of user@host.
		name := s[strings.LastIndexByte(s, '@')+1:]
		if name == "" {
			return nil, usagef("office attach: --ssh %q: no host", s)
		}
		out = append(out, configs.Host{Name: name, SSH: s, State: g.state, Config: g.config, Office: a.office})
	}
	seen := map[string]bool{}
	for _, h := range out {
		if seen[h.Name] {
			return nil, usagef("office attach: two servers named %q in one view: name them in [hosts.NAME] tables and use --host", h.Name)
		}
		seen[h.Name] = true
	}
	return out, nil
}

// homePath is p with a leading "~/" taken from home (a path of this
// machine in a [hosts] table).
func homePath(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

// runView runs the UI on hosts: one as a plain attach, several in one view.
func runView(ctx context.Context, e *env, g *globals, uf uiFlags, af attachFlags, hosts []configs.Host) error {
	if len(hosts) == 1 {
		h := hosts[0]
		hg := &globals{config: h.Config, state: h.State, prefix: g.prefix}
		rf := remoteFlags{host: h.SSH, sshCommand: af.sshCommand, office: h.Office, start: true}
		return runUI(ctx, e, hg, uf, rf)
	}
	uo, err := uiOptions(e, g, uf)
	if err != nil {
		return err
	}
	if uo.Prefix == 0 && g.config != "" {
		// The prefix key of the office file that named the hosts.
		if uo.Prefix, err = configPrefix(g.config, e, g); err != nil {
			return err
		}
	}
	sshCmd := af.sshCommand
	if sshCmd == "" {
		sshCmd = e.getenv("OFFICE_SSH_COMMAND")
	}
	// One host after the other, before the UI takes the terminal: each
	// ssh may still ask for a password here.
	var vh []remote.Host
	defer func() {
		for _, h := range vh {
			if h.Session != nil {
				h.Session.Close()
			}
		}
	}()
	reached := 0
	for _, h := range hosts {
		rh, err := openViewHost(ctx, e, g, h, sshCmd)
		if err != nil {
			return err
		}
		if rh.Session != nil {
			reached++
		} else {
			fmt.Fprintf(e.stderr, "office: host %s is unreachable (%v); the view retries it\n", h.Name, rh.DialErr)
		}
		vh = append(vh, rh)
	}
	if reached == 0 {
		return fmt.Errorf("attach: no host of the view answers: %v", vh[0].DialErr)
	}
	m, err := remote.NewMulti(vh, uiClient)
	if err != nil {
		return err
	}
	vh = nil // the view closes them
	defer m.Close()
	if err := ui.New(m, uo).Run(ctx); err != nil {
		return err
	}
	var bye *client.ByeError
	switch end := m.Ended(); {
	case errors.As(end, &bye) && bye.Failure != "":
		return fmt.Errorf("the office stopped: %s", bye.Failure)
	case errors.As(end, &bye):
		fmt.Fprintln(e.stderr, "office: the offices stopped; queue, inbox and mail are kept")
	case end != nil:
		return fmt.Errorf("attach: %w", end)
	default:
		fmt.Fprintln(e.stderr, "office: detached; the agents keep running ('office attach' again to see them)")
	}
	return nil
}

// openViewHost opens the session to one host of a view: this machine's
// server (started first when none runs, as 'office' does) or one through
// ssh (whose far side starts it). A server that does not answer is no
// error: the view dials it again; one that refuses this client is.
func openViewHost(ctx context.Context, e *env, g *globals, h configs.Host, sshCmd string) (remote.Host, error) {
	rh := remote.Host{Name: h.Name}
	var s *client.Session
	var err error
	if h.SSH != "" {
		rh.Transport = client.SSHTo(client.SSHRemote{Command: client.SSHCommand(sshCmd), Host: h.SSH, Office: h.Office,
			State: h.State, Config: h.Config, Start: true})
		rh.Start = func(context.Context) error { return nil } // dialling again starts it
		s, err = client.Open(ctx, rh.Transport, uiClient)
	} else {
		hg := &globals{config: h.Config, state: h.State, prefix: g.prefix}
		// err is the function's: the local session's answer (a refusal
		// above all) must reach the switch below.
		var dir string
		dir, err = stateDir(hg, e)
		if err != nil {
			return rh, err
		}
		rh.Transport = client.Local(dir)
		rh.Start = func(ctx context.Context) error { return startServer(ctx, e, hg, io.Discard) }
		if !engine.Running(dir) {
			if _, _, err := loadConfig(hg, e); err != nil {
				return rh, err
			}
			if err := startServer(ctx, e, hg, e.stderr); err != nil && !engine.Running(dir) {
				return rh, err
			}
		}
		s, err = openLocal(ctx, rh.Transport, dir)
	}
	var rf *wire.Refused
	switch {
	case errors.As(err, &rf):
		return rh, fmt.Errorf("attach: host %s: %w", h.Name, err)
	case err != nil:
		rh.DialErr = err
	default:
		rh.Session = s
	}
	return rh, nil
}

func runAttach(ctx context.Context, e *env, g *globals, start bool) error {
	dir, err := clientStateDir(g, e)
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
