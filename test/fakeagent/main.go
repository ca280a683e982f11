package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"golang.org/x/term"
)

const (
	spinnerEvery  = 100 * time.Millisecond
	escTimeout    = 50 * time.Millisecond
	ctrlCWindow   = time.Second
	replyMaxRunes = 40
	hangupGrace   = 200 * time.Millisecond // wait for SIGHUP after stdin closes
)

type options struct {
	log         string
	busy        time.Duration
	commandBusy time.Duration
	exitCode    int
	exitAfter   int
	startup     time.Duration
	permission  bool
	fastReturn  time.Duration
	noPaste     bool
	// swallowEnter: the first N Enters that would submit are ignored (like
	// Codex and Gemini before they are really ready), the text stays.
	swallowEnter int
	// swallowAfter: --swallow-enter applies only once this many prompts
	// were submitted (a CLI that stops taking Enter later on).
	swallowAfter int
	// stopReadingAfter: after N replies the agent never reads stdin again
	// (a hung CLI): writes into its PTY block once the buffer is full.
	stopReadingAfter int
	// hookEvidence: run office's hooks as Claude does (evidence.go).
	hookEvidence bool
	// stopHook: at a prompt turn's end run the Stop hooks of the
	// --settings file, as Claude does (stophook.go).
	stopHook bool
	// hookDelay: each prompt's UserPromptSubmit record is written this
	// long after the submit (evidence.go, inOrder).
	hookDelay time.Duration
	// hookGate: each prompt's UserPromptSubmit record waits until this
	// file exists (at most maxHookGate; evidence.go, inOrder).
	hookGate string
	// firstRun: a first-run offer shown before the prompt, as Claude Code
	// 2.1.332 shows them ("fullscreen" or "automode"; firstrun.go).
	firstRun string
	// settings: the file a "yes" to the offer writes (the person's own
	// settings, as ~/.claude/settings.json is Claude's).
	settings string
}

func defaultOptions() options {
	return options{
		log:         os.Getenv("FAKEAGENT_LOG"),
		busy:        time.Second,
		commandBusy: 200 * time.Millisecond,
	}
}

// parseArgs reads the flags it knows from args and ignores everything else.
// It returns warnings for known flags with bad values.
func parseArgs(o *options, args []string) (warnings []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		next := func() (string, bool) {
			if hasVal {
				return val, true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			warnings = append(warnings, "missing value for --"+name)
			return "", false
		}
		boolean := func(p *bool) {
			if !hasVal {
				*p = true
				return
			}
			b, err := strconv.ParseBool(val)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("bad value for --%s: %q", name, val))
				return
			}
			*p = b
		}
		duration := func(p *time.Duration) {
			v, ok := next()
			if !ok {
				return
			}
			d, err := parseDuration(v)
			if err != nil || d < 0 {
				warnings = append(warnings, fmt.Sprintf("bad value for --%s: %q", name, v))
				return
			}
			*p = d
		}
		integer := func(p *int) {
			v, ok := next()
			if !ok {
				return
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("bad value for --%s: %q", name, v))
				return
			}
			*p = n
		}
		switch name {
		case "log":
			if v, ok := next(); ok {
				o.log = v
			}
		case "busy":
			duration(&o.busy)
		case "command-busy":
			duration(&o.commandBusy)
		case "exit-code":
			integer(&o.exitCode)
		case "exit-after":
			integer(&o.exitAfter)
		case "startup":
			duration(&o.startup)
		case "permission":
			boolean(&o.permission)
		case "fast-return":
			duration(&o.fastReturn)
		case "no-paste":
			boolean(&o.noPaste)
		case "swallow-enter":
			integer(&o.swallowEnter)
		case "swallow-after":
			integer(&o.swallowAfter)
		case "stop-reading-after":
			integer(&o.stopReadingAfter)
		case "hook-evidence":
			boolean(&o.hookEvidence)
		case "stop-hook":
			boolean(&o.stopHook)
		case "hook-delay":
			duration(&o.hookDelay)
		case "hook-gate":
			if v, ok := next(); ok {
				o.hookGate = v
			}
		case "first-run":
			if v, ok := next(); ok {
				o.firstRun = v
			}
		case "settings":
			if v, ok := next(); ok {
				o.settings = v
			}
		}
	}
	return warnings
}

func parseDuration(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Millisecond, nil
	}
	return time.ParseDuration(s)
}

type dialogKind int

const (
	dialogPicker dialogKind = iota
	dialogPermission
	dialogFirstRun
)

var modelOptions = []string{"Default", "Opus", "Sonnet"}

type dialog struct {
	kind   dialogKind
	sel    int
	prompt string // permission: the prompt waiting for the answer
}

type turn struct {
	text    string
	command bool
	// promptID names the prompt's turn (Claude's prompt_id): a turn a
	// Stop hook continued keeps it; blocks counts those continuations.
	promptID string
	blocks   int
}

type chunk struct {
	b []byte
	t time.Time
}

type app struct {
	opts options
	log  *eventLog
	out  io.Writer

	swallowed   int          // Enters swallowed so far (--swallow-enter)
	lateHooks   chan func()  // --hook-delay: the hooks still to run, in order
	stopReading *atomic.Bool // set: the input reader never reads again

	cols, rows int

	starting bool
	input    string
	queue    []string
	busy     *turn
	dialog   *dialog
	model    string

	transcript []string
	replies    int
	prompts    int  // turns started for a prompt (their prompt_id)
	offered    bool // the --first-run offer was shown

	// history holds the submitted prompts, oldest first; histPos is how
	// far Up has gone back into it (0: not browsing).
	history []string
	histPos int

	lastPrintable time.Time
	lastCtrlC     time.Time
	escHint       bool
	ctrlCHint     bool
	menuDismissed string

	parser parser

	// timers (nil channel = inactive)
	busyTimer  *time.Timer
	spinTicker *time.Ticker
	hintTimer  *time.Timer
	escTimer   *time.Timer
	frame      int

	// terminal
	rawState *term.State
	paste    bool

	// last drawn frame
	prev       []string
	lastTitle  string
	lastCursor [2]int
}

func main() {
	opts := defaultOptions()
	var warnings []string
	if env := os.Getenv("FAKEAGENT_OPTS"); env != "" {
		warnings = parseArgs(&opts, strings.Fields(env))
	}
	warnings = append(warnings, parseArgs(&opts, os.Args[1:])...)

	lg, err := openLog(opts.log)
	if err != nil {
		warnings = append(warnings, "cannot open log: "+err.Error())
	}

	a := &app{
		opts:       opts,
		log:        lg,
		out:        os.Stdout,
		model:      modelOptions[0],
		transcript: []string{"fakeagent (test double for Claude Code-style agent TUIs)", ""},
	}
	// Listen for SIGWINCH before reading the size, so a resize in between
	// is not lost.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	a.cols, a.rows = termSize()

	args := os.Args[1:]
	if args == nil {
		args = []string{}
	}
	a.log.event("start", kv{"cols", a.cols}, kv{"rows", a.rows}, kv{"pid", os.Getpid()}, kv{"args", args})
	for _, w := range warnings {
		a.log.event("warn", kv{"text", w})
	}

	if term.IsTerminal(0) {
		if st, err := term.MakeRaw(0); err == nil {
			a.rawState = st
		}
	}
	input := make(chan chunk, 64)
	a.stopReading = new(atomic.Bool)
	go readInput(os.Stdin, input, a.stopReading)

	a.paste = !opts.noPaste
	if a.paste {
		_, _ = io.WriteString(a.out, "\x1b[?2004h")
	}

	var startupC <-chan time.Time
	if opts.startup > 0 {
		a.starting = true
		startupC = time.After(opts.startup)
		a.draw(true)
	} else {
		a.becomeReady()
	}

	for {
		select {
		case c, ok := <-input:
			if !ok {
				// A closed PTY also sends SIGHUP; prefer reporting that.
				select {
				case s := <-sigs:
					if s != syscall.SIGWINCH {
						a.exitOnSignal(s)
					}
				case <-time.After(hangupGrace):
				}
				a.exit(0, "stdin-closed", "")
			}
			stopTimer(a.escTimer)
			a.escTimer = nil
			for _, k := range a.parser.feed(c.b, c.t) {
				a.handleKey(k)
			}
			if a.parser.pending() {
				a.escTimer = time.NewTimer(escTimeout)
			}
			a.draw(false)
		case now := <-timerC(a.escTimer):
			a.escTimer = nil
			for _, k := range a.parser.timeout(now) {
				a.handleKey(k)
			}
			a.draw(false)
		case <-startupC:
			startupC = nil
			a.becomeReady()
		case <-timerC(a.busyTimer):
			a.busyTimer = nil
			a.endTurn()
			a.draw(false)
		case <-tickerC(a.spinTicker):
			a.frame++
			a.draw(false)
		case <-timerC(a.hintTimer):
			a.hintTimer = nil
			a.ctrlCHint = false
			a.draw(false)
		case s := <-sigs:
			if s == syscall.SIGWINCH {
				a.cols, a.rows = termSize()
				a.log.event("resize", kv{"cols", a.cols}, kv{"rows", a.rows})
				a.draw(true)
				continue
			}
			a.exitOnSignal(s)
		}
	}
}

func (a *app) exitOnSignal(s os.Signal) {
	code := 1
	if n, ok := s.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	a.exit(code, "signal", signalName(s))
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return s.String()
}

func timerC(t *time.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

func tickerC(t *time.Ticker) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

func stopTimer(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

func termSize() (cols, rows int) {
	for _, fd := range []int{1, 0, 2} {
		if c, r, err := term.GetSize(fd); err == nil && c > 0 && r > 0 {
			return c, r
		}
	}
	return 80, 24
}

func readInput(r io.Reader, out chan<- chunk, stop *atomic.Bool) {
	buf := make([]byte, 4096)
	for {
		if stop.Load() {
			select {} // hung: never read again
		}
		n, err := r.Read(buf)
		if n > 0 {
			out <- chunk{b: append([]byte(nil), buf[:n]...), t: time.Now()}
		}
		if err != nil {
			close(out)
			return
		}
	}
}

func (a *app) becomeReady() {
	a.starting = false
	if a.opts.firstRun != "" && a.dialog == nil && !a.offered {
		a.offered = true
		a.dialog = &dialog{kind: dialogFirstRun}
		a.draw(true)
		return
	}
	a.draw(true)
	a.log.event("ready")
}

// exit restores the terminal, logs and exits.
func (a *app) exit(code int, reason, sig string) {
	fields := []kv{{"code", code}, {"reason", reason}}
	if sig != "" {
		fields = append(fields, kv{"signal", sig})
	}
	a.log.event("exit", fields...)
	var b strings.Builder
	b.WriteString("\x1b[0m")
	if a.paste {
		b.WriteString("\x1b[?2004l")
	}
	fmt.Fprintf(&b, "\x1b[?25h\x1b[%d;1H\r\n", a.rows)
	_, _ = io.WriteString(a.out, b.String())
	if a.rawState != nil {
		_ = term.Restore(0, a.rawState)
	}
	a.log.close()
	os.Exit(code)
}

func (a *app) handleKey(k key) {
	if k.kind != keyEsc {
		a.escHint = false
	}
	if k.kind != keyCtrlC {
		a.ctrlCHint = false
	}
	if a.starting {
		switch k.kind {
		case keyEnter:
			a.log.event("dropped", kv{"key", "enter"}, kv{"reason", "startup"})
		case keyCtrlC:
			a.ctrlC(k.t)
		case keyEsc, keyUp, keyDown:
		default:
			a.edit(k)
		}
		return
	}
	if a.dialog != nil {
		a.dialogKey(k)
		return
	}
	switch k.kind {
	case keyEnter:
		a.enter(k)
	case keyCtrlC:
		a.ctrlC(k.t)
	case keyEsc:
		a.esc()
	case keyUp, keyDown:
		a.recall(k.kind)
	default:
		a.edit(k)
	}
}

// recall is history recall, like Claude and Codex: Up with an empty input
// (or while browsing) puts the previous prompt into the input box, Down the
// next one (past the newest: an empty input). Busy or with a menu open the
// keys do nothing.
func (a *app) recall(kind keyKind) {
	if a.busy != nil || a.menuItems() != nil || (a.input != "" && a.histPos == 0) {
		return
	}
	switch {
	case kind == keyUp && a.histPos < len(a.history):
		a.histPos++
	case kind == keyDown && a.histPos > 0:
		a.histPos--
	default:
		return
	}
	a.input = ""
	if a.histPos > 0 {
		a.input = a.history[len(a.history)-a.histPos]
	}
	a.log.event("recall", kv{"text", a.input})
}

// edit applies an editing key to the input.
func (a *app) edit(k key) {
	a.histPos = 0
	switch k.kind {
	case keyRune:
		a.input += string(k.r)
		a.lastPrintable = k.t
	case keyPaste:
		a.input += k.text
		a.lastPrintable = k.t
	case keyNewline:
		a.input += "\n"
	case keyBackspace:
		if a.input != "" {
			r := []rune(a.input)
			a.input = string(r[:len(r)-1])
		}
	case keyCtrlU:
		a.input = ""
	}
}

func (a *app) ctrlC(t time.Time) {
	if a.input != "" {
		a.input = ""
		return
	}
	if !a.lastCtrlC.IsZero() && t.Sub(a.lastCtrlC) < ctrlCWindow {
		a.exit(0, "ctrl-c", "")
	}
	a.lastCtrlC = t
	a.ctrlCHint = true
	stopTimer(a.hintTimer)
	a.hintTimer = time.NewTimer(ctrlCWindow)
}

func (a *app) esc() {
	switch {
	case a.menuItems() != nil:
		a.menuDismissed = a.input
	case a.busy != nil:
		a.interrupt()
	case a.input != "":
		a.escHint = true
	}
}

func (a *app) enter(k key) {
	if fr := a.opts.fastReturn; fr > 0 {
		if k.afterPrintable || (!a.lastPrintable.IsZero() && k.t.Sub(a.lastPrintable) < fr) {
			a.input += "\n"
			return
		}
	}
	text := strings.TrimSpace(a.input)
	if text == "" {
		return
	}
	if a.swallowed < a.opts.swallowEnter && a.dialog == nil && len(a.history) >= a.opts.swallowAfter {
		a.swallowed++
		a.log.event("swallowed", kv{"key", "enter"}, kv{"text", text})
		return
	}
	a.input = ""
	a.menuDismissed = ""
	a.histPos = 0
	if a.busy != nil {
		a.queue = append(a.queue, text)
		a.log.event("queued", kv{"text", text})
		return
	}
	a.submit(text, false)
}

func (a *app) submit(text string, queued bool) {
	if strings.HasPrefix(text, "/") {
		a.command(text)
		return
	}
	a.log.event("prompt", kv{"text", text}, kv{"time", stamp()}, kv{"queued", queued})
	a.history = append(a.history, text)
	a.promptSubmitted(text)
	a.addUser(text)
	if a.opts.permission {
		a.dialog = &dialog{kind: dialogPermission, prompt: text}
		return
	}
	a.startTurn(text, false)
}

func (a *app) command(text string) {
	a.log.event("command", kv{"text", text})
	a.addUser(text)
	name, arg := text, ""
	if i := strings.IndexFunc(text, unicode.IsSpace); i >= 0 {
		name, arg = text[:i], strings.TrimSpace(text[i:])
	}
	switch {
	case text == "/model":
		sel := 0
		for i, m := range modelOptions {
			if m == a.model {
				sel = i
			}
		}
		a.dialog = &dialog{kind: dialogPicker, sel: sel}
	case name == "/model":
		a.addLine("  ⎿ Set model to " + arg)
	case name == "/exit":
		a.addLine("  ⎿ Goodbye!")
		a.draw(false)
		a.exit(a.opts.exitCode, "/exit", "")
	default:
		a.startTurn(text, true)
	}
}

func (a *app) dialogKey(k key) {
	d := a.dialog
	n := 2
	if d.kind == dialogPicker {
		n = len(modelOptions)
	}
	switch k.kind {
	case keyUp:
		if d.sel > 0 {
			d.sel--
		}
		return
	case keyDown:
		if d.sel < n-1 {
			d.sel++
		}
		return
	case keyCtrlC:
		a.ctrlC(k.t)
		return
	}
	if d.kind == dialogPicker {
		switch k.kind {
		case keyEnter:
			a.closePicker("enter")
		case keyEsc:
			a.closePicker("esc")
		}
		return
	}
	if d.kind == dialogFirstRun {
		a.firstRunKey(k)
		return
	}
	switch {
	case k.kind == keyRune && (k.r == '1' || k.r == 'y'):
		a.answerPermission("yes")
	case k.kind == keyRune && (k.r == '2' || k.r == 'n'):
		a.answerPermission("no")
	case k.kind == keyEnter && d.sel == 0:
		a.answerPermission("yes")
	case k.kind == keyEnter:
		a.answerPermission("no")
	case k.kind == keyEsc:
		a.answerPermission("esc")
	}
}

func (a *app) closePicker(how string) {
	sel := a.dialog.sel
	a.dialog = nil
	a.log.event("picker", kv{"how", how}, kv{"choice", sel + 1})
	if how == "enter" {
		a.model = modelOptions[sel]
		a.addLine("  ⎿ Set model to " + a.model)
	} else {
		a.addLine("  ⎿ Kept model as " + a.model)
	}
	a.drainQueue()
}

func (a *app) answerPermission(answer string) {
	prompt := a.dialog.prompt
	a.dialog = nil
	a.log.event("permission", kv{"answer", answer})
	switch answer {
	case "yes":
		a.startTurn(prompt, false)
		return
	case "no":
		a.addLine("  ⎿ No (tell Claude what to do differently)")
	default:
		a.addLine("  ⎿ Interrupted · What should Claude do instead?")
	}
	a.drainQueue()
}

func (a *app) startTurn(text string, command bool) {
	a.prompts++
	a.busy = &turn{text: text, command: command, promptID: fmt.Sprintf("prompt-%d", a.prompts)}
	d := a.opts.busy
	if command {
		d = a.opts.commandBusy
	}
	a.busyTimer = time.NewTimer(d)
	a.spinTicker = time.NewTicker(spinnerEvery)
	a.frame = 0
}

func (a *app) stopTurn() *turn {
	t := a.busy
	a.busy = nil
	stopTimer(a.busyTimer)
	a.busyTimer = nil
	if a.spinTicker != nil {
		a.spinTicker.Stop()
		a.spinTicker = nil
	}
	return t
}

func (a *app) endTurn() {
	t := a.stopTurn()
	if t == nil {
		return
	}
	if t.command {
		a.addLine("  ⎿ Done")
		a.drainQueue()
		return
	}
	reply := replyText(t.text)
	a.addLine("● reply: " + reply)
	a.log.event("reply", kv{"text", reply})
	goesOn := false
	if a.opts.stopHook {
		goesOn = a.stopHooks(t, "reply: "+reply)
	} else {
		goesOn = a.turnStopped(t, "reply: "+reply)
	}
	if goesOn {
		a.replies++
		return // the turn goes on with the hook's reason
	}
	a.replies++
	if n := a.opts.stopReadingAfter; n > 0 && a.replies >= n && !a.stopReading.Load() {
		a.stopReading.Store(true)
		a.log.event("stopped-reading")
	}
	if a.opts.exitAfter > 0 && a.replies >= a.opts.exitAfter {
		a.draw(false)
		a.exit(a.opts.exitCode, "exit-after", "")
	}
	a.drainQueue()
}

func replyText(prompt string) string {
	r := []rune(strings.ReplaceAll(prompt, "\n", " "))
	if len(r) > replyMaxRunes {
		r = r[:replyMaxRunes]
	}
	return string(r)
}

// interrupt ends the busy turn; like Claude, the interrupted prompt and the
// queued messages go back into the input box.
func (a *app) interrupt() {
	t := a.stopTurn()
	var parts []string
	if !t.command {
		parts = append(parts, t.text)
	}
	parts = append(parts, a.queue...)
	if a.input != "" {
		parts = append(parts, a.input)
	}
	a.queue = nil
	a.input = strings.Join(parts, "\n")
	a.log.event("interrupt", kv{"restored", a.input})
	a.addLine("  ⎿ Interrupted · What should Claude do instead?")
}

func (a *app) drainQueue() {
	for a.busy == nil && a.dialog == nil && len(a.queue) > 0 {
		text := a.queue[0]
		a.queue = a.queue[1:]
		a.submit(text, true)
	}
}

// addUser records a submitted prompt in the transcript.
func (a *app) addUser(text string) {
	for i, l := range strings.Split(text, "\n") {
		if i == 0 {
			a.transcript = append(a.transcript, promptGlyph+" "+l)
		} else {
			a.transcript = append(a.transcript, "  "+l)
		}
	}
	a.transcript = append(a.transcript, "")
}

func (a *app) addLine(s string) {
	a.transcript = append(a.transcript, s, "")
}
