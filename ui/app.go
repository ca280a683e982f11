package ui

// app.go runs the UI on the person's terminal: raw mode, the alternate
// screen, bracketed paste, SGR mouse, focus reports and the kitty keyboard
// protocol asked of the outer terminal; Bubble Tea v2 reads and decodes the
// input and runs the loop, the model draws its own frames through
// ultraviolet's renderer (screen.go) whenever something changed.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"office/configs"
)

// DefaultPrefix is the prefix key: Ctrl-] (0x1d), as in telnet.
const DefaultPrefix byte = 0x1d

// Options configure the UI. The zero value reads os.Stdin, writes
// os.Stdout, uses DefaultPrefix, turns mouse reporting on and takes NO_COLOR
// and TERM from the environment.
type Options struct {
	// Notice is put in the notice list at start.
	Notice string
	// Prefix is the prefix key's byte; 0 means DefaultPrefix.
	Prefix byte
	// NoMouse leaves the person's terminal's mouse alone.
	NoMouse bool
	// Roster shows the roster rail at start.
	Roster bool
	// NoColor draws the chrome without colours (NO_COLOR set).
	NoColor bool
	// Env is the environment (TERM, COLORTERM, NO_COLOR); nil means
	// os.Environ().
	Env []string
	// In and Out are the person's terminal; nil means os.Stdin / os.Stdout.
	In  *os.File
	Out *os.File
}

// App is the office UI for one office.
type App struct {
	office Office
	opts   Options
}

// New returns the UI for office.
func New(office Office, opts Options) *App {
	if opts.Prefix == 0 {
		opts.Prefix = DefaultPrefix
	}
	if opts.In == nil {
		opts.In = os.Stdin
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	for _, kv := range opts.Env {
		if v, ok := strings.CutPrefix(kv, "NO_COLOR="); ok && v != "" {
			opts.NoColor = true
		}
	}
	return &App{office: office, opts: opts}
}

// TerminalSize returns the size of the person's terminal (stdout), or 120×40
// when it is not a terminal.
func TerminalSize() (cols, rows int) {
	c, r, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil || c <= 0 || r <= 0 {
		return 120, 40
	}
	return c, r
}

// Sequences office sends the person's terminal.
const (
	// kittyPush asks for disambiguated keys (Shift+Enter and the like),
	// modifyOtherKeys 2 the same of an xterm-like terminal; kittyPop and
	// the reset take them back.
	kittyPush = "\x1b[>1u\x1b[>4;2m"
	kittyPop  = "\x1b[>4m\x1b[<u"
	mouseOn   = "\x1b[?1000h\x1b[?1002h\x1b[?1006h"
	mouseOff  = "\x1b[?1006l\x1b[?1002l\x1b[?1000l"
)

// colorEnv is env without NO_COLOR: agents' own colours are downsampled to
// what the terminal shows, NO_COLOR applies to office's chrome.
func colorEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			out = append(out, kv)
		}
	}
	return out
}

// Run shows the UI until the person quits (prefix, x, y) or ctx ends.
func (a *App) Run(ctx context.Context) error {
	inFd := int(a.opts.In.Fd())
	if !term.IsTerminal(inFd) {
		return errors.New("ui: stdin is not a terminal (use 'office serve' to run without a UI)")
	}
	old, err := term.MakeRaw(inFd)
	if err != nil {
		return fmt.Errorf("ui: raw mode: %w", err)
	}
	defer term.Restore(inFd, old)
	on := ansi.SetModeAltScreenSaveCursor + ansi.SetModeBracketedPaste + ansi.SetModeFocusEvent + kittyPush +
		ansi.RequestKittyKeyboard + ansi.RequestBackgroundColor
	off := kittyPop + ansi.ResetModeFocusEvent + ansi.ResetModeBracketedPaste + ansi.SetCursorStyle(0) +
		ansi.ShowCursor + ansi.ResetModeAltScreenSaveCursor
	if !a.opts.NoMouse {
		on += mouseOn
		off = mouseOff + off
	}
	io.WriteString(a.opts.Out, on)
	defer io.WriteString(a.opts.Out, off)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cols, rows, err := term.GetSize(int(a.opts.Out.Fd()))
	if err != nil {
		cols, rows = 120, 40
	}
	env := colorEnv(a.opts.Env)
	profile := colorprofile.Detect(a.opts.Out, env)
	m := newModel(a.office, a.opts)
	m.out = newOutput(a.opts.Out, env, profile)
	// Frames go through office's own renderer (m.out), drawn when output
	// arrives. Bubble Tea still runs a ticker at its frame rate to flush
	// the sequences its commands queue; office issues none (it writes its
	// terminal modes itself, above), so the ticker only costs wakeups: 60
	// a second were 1.2 % of a core for an idle attached UI (test/bench
	// idle part). Once a second is enough should a command ever queue one
	// (the clipboard, too, is written by office directly).
	in, stopInput := pollableInput(a.opts.In)
	defer stopInput()
	prog := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(a.opts.Out), tea.WithoutRenderer(), tea.WithFPS(1),
		tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithWindowSize(cols, rows), tea.WithEnvironment(a.opts.Env),
		tea.WithColorProfile(profile))
	m.notify = newNotifier(func(c changedMsg) { prog.Send(c) })
	m.focusChanged()
	stop := a.office.Watch(m.notify.change)
	defer stop()
	// What changed between newModel and Watch was told to nobody: read all.
	m.notify.change(Change{Kind: ChangeRoster})

	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-winch:
				if c, r, err := term.GetSize(int(a.opts.Out.Fd())); err == nil {
					prog.Send(tea.WindowSizeMsg{Width: c, Height: r})
				}
			}
		}
	}()
	_, err = prog.Run()
	cancel()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("ui: %w", err)
	}
	return nil
}

// ParsePrefix reads a prefix key as the person writes it (configs.ParsePrefix,
// the one reading of it): "C-]", "C-a", "Ctrl-B", "^A", or one printable
// ASCII character.
func ParsePrefix(s string) (byte, error) { return configs.ParsePrefix(s) }
