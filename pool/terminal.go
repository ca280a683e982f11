package pool

// terminal.go is one agent: its process, PTY, screen, line model, status and
// exit, and the goroutines that serve them (reader, waiter, monitor, and a
// writer while writes are queued).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"office/automation"
	"office/configs"
)

// readBufSize is the PTY read buffer.
const readBufSize = 32 * 1024

// monitorBytes bounds the output the reader takes in, while more keeps
// arriving, before it wakes the status monitor anyway (about 5-30 ms of
// vt10x's parsing). Otherwise the monitor is woken once the PTY has nothing
// more to read, not after every read (readLoop).
const monitorBytes = 64 * 1024

// judgeLag is how long after a burst of output ends the monitor is woken to
// judge it, so that the clients' writers the same output woke (a key's
// echo: the focused pane's flush) run first. Woken at once, the monitor
// took the other CPU of a 2-core machine, and the screen's lock, while they
// copied the screen: the echo's flush waited for it in a quarter of the
// keys (70 µs when it did). Status, readiness and the prompt's reading
// follow the screen this much later; every rule that reads them waits
// hundreds of milliseconds, and the drain reads the prompt row itself
// before it types (Block). It is real time, not the Clock's: an order of
// work, not a rule.
const judgeLag = time.Millisecond

// judgeLagMax bounds how long more output or keys may keep postponing that
// judgment (signalOutputLater): a burst's end is judged judgeLag after the
// last of it, a stream whose pauses are all shorter than judgeLag at least
// this often (and after every monitorBytes).
const judgeLagMax = 10 * judgeLag

// Behavior is how to read one kind of agent's screen: where its prompt is, what
// busy, idle and waiting look like, and when it is ready. It is data from the
// agent's profile; the zero value reads nothing from the screen (idle after 12 s
// without output, ready after the first output and 2 s of quiet).
type Behavior struct {
	// Prompt says where the input row is.
	Prompt PromptSpec
	// Status holds the title and screen patterns for busy, idle and waiting.
	Status automation.StatusRules
	// ReadyMarkers must all be on screen for the CLI to count as ready; nil
	// means ready after the first output and Timing.ReadyQuiet
	// (automation.CustomReadyQuiet) of quiet.
	ReadyMarkers []string
	// ReadySettle is how long the markers must have been visible, and the
	// screen still, before the CLI counts as ready.
	ReadySettle time.Duration
	// ShellIdle judges status by the PTY's foreground process group: idle
	// exactly when the agent's own process (the shell) is in the foreground.
	ShellIdle bool
	// Interactive extends the bare commands that open a picker.
	Interactive []string
	// BootGrace ends the wait for ready markers that never show; 0 means
	// automation.BootGrace (the office file's boot_grace).
	BootGrace time.Duration
	// RecoverSettle is the settling after RecoverPrompt; 0 means
	// automation.RecoverPromptSettle (recover_settle).
	RecoverSettle time.Duration
	// HangupGrace is how long Close waits after SIGHUP before SIGKILL; 0
	// means the settings table's 2 s (hangup_grace).
	HangupGrace time.Duration
	// ShellPoll is how often a ShellIdle agent's foreground process group
	// is read: no event says a job started or ended (an O(1) ioctl); 0
	// means the settings table's 100 ms (shell_poll).
	ShellPoll time.Duration
	// ShellPromptQuiet is how long a ShellIdle agent's output must have
	// been quiet after a command returned before the cursor is taken as the
	// end of its prompt; 0 means the settings table's 150 ms
	// (shell_prompt_quiet).
	ShellPromptQuiet time.Duration
	// Timing is the line model's, readiness's, the debouncer's, the hook
	// reports' and the turn's windows (stale, echo_grace, picker_settle,
	// ready_quiet, status_debounce, hook_stale, hook_waiting_stale,
	// turn_grace); its zero value is automation's constants.
	Timing automation.Timing
	// Limit is how the terminal turns a usage-limit banner into a hold
	// (limit.go).
	Limit LimitBehavior
}

// readsScreen reports whether b reads anything on the screen's cells (a
// prompt row, ready markers, status patterns, a shell's prompt). One that
// does not (a custom command) is judged without a snapshot of the screen:
// its title and modes, readiness and output times suffice.
func (b Behavior) readsScreen() bool {
	s := b.Status
	return b.Prompt.Marker != "" || len(b.ReadyMarkers) > 0 || b.ShellIdle ||
		len(s.Busy) > 0 || len(s.Idle) > 0 || len(s.Waiting) > 0 || b.readsLimits()
}

// readsText reports whether b matches text anywhere on the screen (ready
// markers, status patterns): only then is the screen's text built per read.
func (b Behavior) readsText() bool {
	s := b.Status
	return len(b.ReadyMarkers) > 0 || len(s.Busy) > 0 || len(s.Idle) > 0 || len(s.Waiting) > 0 || b.readsLimits()
}

// EventKind says what changed in a Terminal.
type EventKind int

// The kinds of Event.
const (
	// EventOutput: the screen changed.
	EventOutput EventKind = iota
	// EventStatus: the debounced status changed.
	EventStatus
	// EventGate: the draft, picker or settling state changed.
	EventGate
	// EventExit: the process exited.
	EventExit
	// EventTurnStart: a submitting Enter started a turn, or joined the one
	// running (Event.Turn says which, and why: automation.Turn).
	EventTurnStart
	// EventTurnEnd: the turn ended: the agent showed busy and is idle again,
	// or it is idle the turn grace after the Enter without ever showing
	// busy, or it exited.
	EventTurnEnd
	// EventBootOverdue: the boot grace ended before the profile's readiness
	// was seen (once per terminal; see BootOverdue).
	EventBootOverdue
	// EventLimit: a new usage-limit banner showed; the terminal holds
	// itself (Limit) until the engine decides the account's hold.
	EventLimit
	// EventNotify: the agent's CLI sent a notification (OSC 9, 777, 99 or
	// BEL; Event.Note, notify.go).
	EventNotify
	// EventModelSwitch: a new row says the CLI switched itself to another
	// model after a quota message (ModelSwitch, limit.go); nothing is held.
	EventModelSwitch
)

// Event tells a listener what changed; it carries no other state (read it
// from the Terminal), except the turn of a turn event.
type Event struct {
	Agent string
	Kind  EventKind
	// Turn is the turn machine's event (EventTurnStart, EventTurnEnd only).
	Turn automation.TurnEvent
	// Note is the notification (EventNotify only).
	Note Note
}

// Options start a Terminal. Argv and Env are used exactly as given.
type Options struct {
	// Name is the agent's name, used in errors and events.
	Name string
	// Argv is the program and its arguments; Argv[0] is looked up in Env's PATH.
	Argv []string
	// Env is the whole environment of the process; nil means empty.
	Env []string
	// Dir is the working directory; "" means the office's.
	Dir string
	// Cols and Rows are the initial size; zero means 80×24.
	Cols, Rows int
	// Behavior says how to read the screen.
	Behavior Behavior
	// Now is the clock; nil means Clock's, else time.Now.
	Now func() time.Time
	// Clock is the clock the monitor sleeps on; nil means the wall clock.
	Clock Clock
	// Notify, if set, is called on every change; it must not block. It runs on
	// the terminal's own goroutines.
	Notify func(Event)
	// History, if set, receives every line that scrolls off the top of the
	// main screen, and the last screen once the output ends (history_capture.go).
	History *History
}

// Terminal is one agent running in a PTY. It is safe for concurrent use.
type Terminal struct {
	name     string
	pid      int
	cmd      *exec.Cmd
	master   *os.File
	screen   *Screen
	behavior Behavior
	now      func() time.Time
	clock    Clock
	notify   func(Event)
	spawned  time.Time

	writes *writeQueue

	done      chan struct{} // closed when the process has been reaped
	closed    chan struct{} // closed by Close
	readDone  chan struct{} // closed when the reader returns
	closeOnce sync.Once
	outputSig chan struct{} // reader → monitor, size 1
	lag       *time.Timer   // signals outputSig judgeLag after a burst (signalOutputLater)
	lagArmed  atomic.Bool   // lag is set and has not fired
	lagSince  atomic.Int64  // when lag was armed (real time, unix nanos)

	lastOutput atomic.Int64  // unix nanos
	judgments  atomic.Uint64 // how many times the monitor judged

	mu         sync.Mutex
	tracker    automation.Tracker
	exited     bool
	exitCode   int
	exitErr    error
	status     automation.Status // debounced from judgment.Status
	signal     string            // the deciding signal of the judgment status was adopted from
	debounce   automation.StatusDebouncer
	judgment   automation.Judgment // the judge's last answer
	obs        observed            // the judge's inputs pool keeps between reads
	promptText string
	promptOK   bool
	promptGen  uint64     // the screen's generation when the prompt was last read (at least)
	view       screenView // what the last screen read gave the judge
	rows       rowCache   // the screen's rows as last read (rows.go)
	unjudged   bool       // a read changed an input of the judge since it last ran
	wake       time.Time  // when the monitor judges next with no event
	poked      atomic.Bool
	lastGen    uint64
	turn       automation.Turn // the current turn (the person's Enter reads busy until it shows busy)
	turnEnding int             // turn ends judged whose EventTurnEnd is not yet delivered (TurnOpen)
	lim        limitState      // the usage-limit hold and the banners seen (limit.go)

	notes notes // the agent's own notifications on their way out (notify.go)
}

// Start runs o.Argv in a new PTY and starts serving it. The returned Terminal
// must be closed with Close. A command that cannot start returns *SpawnError.
func Start(o Options) (*Terminal, error) {
	if o.Cols <= 0 {
		o.Cols = defaultCols
	}
	if o.Rows <= 0 {
		o.Rows = defaultRows
	}
	clock := o.Clock
	if clock == nil {
		clock = realClock{}
	}
	now := o.Now
	if now == nil {
		now = clock.Now
	}
	cmd, master, err := startPTY(&o)
	if err != nil {
		return nil, &SpawnError{Agent: o.Name, Argv: o.Argv, Err: err}
	}
	t := &Terminal{
		name:      o.Name,
		pid:       cmd.Process.Pid,
		cmd:       cmd,
		master:    master,
		behavior:  o.Behavior,
		now:       now,
		clock:     clock,
		notify:    o.Notify,
		spawned:   now(),
		done:      make(chan struct{}),
		closed:    make(chan struct{}),
		readDone:  make(chan struct{}),
		outputSig: make(chan struct{}, 1),
		status:    automation.StatusStarting,
	}
	t.lag = time.AfterFunc(time.Hour, func() {
		t.lagArmed.Store(false)
		t.signalOutput()
	})
	t.lag.Stop()
	if t.behavior.ShellPoll <= 0 || t.behavior.ShellPromptQuiet <= 0 {
		d := configs.Defaults()
		t.behavior.ShellPoll = orDefault(t.behavior.ShellPoll, d.ShellPoll)
		t.behavior.ShellPromptQuiet = orDefault(t.behavior.ShellPromptQuiet, d.ShellPromptQuiet)
	}
	t.tracker.Extra = o.Behavior.Interactive
	t.tracker.Timing = o.Behavior.Timing
	t.debounce.After = o.Behavior.Timing.StatusDebounce
	t.turn.Grace = o.Behavior.Timing.TurnGrace
	t.writes = newWriteQueue(master, t.done, t.closed)
	t.screen = NewScreen(o.Cols, o.Rows, t.writes.reply)
	t.poke() // the first judgment, before any output
	if o.History != nil {
		t.screen.CaptureHistory(o.History, now)
	}
	go t.readLoop()
	go t.wait()
	go t.monitor()
	return t, nil
}

// Name returns the agent's name.
func (t *Terminal) Name() string { return t.name }

// Pid returns the process id of the agent's process (also its process group).
func (t *Terminal) Pid() int { return t.pid }

// Spawned returns when the process was started.
func (t *Terminal) Spawned() time.Time { return t.spawned }

func (t *Terminal) emit(k EventKind) {
	if t.notify != nil {
		t.notify(Event{Agent: t.name, Kind: k})
	}
}

// emitTurn reports a turn event.
func (t *Terminal) emitTurn(ev automation.TurnEvent) {
	k := EventTurnStart
	if ev.Kind == automation.TurnEnded {
		k = EventTurnEnd
	}
	if t.notify != nil && ev.Kind != automation.TurnNone {
		t.notify(Event{Agent: t.name, Kind: k, Turn: ev})
	}
	if ev.Kind == automation.TurnEnded {
		t.mu.Lock()
		t.turnEnding--
		t.mu.Unlock()
	}
}

// TurnOpen reports whether a turn is open: submitted and its end not yet
// seen, or its end seen but its EventTurnEnd not yet returned from the
// Notify function (so a caller that marks the end there never sees a gap
// between the two).
func (t *Terminal) TurnOpen() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.turn.Open() || t.turnEnding > 0
}

// readBufs are the PTY read buffers, shared by every terminal: a reader
// takes one only once its PTY is readable and gives it back after feeding
// the screen, so an idle agent holds none (a buffer per blocked reader would
// be 32 KiB each, on its goroutine's stack).
var readBufs = sync.Pool{New: func() any { b := make([]byte, readBufSize); return &b }}

// readLoop drains the PTY into the screen until the PTY reports EIO (every
// slave descriptor closed) or Close closes the master.
func (t *Terminal) readLoop() {
	defer close(t.readDone)
	defer t.screen.retireHistory()
	// unsignalled counts the bytes fed since the monitor was last woken.
	// The monitor judges the screen as it is when it runs, so one wakeup
	// for a burst of reads is one judgment of its end: it is woken
	// judgeLag after the PTY has nothing more to read (EAGAIN, before
	// waiting), or at once after monitorBytes, instead of after each read
	// (a wakeup per 4 KiB read was a goroutine switch and a contended
	// screen lock each).
	unsignalled := 0
	defer func() {
		if unsignalled > 0 {
			t.signalOutput()
		}
	}()
	rc, err := t.master.SyscallConn()
	if err != nil {
		return
	}
	for {
		var buf *[]byte
		var n int
		var rerr error
		// The callback runs when the poller says the master may be
		// readable; EAGAIN waits again without holding a buffer.
		err := rc.Read(func(fd uintptr) bool {
			buf = readBufs.Get().(*[]byte)
			for {
				n, rerr = unix.Read(int(fd), *buf)
				if rerr != unix.EINTR {
					break
				}
			}
			if rerr == unix.EAGAIN {
				readBufs.Put(buf)
				buf = nil
				if unsignalled > 0 {
					unsignalled = 0
					t.signalOutputLater()
				}
				return false
			}
			// Whatever more the PTY holds now joins this read (the
			// kernel hands over at most 4 KiB a read): the screen takes
			// it in one Feed, so a frame split between reads is written
			// to vt10x once, as it ends (batch.go), not half first.
			for rerr == nil && n > 0 && n < len(*buf) {
				m, err := unix.Read(int(fd), (*buf)[n:])
				if err == unix.EINTR {
					continue
				}
				if err != nil || m <= 0 {
					break // EAGAIN, or an end the next read reports
				}
				n += m
			}
			return true
		})
		if n > 0 {
			t.feed((*buf)[:n])
			if unsignalled += n; unsignalled >= monitorBytes {
				unsignalled = 0
				t.signalOutput()
			}
		}
		if buf != nil {
			readBufs.Put(buf)
		}
		if err != nil || rerr != nil || n <= 0 {
			// EIO (child side closed), EOF or os.ErrClosed (Close):
			// either way the stream is over. Exit status comes from wait,
			// not from here.
			return
		}
	}
}

// feed takes one read's bytes into the screen and tells who draws it; the
// reader wakes the monitor (signalOutput) once a burst of reads ends.
func (t *Terminal) feed(p []byte) {
	gen := t.screen.Generation()
	t.screen.Feed(p)
	t.lastOutput.Store(t.now().UnixNano())
	if t.screen.Generation() != gen {
		t.emit(EventOutput) // a UI or client draws it now, not at a tick
	}
	t.passNotes()
}

// signalOutput wakes the monitor: output arrived since it last judged.
func (t *Terminal) signalOutput() {
	select {
	case t.outputSig <- struct{}{}:
	default:
	}
}

// signalOutputLater wakes the monitor judgeLag from now. A wake already set
// moves to judgeLag from now too, unless it was set judgeLagMax ago or more:
// a wake that came at its first time would land in the middle of the next
// burst (a key's echo) instead of after it, and the monitor, woken last,
// would run first, before the clients' writers that burst had woken (about
// one echo in ten, 50-60 µs each).
func (t *Terminal) signalOutputLater() {
	now := time.Now().UnixNano()
	if !t.lagArmed.Swap(true) {
		t.lagSince.Store(now)
		t.lag.Reset(judgeLag)
		return
	}
	if lagPostpones(t.lagSince.Load(), now) {
		t.lag.Reset(judgeLag)
	}
}

// lagPostpones reports whether a wake armed at since (unix nanos) may move
// to judgeLag after now: its judgment would then come at most judgeLagMax
// after since.
func lagPostpones(since, now int64) bool {
	return now+int64(judgeLag)-since <= int64(judgeLagMax)
}

// wait reaps the process and records how it ended.
func (t *Terminal) wait() {
	awaitExit(t.pid)
	err := t.cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		err = nil
	}
	t.mu.Lock()
	t.exited = true
	t.exitCode = code
	t.exitErr = err
	t.judgeLocked(t.now())
	t.mu.Unlock()
	close(t.done)
	t.emit(EventExit)
	t.emit(EventStatus)
}

// Done is closed once the process has exited and been reaped.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// Exited reports whether the process has exited, and its exit code (128+N for
// death by signal N).
func (t *Terminal) Exited() (bool, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exited, t.exitCode
}

// QueuedInput is how many bytes of the person's keys wait for the PTY (at
// most MaxQueuedInput), for diagnostics.
func (t *Terminal) QueuedInput() int {
	t.writes.mu.Lock()
	defer t.writes.mu.Unlock()
	return t.writes.input
}

// Input is InputContext with no deadline.
func (t *Terminal) Input(p []byte) error { return t.InputContext(context.Background(), p) }

// InputContext sends the person's own keystrokes to the agent: they feed the
// line model (draft, picker) and are queued for the PTY in order with every
// other write. The person's keys waiting for the PTY are bounded by
// MaxQueuedInput: while the agent reads too slowly to take p, it waits (the
// sender is held, nothing else), until there is room, ctx ends, the process
// exits or the terminal closes. p longer than the bound is refused at once
// with an *InputTooLargeError, none of it typed. It fails once the process
// has exited or after Close.
func (t *Terminal) InputContext(ctx context.Context, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if err := t.usable(); err != nil {
		return err
	}
	if err := t.writes.reserveInput(ctx, len(p)); err != nil {
		if errors.Is(err, ErrExited) || errors.Is(err, ErrClosed) {
			return t.usable()
		}
		return err
	}
	now := t.now()
	t.mu.Lock()
	before := t.tracker.State()
	var turn automation.TurnEvent
	var ev judged
	if bytes.ContainsAny(p, "\r\n") {
		t.obs.enterAt, t.obs.enterGen = now, t.screen.Generation()
	}
	if submitted := t.tracker.Feed(p, now); len(submitted) > 0 && !t.tracker.State().PickerLatched {
		// A bare interactive command opens a menu, not a turn.
		turn, ev = t.startTurnLocked(automation.PersonEnter(), now)
	}
	after := t.tracker.State()
	t.mu.Unlock()
	t.writes.enqueueInput(p)
	// The line model's deadlines moved: a judgment, judgeLag from now like
	// the echo's output, which it then takes in too (judged at once, it ran
	// beside the agent's answer to the key and again after it).
	t.poked.Store(true)
	t.signalOutputLater()
	if before != after {
		t.emit(EventGate)
	}
	t.emitJudged(ev)
	t.emitTurn(turn)
	return nil
}

// Write sends automated bytes (the drain's text and Enter, an approved dialog
// choice) to the agent without feeding the line model. It returns once every
// byte has been written to the PTY (nil), or with an error: ErrExited, ErrClosed,
// a write error, or ctx's error if ctx ends first. If ctx ends while p is
// still queued behind other writes, it is withdrawn and never written; if it
// ends during the write, the write is interrupted, and a *PartialWriteError
// says when some of p reached the PTY. ctx's deadline also bounds the PTY
// write itself (os.ErrDeadlineExceeded when a child stops reading).
func (t *Terminal) Write(ctx context.Context, p []byte) error {
	if err := t.usable(); err != nil {
		return err
	}
	if len(p) > 1 || (len(p) == 1 && p[0] >= 0x20) {
		// Text office types is not the person's draft, whatever the
		// screen shows of it until the prompt reads empty again.
		t.mu.Lock()
		t.tracker.Typed(t.now())
		t.mu.Unlock()
	}
	t.mu.Lock()
	t.obs.lastWrite = t.now()
	t.mu.Unlock()
	res := make(chan error, 1)
	deadline, _ := ctx.Deadline()
	req := t.writes.enqueue(p, res, deadline)
	var err error
	select {
	case err = <-res:
	case <-t.closed:
		if t.writes.cancel(req) {
			return fmt.Errorf("pool: write to %q: %w", t.name, ErrClosed)
		}
		err = <-res
	case <-ctx.Done():
		// A write still queued is withdrawn (nothing of it is ever written);
		// one under way is interrupted and its own result, which says how
		// much went in, is what counts.
		if t.writes.cancel(req) {
			return fmt.Errorf("pool: write to %q: %w", t.name, ctx.Err())
		}
		err = <-res
	}
	t.poke() // office's typing is an input of the prompt reading
	if err != nil {
		return fmt.Errorf("pool: write to %q: %w", t.name, err)
	}
	return nil
}

// PressEnter writes Enter alone, as Write does, and once it reached the PTY
// records the submit with its cause (the drain passes the queue message it
// submits): the turn it starts, or joins, carries that cause.
func (t *Terminal) PressEnter(ctx context.Context, cause automation.TurnCause) error {
	gen := t.screen.Generation() // what the screen showed before the Enter
	if err := t.Write(ctx, []byte{'\r'}); err != nil {
		return err
	}
	t.mu.Lock()
	t.obs.enterAt, t.obs.enterGen = t.now(), gen // a shell's line is known empty again
	t.mu.Unlock()
	t.StartTurn(cause)
	return nil
}

// StartTurn records that a prompt was submitted with cause c at now (an
// Enter office wrote, a CLI hook's report): a turn starts, or the running one
// is joined (automation.Turn).
func (t *Terminal) StartTurn(c automation.TurnCause) {
	t.mu.Lock()
	turn, ev := t.startTurnLocked(c, t.now())
	t.mu.Unlock()
	t.emitJudged(ev)
	t.emitTurn(turn)
}

// startTurnLocked feeds a submit to the turn machine. The person's Enter
// reads as busy ("turn started") until the agent shows busy, so nothing is
// typed in the gap before a CLI shows it is working: the agent is judged
// again at once (the judge's turn hold), and the caller emits what that
// changed. t.mu must be held.
func (t *Terminal) startTurnLocked(c automation.TurnCause, now time.Time) (automation.TurnEvent, judged) {
	turn := t.turn.Enter(c, now)
	var ev judged
	if t.turn.Holding(now) {
		ev = t.judgeLocked(now)
	}
	t.poke()
	return turn, ev
}

func (t *Terminal) usable() error {
	select {
	case <-t.closed:
		return fmt.Errorf("pool: %q: %w", t.name, ErrClosed)
	default:
	}
	select {
	case <-t.done:
		return fmt.Errorf("pool: %q: %w", t.name, ErrExited)
	default:
	}
	return nil
}

// Resize changes the screen and the PTY to cols × rows (the child gets SIGWINCH).
func (t *Terminal) Resize(cols, rows int) error {
	if cols < 1 || rows < 1 {
		return fmt.Errorf("pool: resize %q to %dx%d: size must be positive", t.name, cols, rows)
	}
	t.screen.Resize(cols, rows)
	select {
	case <-t.closed:
		return nil
	default:
	}
	if err := setWinsize(t.master, cols, rows); err != nil {
		return fmt.Errorf("pool: resize %q: %w", t.name, err)
	}
	return nil
}

// Size returns the current screen size.
func (t *Terminal) Size() (cols, rows int) { return t.screen.Size() }

// Snapshot copies the screen into dst (see Screen.Snapshot).
func (t *Terminal) Snapshot(dst *Snapshot) { t.screen.Snapshot(dst) }

// Generation changes whenever the screen changes.
func (t *Terminal) Generation() uint64 { return t.screen.Generation() }

// Modes returns the terminal modes the agent has set (bracketed paste, ...).
func (t *Terminal) Modes() Modes { return t.screen.Modes() }

// BracketedPaste reports whether the agent has turned bracketed paste on.
func (t *Terminal) BracketedPaste() bool { return t.screen.Modes().BracketedPaste }

// Text returns the screen's text.
func (t *Terminal) Text() string { return t.screen.Text() }

// LastOutput returns when the PTY last produced output (zero if never).
func (t *Terminal) LastOutput() time.Time {
	n := t.lastOutput.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// Close hangs up the agent: SIGHUP to its process group, SIGKILL after
// Behavior.HangupGrace, then reaps it and releases the PTY. It is idempotent
// and returns once the process is gone.
func (t *Terminal) Close() error {
	t.closeOnce.Do(func() {
		close(t.closed)
		t.lag.Stop()
		_ = syscall.Kill(-t.pid, syscall.SIGHUP)
		select {
		case <-t.done:
		case <-time.After(orDefault(t.behavior.HangupGrace, configs.Defaults().HangupGrace)):
			_ = syscall.Kill(-t.pid, syscall.SIGKILL)
			<-t.done
		}
		// The group leader is gone; take any of its group still alive with it.
		_ = syscall.Kill(-t.pid, syscall.SIGKILL)
		_ = t.master.Close()
		<-t.readDone
	})
	return nil
}

// HasDraft reports whether the person's text sits on the prompt, for the
// "your draft" badge: the line model corrected by the screen, with no 30-minute
// expiry.
func (t *Terminal) HasDraft() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tracker.State().Dirty
}

// Draft returns the line model's text of the person's draft.
func (t *Terminal) Draft() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tracker.Draft()
}

// AutomationState returns the gate's view: the line model (corrected by the
// latest prompt-row reading) plus the exit state.
func (t *Terminal) AutomationState() automation.State {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.tracker.State()
	s.Exited = t.exited
	return s
}

// Block says why automation may not type into this terminal at now.
func (t *Terminal) Block(now time.Time) automation.Block {
	t.refreshPrompt(now)
	return automation.BlockReason(t.AutomationState(), now)
}

// Status returns the debounced status.
func (t *Terminal) Status() automation.Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status
}

// StatusSignal returns the debounced status and the signal that decided the
// judgment it was adopted from.
func (t *Terminal) StatusSignal() (automation.Status, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status, t.signalLocked()
}

// Ready reports whether delivery may begin, as the judge last found it: the
// profile's readiness was seen, or the boot grace is over
// (automation.Judgment.BootOpen). now is not consulted: the monitor judges
// again at every deadline.
func (t *Terminal) Ready(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.judgment.BootOpen
}

// Judgment returns the judge's last answer with every step it went through
// (for `office status --explain`): the status it gives is the raw one the
// debounced Status follows.
func (t *Terminal) Judgment() automation.Judgment {
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.judgment
	j.Steps = append([]automation.Step(nil), j.Steps...)
	return j
}

// Prompt returns the prompt row's text as last read (ok=false: it cannot be
// read on this screen).
func (t *Terminal) Prompt() (string, bool) {
	t.refreshPrompt(t.now())
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.promptText, t.promptOK
}

// MarkDraft records that text office typed was not submitted: it sits on the
// prompt and counts as the person's draft until cleared.
func (t *Terminal) MarkDraft(text string) {
	t.mu.Lock()
	t.tracker.MarkDraft(text, t.now())
	t.mu.Unlock()
	t.poke()
	t.emit(EventGate)
}

// Settle blocks automation until until (after office sent a key for the person).
func (t *Terminal) Settle(until time.Time) {
	t.mu.Lock()
	t.tracker.Settle(until)
	t.mu.Unlock()
	t.poke()
	t.emit(EventGate)
}

// ClosePicker sends Esc for the person (the composer's "close picker" button)
// and releases the picker latch with the usual settling.
func (t *Terminal) ClosePicker(ctx context.Context) error {
	if err := t.Write(ctx, []byte{0x1b}); err != nil {
		return err
	}
	t.mu.Lock()
	t.tracker.ReleasePicker(t.now())
	t.mu.Unlock()
	t.poke()
	t.emit(EventGate)
	return nil
}

// RecoverPrompt sends Ctrl-U for the person (the composer's "recover prompt"
// button), clears the draft and returns the text it held, with
// Behavior.RecoverSettle of settling.
func (t *Terminal) RecoverPrompt(ctx context.Context) (string, error) {
	t.mu.Lock()
	text := t.tracker.Draft()
	t.mu.Unlock()
	if err := t.Write(ctx, []byte{0x15}); err != nil {
		return "", err
	}
	now := t.now()
	t.mu.Lock()
	t.tracker.ClearDraft()
	t.tracker.Settle(now.Add(orDefault(t.behavior.RecoverSettle, automation.RecoverPromptSettle)))
	t.mu.Unlock()
	t.poke()
	t.emit(EventGate)
	return text, nil
}

// SetHook records a report of the CLI's own hooks (the strongest signal
// after a dialog on screen). A report is taken only when it is newer
// (automation.HookReport.Newer) than the one held, so concurrent reports
// settle on the newest whatever order they land in. It reports whether r was
// taken. Its staleness is the judge's: nothing here drops it later.
func (t *Terminal) SetHook(r automation.HookReport) bool {
	t.mu.Lock()
	taken := r.Newer(t.obs.hook)
	if taken {
		t.obs.hook = r
	}
	t.mu.Unlock()
	if taken {
		t.poke()
	}
	return taken
}

// Hook returns the hook report held (Seq 0: none).
func (t *Terminal) Hook() automation.HookReport {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.obs.hook
}

func (t *Terminal) poke() {
	t.poked.Store(true)
	select {
	case t.outputSig <- struct{}{}:
	default:
	}
}

// refreshPrompt re-reads the prompt row from the screen and lets it clear a
// phantom draft (never create one).
func (t *Terminal) refreshPrompt(now time.Time) {
	t.mu.Lock()
	changed := t.readPromptLocked(now)
	t.mu.Unlock()
	if changed {
		t.emit(EventGate)
	}
}

// readPromptLocked reads the screen (readScreenLocked) and updates the
// prompt reading; it reports whether that changed the gate state. A behavior
// that reads nothing on the screen (readsScreen) reads no cells: its prompt
// cannot be read. t.mu must be held.
func (t *Terminal) readPromptLocked(now time.Time) bool {
	if !t.behavior.readsScreen() {
		return false
	}
	gen := t.screen.Generation()
	text, ok := t.readScreenLocked(now, true)
	t.promptText, t.promptOK, t.promptGen = text, ok, gen
	before := t.tracker.State()
	// While a dialog is on screen (the judge last found a waiting pattern)
	// its rows cover the prompt: an option row that starts with the
	// marker is no evidence about the person's draft.
	dialog := t.judgment.Decided().Signal == automation.SignalScreenWaiting
	t.tracker.ObservePrompt(text, ok && !dialog, now)
	return t.tracker.State() != before
}

// screenView is what the judge reads of the screen besides its rows (kept
// in Terminal.rows): the title and the modes. The cells themselves are not
// kept: a 120×40 copy is 75 KiB, more than the rest of what pool keeps per
// agent.
type screenView struct {
	read  bool // the screen was read at least once
	title string
	modes Modes
}

// snapshots holds the Snapshots screen reads borrow: an agent keeps no copy
// of its screen's cells between reads, so idle agents share the few that
// reads in flight need.
var snapshots = sync.Pool{New: func() any { return new(Snapshot) }}

// readScreenLocked reads, under the screen's lock and copying only the rows
// it reads, what the judge needs: the title, the modes and, when the
// behavior matches text (readsText), the text of each row that changed
// since the last read; with prompt, also the prompt row (FindPrompt, read
// again only when a row it read changed; then a shell's input line). A
// change to any input of the judge sets t.unjudged. t.mu must be held.
func (t *Terminal) readScreenLocked(now time.Time, prompt bool) (text string, ok bool) {
	t.screen.readRows(func(r *rowReader) {
		snap := r.snap
		t.setViewLocked(snap.Modes)
		if t.behavior.readsText() && t.rows.refresh(r) {
			t.unjudged = true
		}
		if !prompt {
			return
		}
		_, text, ok = t.rows.findPrompt(r, t.behavior.Prompt)
		if !ok && t.behavior.ShellIdle {
			text, ok = t.shellPromptLocked(snap, now)
		}
	})
	return text, ok
}

// readModesLocked reads the title and modes alone (a behavior that reads no
// cells). t.mu must be held.
func (t *Terminal) readModesLocked() { t.setViewLocked(t.screen.Modes()) }

// setViewLocked keeps the title and modes read, and sets t.unjudged when
// they changed.
func (t *Terminal) setViewLocked(m Modes) {
	if !t.view.read || m != t.view.modes {
		t.unjudged = true
	}
	t.view = screenView{read: true, title: m.Title, modes: m}
}

// monitor re-judges readiness and status when an input of the judge may
// have changed (output, a hook report, the person's keys, office's writes:
// each pokes it) and at the next deadline (wakeLocked), and sleeps
// otherwise: an idle agent with no deadline costs nothing.
func (t *Terminal) monitor() {
	var timer Timer
	var wake <-chan time.Time
	var armed time.Time // the deadline timer is set for
	for {
		fired := false
		select {
		case <-t.done:
			return
		case <-t.closed:
			return
		case <-t.outputSig:
		case <-wake:
			fired = true
			t.poked.Store(true) // a deadline: judge whatever the screen says
		}
		now := t.now()
		next := t.judge(now, t.poked.Swap(false))
		if !fired && next.Equal(armed) {
			continue // the timer set is still the one wanted
		}
		if timer != nil {
			timer.Stop()
		}
		timer, wake, armed = nil, nil, time.Time{}
		if !next.IsZero() {
			timer = t.clock.NewTimer(next.Sub(now))
			wake, armed = timer.C(), next
		}
	}
}

// Judgments returns how many times the monitor has judged the agent (a
// measure of the work an agent costs when nothing happens).
func (t *Terminal) Judgments() uint64 { return t.judgments.Load() }

// judge updates the prompt reading, readiness and status at now, and
// returns when to judge again with no event (zero: not before one). It
// runs the judge only when one of its inputs may have changed: forced (a
// poke: keys, writes, a hook, a turn; or a deadline), a read changed the
// title, the modes or a row the behavior reads, or the output's arrival can
// change the answer (steadyLocked).
func (t *Terminal) judge(now time.Time, forced bool) time.Time {
	t.mu.Lock()
	if t.exited {
		t.mu.Unlock()
		return time.Time{}
	}
	gen := t.screen.Generation()
	gateChanged := false
	// Re-read on a new screen, and while a draft is believed or text sits on
	// the prompt: the screen's reading changes with time (echo grace) even
	// if nothing redraws.
	if gen != t.lastGen || !t.view.read || t.tracker.State().Dirty || t.promptText != "" ||
		(t.behavior.ShellIdle && t.obs.learning()) {
		t.lastGen = gen
		gateChanged = t.readPromptLocked(now)
	}
	if !t.behavior.readsScreen() {
		t.readModesLocked()
	}
	// A changed prompt reading is judged: it can bring a deadline of its
	// own (the echo grace of text that appeared) that t.wake lacks.
	if !forced && !t.unjudged && !gateChanged && t.steadyLocked(now) {
		next := t.wake
		t.mu.Unlock()
		return next
	}
	t.judgments.Add(1)
	ev := t.judgeLocked(now)
	next := t.wakeLocked(now)
	t.wake = next
	t.mu.Unlock()
	if gateChanged {
		t.emit(EventGate)
	}
	t.emitJudged(ev)
	return next
}

// orDefault returns d, or def when d is zero or negative.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
