package ui

// app.go runs the Bubble Tea program around an engine: the person's terminal
// in raw mode (bracketed paste and SGR mouse reporting on), stdin read raw,
// and the notices that arrive from the engine's goroutines.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"

	"office/automation"
	"office/drain"
	"office/engine"
	"office/pool"
)

// DefaultPrefix is the prefix key: Ctrl-] (0x1d), as in telnet.
const DefaultPrefix byte = 0x1d

// Terminal modes office sets on the person's terminal while it runs.
const (
	pasteOn  = "\x1b[?2004h"
	pasteOff = "\x1b[?2004l"
	// mouseOn asks for press, release and drag reports in SGR encoding.
	mouseOn  = "\x1b[?1000h\x1b[?1002h\x1b[?1006h"
	mouseOff = "\x1b[?1006l\x1b[?1002l\x1b[?1000l"
)

// Options configure the UI. The zero value reads os.Stdin, writes os.Stdout,
// uses DefaultPrefix and turns mouse reporting on.
type Options struct {
	// Notice is put in the notice list at start (e.g. which default agents
	// were not found).
	Notice string
	// Prefix is the prefix key's byte; 0 means DefaultPrefix.
	Prefix byte
	// NoMouse leaves the person's terminal's mouse alone (no click to
	// focus, no mouse for agents; the terminal's own selection works).
	NoMouse bool
	// Roster shows the roster rail at start.
	Roster bool
	// In and Out are the person's terminal; nil means os.Stdin / os.Stdout.
	In  *os.File
	Out *os.File
}

// App is the office UI for one engine.
type App struct {
	eng    *engine.Engine
	opts   Options
	intake intake
}

// New returns the UI for eng.
func New(eng *engine.Engine, opts Options) *App {
	if opts.Prefix == 0 {
		opts.Prefix = DefaultPrefix
	}
	if opts.In == nil {
		opts.In = os.Stdin
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	return &App{eng: eng, opts: opts}
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

// TerminalChanged is the engine's terminal callback (engine.Options.OnTerminal):
// an exit, and a status that turns to waiting for the person, become notices.
// It never blocks.
func (a *App) TerminalChanged(ev pool.Event) {
	if ev.Kind != pool.EventExit && ev.Kind != pool.EventStatus {
		return
	}
	ag, ok := a.eng.Agent(ev.Agent)
	if !ok || ag.Term == nil {
		return
	}
	if ev.Kind == pool.EventExit {
		_, code := ag.Term.Exited()
		a.intake.add(notice{agent: ev.Agent, kind: "exit", text: fmt.Sprintf("exited with code %d", code)})
		return
	}
	if a.intake.setWaiting(ev.Agent, ag.Term.Status() == automation.StatusWaiting) {
		a.intake.add(notice{agent: ev.Agent, kind: "waiting", text: "is waiting for you"})
	}
}

// Notice is the engine's notice callback (engine.Options.OnNotice): the
// drain gave up on a message. It never blocks.
func (a *App) Notice(n drain.Notice) {
	a.intake.add(drainNotice(n))
}

// Run shows the UI until the person quits (prefix, x, y) or ctx ends. The
// engine's drain runs alongside; the caller closes the engine afterwards
// (which stops the agents; queued messages stay in the store).
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
	modesOn, modesOff := pasteOn, pasteOff
	if !a.opts.NoMouse {
		modesOn, modesOff = modesOn+mouseOn, mouseOff+modesOff
	}
	io.WriteString(a.opts.Out, modesOn)
	defer io.WriteString(a.opts.Out, modesOff)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runErr := make(chan error, 1)

	m := newModel(engineSource{a.eng}, &a.intake, a.opts.Out, a.opts)
	prog := tea.NewProgram(m, tea.WithAltScreen(), tea.WithInput(nil), tea.WithOutput(a.opts.Out),
		tea.WithContext(ctx), tea.WithoutSignalHandler())
	go func() {
		err := a.eng.Run(ctx)
		runErr <- err
		if ctx.Err() == nil {
			prog.Quit() // the engine stopped by itself (its store was lost): leave and say why
		}
	}()
	go readInput(a.opts.In, prog)
	_, err = prog.Run()
	cancel()
	if rerr := <-runErr; errors.Is(rerr, engine.ErrStoreLost) {
		return rerr
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("ui: %w", err)
	}
	return nil
}

// readInput forwards raw stdin chunks to the program until stdin fails.
func readInput(in io.Reader, prog *tea.Program) {
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			prog.Send(inputMsg(append([]byte(nil), buf[:n]...)))
		}
		if err != nil {
			return
		}
	}
}

// ParsePrefix reads a prefix key as the person writes it: "C-]", "C-a",
// "Ctrl-B", "^A" (any control key), or one printable ASCII character.
func ParsePrefix(s string) (byte, error) {
	rest := s
	for _, p := range []string{"C-", "c-", "Ctrl-", "ctrl-", "CTRL-", "^"} {
		if len(s) > len(p) && s[:len(p)] == p {
			rest = s[len(p):]
			if len(rest) != 1 {
				break
			}
			c := rest[0]
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			if c < '@' || c > '_' {
				break
			}
			return c - '@', nil
		}
	}
	if len(s) == 1 && s[0] > 0x20 && s[0] < 0x7f {
		return s[0], nil
	}
	return 0, fmt.Errorf("ui: prefix key %q: want a control key such as C-] or C-a", s)
}
