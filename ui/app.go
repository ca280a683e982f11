package ui

// app.go runs the Bubble Tea program around an engine: raw stdin, the outer
// terminal's modes, and the notices that arrive from other goroutines.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"

	"office/drain"
	"office/engine"
	"office/pool"
)

// DefaultPrefix is the prefix key: Ctrl-] (0x1d), as in telnet.
const DefaultPrefix byte = 0x1d

// Options configure the UI. The zero value reads os.Stdin, writes os.Stdout
// and uses DefaultPrefix.
type Options struct {
	// Notice is shown at the bottom at start (e.g. which default agents were
	// not found).
	Notice string
	// Prefix is the prefix key's byte; 0 means DefaultPrefix.
	Prefix byte
	// In and Out are the person's terminal; nil means os.Stdin / os.Stdout.
	In  *os.File
	Out *os.File
}

// App is the office UI for one engine.
type App struct {
	eng  *engine.Engine
	opts Options

	mu      sync.Mutex
	notices []string // from other goroutines, taken by the next frame
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

// TerminalChanged is called by the engine on terminal changes; the UI polls
// screens every frame, so it only records exits as notices. It never blocks.
func (a *App) TerminalChanged(ev pool.Event) {
	if ev.Kind != pool.EventExit {
		return
	}
	if ag, ok := a.eng.Agent(ev.Agent); ok && ag.Term != nil {
		_, code := ag.Term.Exited()
		a.addNotice(fmt.Sprintf("%s exited with code %d", ev.Agent, code))
	}
}

// Notice records a drain notice for the notice line, with a bell. It never blocks.
func (a *App) Notice(n drain.Notice) {
	a.addNotice(fmt.Sprintf("%s: %s", n.Agent, n.Text))
}

func (a *App) addNotice(s string) {
	a.mu.Lock()
	a.notices = append(a.notices, s)
	a.mu.Unlock()
}

func (a *App) takeNotices() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.notices
	a.notices = nil
	return n
}

// Run shows the UI until the person quits (prefix, x, y) or ctx ends. The
// engine's drain runs alongside; the caller closes the engine afterwards.
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
	// Bracketed paste on the person's terminal, so a paste reaches the
	// focused agent as one paste.
	io.WriteString(a.opts.Out, "\x1b[?2004h")
	defer io.WriteString(a.opts.Out, "\x1b[?2004l")

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- a.eng.Run(ctx) }()

	m := newModel(a.eng, a, a.opts)
	prog := tea.NewProgram(m, tea.WithAltScreen(), tea.WithInput(nil), tea.WithOutput(a.opts.Out),
		tea.WithContext(ctx), tea.WithoutSignalHandler())
	go readInput(a.opts.In, prog)
	_, err = prog.Run()
	cancel()
	<-runErr
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
