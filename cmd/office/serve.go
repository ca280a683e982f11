package main

// serve.go runs the engine: `office serve` without a UI, `office` with one.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

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

func runServe(ctx context.Context, e *env, g *globals, args []string) error {
	if err := rejectFlags("serve", args); err != nil {
		return err
	}
	if len(args) > 0 {
		return usagef("usage: office serve [--config FILE] [--state DIR]")
	}
	eng, logf, notice, err := openEngine(e, g, 0, 0, func(o *engine.Options) {
		log := o.Logger
		o.OnNotice = func(n drainNotice) {
			log.Warn("notice", "agent", n.Agent, "kind", n.Kind, "msg", n.MsgID, "text", n.Text)
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

func runUI(ctx context.Context, e *env, g *globals, args []string) error {
	if err := rejectFlags("run", args); err != nil {
		return err
	}
	if len(args) > 0 {
		return usagef("usage: office [run] [--config FILE] [--state DIR]")
	}
	cols, rows := ui.TerminalSize()
	var app *ui.App
	eng, logf, notice, err := openEngine(e, g, cols, rows, func(o *engine.Options) {
		o.OnTerminal = func(ev poolEvent) {
			if app != nil {
				app.TerminalChanged(ev)
			}
		}
		o.OnNotice = func(n drainNotice) {
			if app != nil {
				app.Notice(n)
			}
		}
	})
	if err != nil {
		return err
	}
	defer logf.Close()
	defer eng.Close()
	app = ui.New(eng, ui.Options{Notice: notice})
	return app.Run(ctx)
}
