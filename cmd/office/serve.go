package main

// serve.go runs the engine: `office serve` without a UI, `office` with one.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"

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
	uo := ui.Options{}
	if v := e.getenv("OFFICE_PREFIX"); v != "" {
		k, err := ui.ParsePrefix(v)
		if err != nil {
			return usagef("OFFICE_PREFIX: %v", err)
		}
		uo.Prefix = k
	}
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--no-mouse":
			uo.NoMouse = true
		case a == "--roster":
			uo.Roster = true
		case a == "--prefix" || strings.HasPrefix(a, "--prefix="):
			v, ok := strings.CutPrefix(a, "--prefix=")
			if !ok {
				if i+1 >= len(args) {
					return usagef("office: --prefix needs a key (C-] or C-a)")
				}
				i++
				v = args[i]
			}
			k, err := ui.ParsePrefix(v)
			if err != nil {
				return usagef("office: %v", err)
			}
			uo.Prefix = k
		default:
			rest = append(rest, a)
		}
	}
	if err := rejectFlags("run", rest); err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("usage: office [run] [--config FILE] [--state DIR] [--prefix KEY] [--no-mouse] [--roster]")
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
