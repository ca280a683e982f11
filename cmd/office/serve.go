package main

// serve.go runs the engine: `office serve` is the server in the foreground;
// `office` (and `office run`, `office attach`) is the UI, a client of the
// server (started in the background when none runs).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"office/client"
	"office/configs"
	"office/engine"
	"office/remote"
	"office/ui"
)

// openEngine loads the config and starts the engine on the state dir, logging
// to STATE/office.log. The caller must Close the engine and the log.
func openEngine(e *env, g *globals, cols, rows int, opts func(*engine.Options)) (*engine.Engine, *os.File, string, error) {
	cfg, notice, _, err := loadOfficeFile(g, e)
	if err != nil {
		return nil, nil, "", err
	}
	dir, err := stateDir(g, e)
	if err != nil {
		return nil, nil, "", err
	}
	if err := engine.EnsureStateDir(dir); err != nil {
		return nil, nil, "", err
	}
	logf, err := engine.OpenLog(dir)
	if err != nil {
		return nil, nil, "", err
	}
	o := engine.Options{
		Config:   cfg,
		StateDir: dir,
		Bin:      e.bin,
		HostEnv:  e.environ,
		Cols:     cols,
		Rows:     rows,
		Logger:   slog.New(slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
	if opts != nil {
		opts(&o)
	}
	eng, err := engine.Open(o)
	if err != nil {
		logf.Close()
		if le := (*engine.LockedError)(nil); errors.As(err, &le) {
			// Not bad input (exit 1): the command was right, the
			// directory is taken.
			return nil, nil, "", fmt.Errorf("%s; 'office' attaches to it, 'office stop' stops it", runningServer(dir))
		}
		return nil, nil, "", err
	}
	// Asked of the engine's store once it is open, not of a second open
	// before it: that open was on the way to the first agent's process.
	notice = joinNotices(notice, waitingIn(context.Background(), eng.Store(), cfg))
	// The next start without --config runs this office again. Only an
	// explicit --config changes the record: a remembered file missing for
	// a moment ran the default, and is kept for when it is back.
	if g.config != "" {
		path := g.config
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if err := recordOfficeFile(dir, path); err != nil {
			o.Logger.Warn("the office file is not remembered", "err", err)
			fmt.Fprintln(e.stderr, "office:", err)
		}
	}
	return eng, logf, notice, nil
}

// runningServer names the server running on dir: its pid and socket.
func runningServer(dir string) string {
	sock := filepath.Join(dir, engine.ClientSocketFile)
	if pid := engine.ServerPid(dir); pid > 0 {
		return fmt.Sprintf("a server already runs on %s (pid %d, socket %s)", dir, pid, sock)
	}
	return fmt.Sprintf("a server already runs on %s (socket %s)", dir, sock)
}

func newServeCmd(e *env, g *globals) *cobra.Command {
	var background bool
	c := &cobra.Command{
		Use:   "serve",
		Short: "run the office's server without a UI, in the foreground (scripts, systemd)",
		Long: `Run the office's server (its agents, drain, inbox and mail) in the foreground
until SIGTERM, SIGINT or 'office stop'. Clients attach to it on its socket:
the UI, 'office events', 'office wait', 'office attach --stdio' over ssh.
--background starts it detached instead, as 'office start' does.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if background {
				return startBackground(c.Context(), e, g)
			}
			return runServe(c.Context(), e, g)
		},
	}
	c.Flags().BoolVar(&background, "background", false, "start the server detached from this terminal and return once it answers (as 'office start')")
	return c
}

func runServe(ctx context.Context, e *env, g *globals) error {
	eng, logf, notice, err := openEngine(e, g, 0, 0, func(o *engine.Options) {
		log := o.Logger
		o.Web = webRunner(e, g, o.StateDir, log)
		o.OnNotice = func(n drainNotice) {
			log.Warn("notice", "agent", n.Agent, "kind", n.Kind, "msg", n.MsgID, "text", logPreview(n.Text), "bytes", len(n.Text))
		}
	})
	if err != nil {
		return err
	}
	defer logf.Close()
	defer eng.Close()
	if notice != "" {
		fmt.Fprintln(e.stderr, "office:", notice)
	}
	fmt.Fprintf(e.stderr, "office: serving %d agent(s); state in %s\n", len(eng.Agents()), engineDir(g, e))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-eng.StopRequested(): // `office stop`
			cancel()
		case <-ctx.Done():
		}
	}()
	err = eng.Run(ctx)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func engineDir(g *globals, e *env) string {
	d, _ := stateDir(g, e)
	return d
}

// uiFlags are the UI's own flags, on `office` and `office run`.
type uiFlags struct {
	noMouse, roster bool
}

func (u *uiFlags) add(c *cobra.Command) {
	c.Flags().BoolVar(&u.noMouse, "no-mouse", false, "leave the mouse to the terminal (no click to focus)")
	c.Flags().BoolVar(&u.roster, "roster", false, "start with the roster rail open")
}

func newRunCmd(e *env, g *globals) *cobra.Command {
	var uf uiFlags
	c := &cobra.Command{
		Use:   "run",
		Short: "open the office's UI, starting its server when none runs (the default command)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runUI(c.Context(), e, g, uf, remoteFlags{})
		},
	}
	uf.add(c)
	return c
}

// dialWait bounds how long the UI waits for a server that holds the state
// directory but does not answer yet (it is starting its agents).
const dialWait = startWait

// runUI runs the UI as a client of the office's server: the local state
// directory's (started in the background when none runs: the agents never
// belong to this terminal), or the one on rf.host through ssh.
func runUI(ctx context.Context, e *env, g *globals, uf uiFlags, rf remoteFlags) error {
	uo, err := uiOptions(e, g, uf)
	if err != nil {
		return err
	}
	tr, err := rf.transport(g, e)
	if err != nil {
		return err
	}
	ro := remote.Options{Where: "the office's server"}
	if rf.host != "" {
		ro.Where += " on " + rf.host
	}
	var sess *client.Session
	if rf.host == "" {
		dir, err := clientStateDir(g, e)
		if err != nil {
			return err
		}
		started, notice := false, ""
		if !engine.Running(dir) {
			// No server: this command reads the store and starts one, so
			// the whole directory is checked first.
			if err := engine.EnsureStateDir(dir); err != nil {
				return err
			}
			// A bad office file is said here (exit 2), not in the log of a
			// server that could not start.
			var cfg *configs.Config
			if cfg, notice, err = loadConfig(g, e); err != nil {
				return err
			}
			notice = joinNotices(notice, waitingNotice(ctx, dir, cfg))
			if err := startServer(ctx, e, g, e.stderr); err != nil && !engine.Running(dir) {
				return err
			}
			started = true
		}
		if sess, err = openLocal(ctx, tr, dir); err != nil {
			return err
		}
		w := sess.Conn().Welcome()
		if warn := configDiffers(g, w.Config); warn != "" {
			fmt.Fprintln(e.stderr, "office:", warn)
			uo.Notice = warn
		} else if started {
			uo.Notice = notice // which default agents were left out
		}
		if uo.Prefix == 0 && w.Prefix != "" {
			// The running server's office file's key, as it read it (with
			// 500 agents, parsing the file again here is 10 ms).
			if uo.Prefix, err = ui.ParsePrefix(w.Prefix); err != nil {
				sess.Close()
				return &inputError{fmt.Errorf("%s: prefix: %v", w.Config, err)}
			}
		}
		ro.Start = func(ctx context.Context) error { return startServer(ctx, e, g, io.Discard) }
	} else {
		if sess, err = client.Open(ctx, tr, uiClient); err != nil {
			return fmt.Errorf("attach: %w", err)
		}
		// The far side's bridge starts the server when none runs (--start):
		// starting it again is dialling again.
		ro.Start = func(context.Context) error { return nil }
	}
	defer sess.Close()
	office := remote.New(sess, ro)
	defer office.Close()
	releaseStartPages()
	err = ui.New(office, uo).Run(ctx)
	if err != nil {
		return err
	}
	var bye *client.ByeError
	switch end := office.Ended(); {
	case errors.As(end, &bye) && bye.Failure != "":
		return fmt.Errorf("the office stopped: %s", bye.Failure)
	case errors.As(end, &bye):
		fmt.Fprintln(e.stderr, "office: the office stopped; queue, inbox and mail are kept")
	case end != nil:
		return fmt.Errorf("attach: %w", end)
	default:
		fmt.Fprintln(e.stderr, "office: detached; the agents keep running ('office' attaches again, 'office stop' stops them)")
	}
	return nil
}

// uiOptions are the UI's options from its flags, --prefix and
// OFFICE_PREFIX; it fails when stdin is no terminal (before a server is
// started for a window that cannot open).
func uiOptions(e *env, g *globals, uf uiFlags) (ui.Options, error) {
	uo := ui.Options{NoMouse: uf.noMouse, Roster: uf.roster, Env: e.environ}
	prefix, from := g.prefix, "--prefix"
	if prefix == "" {
		prefix, from = e.getenv("OFFICE_PREFIX"), "OFFICE_PREFIX"
	}
	if prefix != "" {
		k, err := ui.ParsePrefix(prefix)
		if err != nil {
			return uo, usagef("office: %s: %v", from, err)
		}
		uo.Prefix = k
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return uo, errors.New("stdin is not a terminal: the UI needs one ('office start' runs the office without a UI)")
	}
	return uo, nil
}

// uiClient is what the UI asks of the server: the screens of the panes it
// draws (it subscribes to them) and the event stream (its notices).
var uiClient = client.Options{Client: "office", Screens: true, Subscribe: true, Events: true}

// openLocal attaches to the server of dir, waiting while it holds the state
// directory but does not answer yet (it is starting).
func openLocal(ctx context.Context, tr client.Transport, dir string) (*client.Session, error) {
	return openLocalAs(ctx, tr, dir, uiClient)
}

// openLocalAs is openLocal asking for o.
func openLocalAs(ctx context.Context, tr client.Transport, dir string, o client.Options) (*client.Session, error) {
	deadline := time.Now().Add(dialWait)
	for {
		s, err := client.Open(ctx, tr, o)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, client.ErrNoServer) || !engine.Running(dir) || time.Now().After(deadline) {
			return nil, fmt.Errorf("attach: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(startPoll):
		}
	}
}

// configDiffers warns when --config names another file than the one the
// running server runs (the UI attaches to the server whatever --config says).
func configDiffers(g *globals, running string) string {
	if g.config == "" {
		return ""
	}
	want, err := filepath.Abs(g.config)
	if err != nil {
		want = g.config
	}
	have := running
	if have != "" {
		if a, err := filepath.Abs(have); err == nil {
			have = a
		}
	}
	if want == have {
		return ""
	}
	if have == "" {
		have = "the embedded default office"
	}
	return fmt.Sprintf("--config %s differs from the running office's file (%s); attached to the running office (to run %s: 'office stop', then 'office --config %s')",
		g.config, have, g.config, g.config)
}

// configPrefix is the prefix key the running server's office file sets
// (path "" is the embedded default).
func configPrefix(path string, e *env, g *globals) (byte, error) {
	var cfg *configs.Config
	var err error
	if path != "" {
		cfg, err = configs.Load(path)
	} else {
		cfg, _, err = loadConfig(&globals{state: g.state}, e)
	}
	if err != nil || cfg.Prefix == "" {
		return 0, nil // the file changed since the server read it: the default key
	}
	k, err := ui.ParsePrefix(cfg.Prefix)
	if err != nil {
		return 0, &inputError{fmt.Errorf("%s: prefix: %v", cfg.Path, err)}
	}
	return k, nil
}

// logPreview is what the log keeps of a body: its first 80 runes (a body is
// up to 1 MiB; the log never carries it whole). Log its length beside it.
func logPreview(text string) string {
	const max = 80
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	return string([]rune(text[:min(len(text), 4*max)])[:max]) + "…"
}
