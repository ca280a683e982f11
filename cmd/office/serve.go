package main

// serve.go runs the engine: `office serve` without a UI, `office` with one.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"office/engine"
	"office/ui"
)

// openEngine loads the config and starts the engine on the state dir, logging
// to STATE/office.log. The caller must Close the engine and the log.
func openEngine(e *env, g *globals, cols, rows int, opts func(*engine.Options)) (*engine.Engine, *os.File, string, error) {
	cfg, notice, err := loadConfig(g, e)
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
		return nil, nil, "", err
	}
	return eng, logf, notice, nil
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
		Short: "open the office with its UI (the default command)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runUI(c.Context(), e, g, uf)
		},
	}
	uf.add(c)
	return c
}

func runUI(ctx context.Context, e *env, g *globals, uf uiFlags) error {
	uo := ui.Options{NoMouse: uf.noMouse, Roster: uf.roster}
	prefix, from := g.prefix, "--prefix"
	if prefix == "" {
		prefix, from = e.getenv("OFFICE_PREFIX"), "OFFICE_PREFIX"
	}
	if prefix != "" {
		k, err := ui.ParsePrefix(prefix)
		if err != nil {
			return usagef("office: %s: %v", from, err)
		}
		uo.Prefix = k
	}
	cols, rows := ui.TerminalSize()
	// The UI sees the engine through a view (ui.Office) made before the
	// engine, since the engine's callbacks start in Open (agents start there).
	view := engine.NewUIView()
	eng, logf, notice, err := openEngine(e, g, cols, rows, func(o *engine.Options) {
		o.OnTerminal = view.TerminalEvent
		o.OnNotice = view.DrainNotice
	})
	if err != nil {
		return err
	}
	defer logf.Close()
	defer eng.Close()
	view.Attach(eng)
	uo.Notice = notice
	if uo.Prefix == 0 && eng.Config().Prefix != "" {
		// The config's prefix, unless --prefix or OFFICE_PREFIX chose one.
		k, err := ui.ParsePrefix(eng.Config().Prefix)
		if err != nil {
			return &inputError{fmt.Errorf("%s: prefix: %v", eng.Config().Path, err)}
		}
		uo.Prefix = k
	}
	uo.Env = e.environ
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runErr := make(chan error, 1)
	go func() {
		runErr <- eng.Run(ctx)
		cancel() // an engine that stopped by itself (its store was lost) ends the UI too
	}()
	go view.Run(ctx)
	view.OnQuit(cancel)
	err = ui.New(view, uo).Run(ctx)
	cancel()
	if rerr := <-runErr; errors.Is(rerr, engine.ErrStoreLost) {
		return rerr
	}
	return err
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
