package main

// serve.go runs the engine: `office serve` without a UI, `office` with one.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
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
	logf, err := os.OpenFile(filepath.Join(dir, engine.LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, "", fmt.Errorf("open log: %w", err)
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
	return &cobra.Command{
		Use:   "serve",
		Short: "run the office's engine without a UI (scripts, tests)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runServe(c.Context(), e, g)
		},
	}
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
	// The engine's callbacks start before the UI exists (agents start in
	// Open), on the engine's goroutines: hand the App over atomically.
	var app atomic.Pointer[ui.App]
	eng, logf, notice, err := openEngine(e, g, cols, rows, func(o *engine.Options) {
		o.OnTerminal = func(ev poolEvent) {
			if a := app.Load(); a != nil {
				a.TerminalChanged(ev)
			}
		}
		o.OnNotice = func(n drainNotice) {
			if a := app.Load(); a != nil {
				a.Notice(n)
			}
		}
	})
	if err != nil {
		return err
	}
	defer logf.Close()
	defer eng.Close()
	uo.Notice = notice
	if uo.Prefix == 0 && eng.Config().Prefix != "" {
		// The config's prefix, unless --prefix or OFFICE_PREFIX chose one.
		k, err := ui.ParsePrefix(eng.Config().Prefix)
		if err != nil {
			return &inputError{fmt.Errorf("%s: prefix: %v", eng.Config().Path, err)}
		}
		uo.Prefix = k
	}
	a := ui.New(eng, uo)
	app.Store(a)
	return a.Run(ctx)
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
