package automation

// The status judge (docs/design.md §4): the one place that decides an
// agent's status from everything pool, the CLI's hooks and the clock observe,
// and says how it got there, step by step, so `office status --explain`
// prints the judge's own reasoning and cannot drift from it.

import (
	"fmt"
	"strings"
	"time"
)

const (
	// HookStaleAfter is how long the title may contradict a busy or idle
	// hook report before the report no longer counts: Claude runs no hook
	// when the person interrupts a turn (Esc), and none for a /compact turn.
	// It and HookWaitingStaleAfter are defaults (Inputs.HookStale and
	// Inputs.HookWaitingStale; the office file's hook_stale and
	// hook_waiting_stale).
	HookStaleAfter = 3 * time.Second
	// HookWaitingStaleAfter is the same for a waiting report, contradicted by
	// an idle title with no waiting pattern on the screen.
	HookWaitingStaleAfter = 10 * time.Second
)

// Foreground is what the PTY's foreground process group says about a shell
// agent (tcgetpgrp).
type Foreground int

// The foreground readings.
const (
	// ForegroundUnknown: not a shell agent, or the group could not be read.
	ForegroundUnknown Foreground = iota
	// ForegroundShell: the shell itself is in the foreground (idle).
	ForegroundShell
	// ForegroundJob: a job the shell started is in the foreground (busy).
	ForegroundJob
)

// Boot is what the judge needs to decide readiness: the boot grace, the
// profile's ready markers and the output's quiet.
type Boot struct {
	// Spawned is when the process started; zero counts as long ago.
	Spawned time.Time
	// Grace is the boot grace; 0 means BootGrace.
	Grace time.Duration
	// Seen is true once an earlier judgment found the agent ready (readiness
	// latches: the caller feeds Judgment.Ready back).
	Seen bool
	// Markers is true when the profile has ready markers.
	Markers bool
	// MarkersSince is when all the ready markers were first on screen in the
	// current run of them; zero means they are not all on screen.
	MarkersSince time.Time
	// Settle is how long the markers, and the screen's quiet, must last.
	Settle time.Duration
	// ReadyQuiet is the quiet after the first output that makes a profile
	// without markers ready (Timing.ReadyQuiet); 0 means CustomReadyQuiet.
	ReadyQuiet time.Duration
}

// HookReport is the last status report of the CLI's own hooks.
type HookReport struct {
	// Seq orders reports: a larger Seq is newer; 0 means no report ever.
	Seq uint64
	// Event is the hook event as the CLI named it ("Stop", "PreToolUse", ...).
	Event string
	// Status is what the event says; StatusStarting means it says nothing
	// (SessionStart clears the hook status: the screen decides).
	Status Status
	// At is when the report arrived.
	At time.Time
	// Handed: the server answered this report (a Stop) by handing a queued
	// message over through the CLI's turn-end hook (docs/channels.md): the
	// CLI goes on with it in the same turn, so the report says busy, not
	// the idle its event says, until the next report.
	Handed bool
}

// Says is the status the report says: busy for a report the server
// answered with a handed-over message, else Status.
func (r HookReport) Says() Status {
	if r.Handed && r.Status != StatusStarting {
		return StatusBusy
	}
	return r.Status
}

// handedDetail ends the detail of a report that handed a message over.
const handedDetail = " (answered with a message: the turn goes on)"

// Newer reports whether r should replace cur: r has a larger Seq.
func (r HookReport) Newer(cur HookReport) bool { return r.Seq > cur.Seq }

// TurnHold is the "turn started" hold: after the person's Enter the agent
// reads as busy until it shows busy itself, so nothing is typed in the gap
// before a CLI shows it is working.
type TurnHold struct {
	// Since is the Enter; Until is when the hold ends at the latest. A zero
	// Until means no hold.
	Since, Until time.Time
}

// Inputs is everything the judge reads about one agent at one instant. The
// zero value is a live agent that has shown nothing.
type Inputs struct {
	// Now is the instant judged.
	Now time.Time
	// Exited is true once the process has exited, with ExitCode.
	Exited   bool
	ExitCode int
	// Boot decides readiness.
	Boot Boot
	// Hook is the hooks' last report (Seq 0: none).
	Hook HookReport
	// OSCState is the CLI's own state report (Codex's OSC 7501): "working",
	// "idle", "done", "blocked", or "" for none (see OSCStatus).
	OSCState string
	// Title is the window title; TitleSince is when the title's reading
	// (busy, idle or nothing, by ReadTitle) last changed.
	Title      string
	TitleSince time.Time
	// InSyncFrame is true inside a synchronized-output frame: the screen is
	// half drawn, so its patterns are not read.
	InSyncFrame bool
	// Screen is the rows the profile's patterns are read on (nil: none).
	Screen Rows
	// LastOutput is when the PTY last produced output; zero means never.
	LastOutput time.Time
	// Turn is the "turn started" hold.
	Turn TurnHold
	// Foreground is the shell's foreground reading (shell agents only).
	Foreground Foreground
	// ShellAtPrompt: a shell agent's prompt, with an empty line, is on the
	// cursor row of a screen drawn since the latest Enter. With the shell in
	// the foreground it means the shell read that Enter and finished what it
	// ran (a builtin such as true never leaves the foreground; a job the
	// shell is about to start has not drawn a prompt yet), so the foreground
	// reading is definitive (Step.Definitive).
	ShellAtPrompt bool
	// HookStale and HookWaitingStale are how long the title may contradict
	// a busy or idle, and a waiting, hook report before it is stale
	// (Timing.HookStale, Timing.HookWaitingStale); 0 means HookStaleAfter
	// and HookWaitingStaleAfter.
	HookStale, HookWaitingStale time.Duration
	// Limit is the usage-limit hold on the agent's account (zero: none).
	Limit LimitHold
}

// Signal names a step of the judge.
type Signal int

// maxSteps is the most steps a judgment lists (every signal but exited,
// which ends it alone): its Steps are allocated once at that size.
const maxSteps = int(SignalLimit)

// The judge's steps, in the order they count.
const (
	// SignalExited: the process exited.
	SignalExited Signal = iota
	// SignalScreenWaiting: a dialog pattern on the screen.
	SignalScreenWaiting
	// SignalBoot: readiness (ready markers, first output, boot grace).
	SignalBoot
	// SignalForeground: the shell's foreground process group.
	SignalForeground
	// SignalHook: the CLI's hooks.
	SignalHook
	// SignalOSC: the CLI's OSC state report.
	SignalOSC
	// SignalTitle: the window title.
	SignalTitle
	// SignalScreen: a busy or idle pattern on the screen.
	SignalScreen
	// SignalOutput: output flowing, or quiet.
	SignalOutput
	// SignalTurn: the "turn started" hold after the person's Enter.
	SignalTurn
	// SignalLimit: a usage-limit hold or the limit menu (it counts right
	// after screen waiting; numbered last so the others keep theirs).
	SignalLimit
)

// String returns the step's name as `office status --explain` prints it.
func (s Signal) String() string {
	switch s {
	case SignalExited:
		return "exited"
	case SignalBoot:
		return "boot"
	case SignalScreenWaiting:
		return "screen waiting"
	case SignalForeground:
		return "foreground"
	case SignalHook:
		return "hook"
	case SignalOSC:
		return "osc-state"
	case SignalTitle:
		return "title"
	case SignalScreen:
		return "screen"
	case SignalOutput:
		return "output"
	case SignalTurn:
		return "turn"
	case SignalLimit:
		return "usage limit"
	}
	return "unknown"
}

// Finding is what one step found.
type Finding int

// The findings. Each step has its own few.
const (
	// FindNone: the step has nothing to say (no hook, no OSC state, ...).
	FindNone Finding = iota
	// FindExited: the process exited (ExitCode).
	FindExited
	// FindReadySeen: the profile's readiness was seen.
	FindReadySeen
	// FindNotReady: not ready yet, within the boot grace (Limit: the grace,
	// Age: since spawn).
	FindNotReady
	// FindGraceOver: never ready, but the boot grace is over: the other
	// signals decide (Judgment.BootOverdue).
	FindGraceOver
	// FindSyncFrame: inside a synchronized-output frame, the screen is not read.
	FindSyncFrame
	// FindPattern: Pattern is on the screen.
	FindPattern
	// FindNoPattern: no pattern of the step's kind is on the screen.
	FindNoPattern
	// FindShell, FindJob: the shell / a job is in the foreground.
	FindShell
	FindJob
	// FindReport: the hook report counts (Event, Age).
	FindReport
	// FindCleared: the last hook event carries no status (Event, Age).
	FindCleared
	// FindStale: the title has contradicted the hook report for Age >= Limit.
	FindStale
	// FindOSC: the OSC state (Detail) says Says.
	FindOSC
	// FindTitle: the title (Detail) says Says.
	FindTitle
	// FindTitleSilent: the title (Detail) says nothing.
	FindTitleSilent
	// FindOutputFlowing: output Age ago, less than the quiet window Limit.
	FindOutputFlowing
	// FindQuiet: output Age ago, at least Limit.
	FindQuiet
	// FindNoOutput: no output ever.
	FindNoOutput
	// FindHeld: the person's Enter Age ago; held busy until Limit.
	FindHeld
	// FindLimitHold: a usage-limit hold holds (Detail: LimitHold.Describe).
	FindLimitHold
	// FindLimitDialog: the limit menu (Pattern) is on the screen.
	FindLimitDialog
)

// Step is one signal the judge read, what it found and what it says.
type Step struct {
	// Signal is which signal this is.
	Signal Signal
	// Found is what it found; Says is the status it says, valid when Decisive.
	Found    Finding
	Says     Status
	Decisive bool
	// Definitive is set on a decisive step that reads the agent's state as
	// it is after the latest Enter, with no lag a turn's grace must bridge:
	// the shell's foreground process group, once a job holds the terminal
	// or the shell's prompt is back (Inputs.ShellAtPrompt). A turn's grace
	// never outvotes it (see Turn).
	Definitive bool
	// Decides is set on the one step that decided the status.
	Decides bool
	// Pattern is the matched screen pattern (FindPattern); Detail the title,
	// OSC state or hook event; Age and Limit the durations the finding is
	// about; Code the exit code.
	Pattern string
	Detail  string
	Age     time.Duration
	Limit   time.Duration
	Code    int
}

// Describe returns the step's evidence as one line of text.
func (s Step) Describe() string {
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	switch s.Found {
	case FindExited:
		return fmt.Sprintf("exit code %d", s.Code)
	case FindReadySeen:
		return "the profile's readiness was seen"
	case FindNotReady:
		return fmt.Sprintf("not ready %v after spawn (boot grace %v)", ms(s.Age), s.Limit)
	case FindGraceOver:
		return fmt.Sprintf("never ready; boot grace %v over: the other signals decide", s.Limit)
	case FindSyncFrame:
		return "inside a synchronized-output frame: not read"
	case FindPattern:
		return fmt.Sprintf("%q on screen", s.Pattern)
	case FindNoPattern:
		if s.Signal == SignalScreenWaiting {
			return "no waiting pattern on screen"
		}
		return "no busy or idle pattern on screen"
	case FindShell:
		if s.Definitive {
			return "the shell is the foreground process group, its prompt back since the Enter"
		}
		return "the shell is the foreground process group"
	case FindJob:
		return "a job is the foreground process group"
	case FindReport:
		return fmt.Sprintf("%s %v ago", s.Detail, ms(s.Age))
	case FindCleared:
		return fmt.Sprintf("%s %v ago (no status)", s.Detail, ms(s.Age))
	case FindStale:
		return fmt.Sprintf("%s said %s; the title has contradicted it for %v (>= %v): dropped", s.Detail, s.Says, ms(s.Age), s.Limit)
	case FindOSC:
		return "OSC 7501 state=" + s.Detail
	case FindTitle:
		return fmt.Sprintf("title %q", s.Detail)
	case FindTitleSilent:
		return fmt.Sprintf("title %q decides nothing", s.Detail)
	case FindOutputFlowing:
		return fmt.Sprintf("last output %v ago (< %v)", ms(s.Age), s.Limit)
	case FindQuiet:
		return fmt.Sprintf("last output %v ago (>= %v)", ms(s.Age), s.Limit)
	case FindNoOutput:
		return "no output yet"
	case FindHeld:
		return fmt.Sprintf("the person's Enter %v ago; busy until the agent shows it (at most %v)", ms(s.Age), s.Limit)
	case FindLimitHold:
		return "usage limit, " + s.Detail
	case FindLimitDialog:
		return fmt.Sprintf("the limit menu %q on screen: a dialog", s.Pattern)
	}
	if s.Signal == SignalLimit {
		return "no usage-limit hold"
	}
	switch s.Signal {
	case SignalHook:
		return "no hook report"
	case SignalOSC:
		return "no OSC state"
	case SignalForeground:
		return "foreground process group unknown"
	}
	return "-"
}

// Judgment is the judge's answer: the status, the step that decided it and
// every step it went through, in order.
type Judgment struct {
	// Status is the raw (not debounced) status.
	Status Status
	// Steps are the signals read, in the order they count; exactly one has
	// Decides set. The steps after the deciding one are still listed.
	Steps []Step
	// Ready is true when the profile's readiness has been seen (feed it back
	// as Boot.Seen). BootOpen is true when delivery may begin: ready, or the
	// boot grace is over. BootOverdue is true when the grace is over and
	// readiness was never seen (worth a notice: a screen office does not
	// recognise, such as a new dialog).
	Ready, BootOpen, BootOverdue bool
	// Held is true when the turn hold turned an idle reading into busy; the
	// status before it was StatusIdle.
	Held bool
	// Definitive is the deciding step's Step.Definitive: the turn machine
	// ends a turn at a definitive idle (Turn.Observe), and the turn hold
	// does not apply to one.
	Definitive bool
	// Next is the earliest later instant at which the judgment may change
	// with no input changed (a quiet window ends, the boot grace or a turn
	// hold runs out, a hook report goes stale); zero means none.
	Next time.Time
}

// Decided returns the step that decided the status.
func (j Judgment) Decided() Step {
	for _, s := range j.Steps {
		if s.Decides {
			return s
		}
	}
	return Step{}
}

// Signal names the deciding signal in one short word or phrase, as
// `office status` prints it: "hook", "title", "screen: PATTERN", "output",
// "quiescence", "starting", "turn started", "foreground: shell", ...
func (j Judgment) Signal() string {
	s := j.Decided()
	switch s.Signal {
	case SignalBoot:
		return "starting"
	case SignalScreenWaiting, SignalScreen:
		return "screen: " + s.Pattern
	case SignalForeground:
		if s.Found == FindShell {
			return "foreground: shell"
		}
		return "foreground: job"
	case SignalOutput:
		if s.Says == StatusBusy {
			return "output"
		}
		return "quiescence"
	case SignalTurn:
		return "turn started"
	case SignalLimit:
		if s.Found == FindLimitDialog {
			return "screen: " + s.Pattern
		}
		return s.Detail
	}
	return s.Signal.String()
}

// ReadTitle applies a profile's title rules to a title's first non-space
// rune: busy (TitleBusy, then TitleBraille), idle (TitleIdle), or ok false
// when the title says nothing.
func ReadTitle(title string, rules StatusRules) (Status, bool) {
	return titleStatus(title, rules)
}

// Judge decides an agent's status from in and a profile's rules. The steps,
// in order; the first that says something decides:
//
//  1. exited: StatusExited.
//  2. screen waiting: a Waiting pattern: StatusWaiting (a dialog blocks
//     delivery whatever else says idle, and waits for the person even while
//     the CLI boots: a first-run trust dialog comes before the prompt).
//     Then usage limit: the limit menu (Limits.Dialogs) is a dialog too,
//     StatusWaiting; else a usage-limit hold (Inputs.Limit) that holds at
//     Now: StatusLimited, until the hold ends (docs/limits.md).
//  3. boot: readiness. Ready when seen before (Boot.Seen); with ready
//     markers, when they have shown for Boot.Settle and the output has been
//     quiet as long; without, after the first output and Boot.ReadyQuiet
//     (CustomReadyQuiet) of quiet. Not ready within the boot grace:
//     StatusStarting. Not ready after it: the other signals decide
//     (BootOverdue).
//  4. foreground: for a shell, idle exactly when the shell is in the
//     foreground; definitive (Step.Definitive) for a job, and for the shell
//     once its prompt is back since the Enter (Inputs.ShellAtPrompt).
//  5. hook: the last report, unless it is stale: the title has contradicted
//     it (idle title against busy, busy title against idle) for
//     Inputs.HookStale (HookStaleAfter), or for a waiting report an idle
//     title for Inputs.HookWaitingStale (HookWaitingStaleAfter), counted
//     from the later of the report and the title's change.
//  6. osc-state (OSCStatus). 7. title (ReadTitle).
//  8. screen: a Busy pattern, then an Idle one.
//  9. output: busy while output is younger than the quiet window, else idle.
//
// Screen patterns (3, 8) are not read inside a synchronized-output frame.
// Last, the turn hold: an idle answer while in.Turn holds (Now before
// Until) becomes busy, decided by the turn step, unless the step that
// decided it is definitive (a turn's grace never outvotes one: see Turn).
func Judge(in Inputs, rules StatusRules) Judgment {
	j := Judgment{Steps: make([]Step, 0, maxSteps)}
	now := in.Now
	decided := false
	add := func(s Step) {
		if s.Decisive && !decided {
			s.Decides = true
			decided = true
			j.Status, j.Definitive = s.Says, s.Definitive
		}
		j.Steps = append(j.Steps, s)
	}
	next := func(t time.Time) {
		if t.After(now) && (j.Next.IsZero() || t.Before(j.Next)) {
			j.Next = t
		}
	}

	if in.Exited {
		add(Step{Signal: SignalExited, Found: FindExited, Says: StatusExited, Decisive: true, Code: in.ExitCode})
		return j
	}
	waitingShown := false
	switch p, ok := findPattern(in.Screen, rules.Waiting); {
	case in.InSyncFrame:
		add(Step{Signal: SignalScreenWaiting, Found: FindSyncFrame})
	case ok:
		waitingShown = true
		add(Step{Signal: SignalScreenWaiting, Found: FindPattern, Pattern: p, Says: StatusWaiting, Decisive: true})
	default:
		add(Step{Signal: SignalScreenWaiting, Found: FindNoPattern})
	}
	if s := limitStep(in, rules, next); s.Found != FindNone {
		add(s) // listed only when it has something to say
	}
	add(j.boot(in, next))

	quiet := rules.Quiet
	if quiet <= 0 {
		quiet = QuietAfter
	}
	switch in.Foreground {
	case ForegroundShell:
		add(Step{Signal: SignalForeground, Found: FindShell, Says: StatusIdle, Decisive: true, Definitive: in.ShellAtPrompt})
	case ForegroundJob:
		add(Step{Signal: SignalForeground, Found: FindJob, Says: StatusBusy, Decisive: true, Definitive: true})
	}
	add(hookStep(in, rules, waitingShown, next))
	if s, ok := OSCStatus(in.OSCState); ok {
		add(Step{Signal: SignalOSC, Found: FindOSC, Detail: in.OSCState, Says: s, Decisive: true})
	} else {
		add(Step{Signal: SignalOSC, Found: FindNone, Detail: in.OSCState})
	}
	if s, ok := ReadTitle(in.Title, rules); ok {
		add(Step{Signal: SignalTitle, Found: FindTitle, Detail: in.Title, Says: s, Decisive: true})
	} else {
		add(Step{Signal: SignalTitle, Found: FindTitleSilent, Detail: in.Title})
	}
	if in.InSyncFrame {
		add(Step{Signal: SignalScreen, Found: FindSyncFrame})
	} else if p, ok := findPattern(in.Screen, rules.Busy); ok {
		add(Step{Signal: SignalScreen, Found: FindPattern, Pattern: p, Says: StatusBusy, Decisive: true})
	} else if p, ok := findPattern(in.Screen, rules.Idle); ok {
		add(Step{Signal: SignalScreen, Found: FindPattern, Pattern: p, Says: StatusIdle, Decisive: true})
	} else {
		add(Step{Signal: SignalScreen, Found: FindNoPattern})
	}
	switch age := now.Sub(in.LastOutput); {
	case in.LastOutput.IsZero():
		add(Step{Signal: SignalOutput, Found: FindNoOutput, Says: StatusIdle, Decisive: true, Limit: quiet})
	case age < quiet:
		if !decided {
			next(in.LastOutput.Add(quiet))
		}
		add(Step{Signal: SignalOutput, Found: FindOutputFlowing, Age: age, Limit: quiet, Says: StatusBusy, Decisive: true})
	default:
		add(Step{Signal: SignalOutput, Found: FindQuiet, Age: age, Limit: quiet, Says: StatusIdle, Decisive: true})
	}

	if !in.Turn.Until.IsZero() && now.Before(in.Turn.Until) {
		// The hold matters only while the answer is idle, but its end is a
		// deadline either way: the answer may turn idle before it.
		next(in.Turn.Until)
		if j.Status == StatusIdle && !j.Definitive {
			for i := range j.Steps {
				j.Steps[i].Decides = false
			}
			j.Held = true
			j.Status = StatusBusy
			j.Steps = append(j.Steps, Step{Signal: SignalTurn, Found: FindHeld, Says: StatusBusy, Decisive: true, Decides: true,
				Age: now.Sub(in.Turn.Since), Limit: in.Turn.Until.Sub(in.Turn.Since)})
		}
	}
	return j
}

// boot is step 2; it sets j's readiness fields.
func (j *Judgment) boot(in Inputs, next func(time.Time)) Step {
	now, b := in.Now, in.Boot
	grace := b.Grace
	if grace <= 0 {
		grace = BootGrace
	}
	switch {
	case b.Seen:
		j.Ready = true
	case b.Markers:
		j.Ready = ReadySettled(b.MarkersSince, b.Settle, now) && ReadySettled(in.LastOutput, b.Settle, now)
		if !j.Ready && !b.MarkersSince.IsZero() {
			next(later(b.MarkersSince, in.LastOutput).Add(b.Settle))
		}
	case !in.LastOutput.IsZero():
		quiet := orDefault(b.ReadyQuiet, CustomReadyQuiet)
		j.Ready = now.Sub(in.LastOutput) >= quiet
		if !j.Ready {
			next(in.LastOutput.Add(quiet))
		}
	}
	age := now.Sub(b.Spawned)
	if b.Spawned.IsZero() {
		age = grace
	}
	switch {
	case j.Ready:
		j.BootOpen = true
		return Step{Signal: SignalBoot, Found: FindReadySeen}
	case age >= grace:
		j.BootOpen, j.BootOverdue = true, true
		return Step{Signal: SignalBoot, Found: FindGraceOver, Age: age, Limit: grace}
	}
	next(b.Spawned.Add(grace))
	return Step{Signal: SignalBoot, Found: FindNotReady, Says: StatusStarting, Decisive: true, Age: age, Limit: grace}
}

// hookStep is step 5.
func hookStep(in Inputs, rules StatusRules, waitingShown bool, next func(time.Time)) Step {
	h := in.Hook
	if h.Seq == 0 {
		return Step{Signal: SignalHook, Found: FindNone}
	}
	age := in.Now.Sub(h.At)
	if h.Status == StatusStarting {
		return Step{Signal: SignalHook, Found: FindCleared, Detail: h.Event, Age: age}
	}
	says, detail := h.Says(), h.Event
	if h.Handed {
		detail += handedDetail
	}
	title, titleOK := ReadTitle(in.Title, rules)
	limit := orDefault(in.HookStale, HookStaleAfter)
	var contradicted bool
	switch says {
	case StatusBusy:
		contradicted = titleOK && title == StatusIdle
	case StatusIdle:
		contradicted = titleOK && title == StatusBusy
	case StatusWaiting:
		contradicted = titleOK && title == StatusIdle && !waitingShown
		limit = orDefault(in.HookWaitingStale, HookWaitingStaleAfter)
	}
	if contradicted {
		since := later(h.At, in.TitleSince)
		if d := in.Now.Sub(since); d >= limit {
			return Step{Signal: SignalHook, Found: FindStale, Detail: detail, Says: says, Age: d, Limit: limit}
		}
		next(since.Add(limit))
	}
	return Step{Signal: SignalHook, Found: FindReport, Detail: detail, Says: says, Decisive: true, Age: age}
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// titleStatus applies the title rules to the title's first non-space rune.
func titleStatus(title string, rules StatusRules) (Status, bool) {
	t := strings.TrimSpace(title)
	if t == "" {
		return 0, false
	}
	var first rune
	for _, r := range t {
		first = r
		break
	}
	switch {
	case strings.ContainsRune(rules.TitleBusy, first):
		return StatusBusy, true
	case rules.TitleBraille && first >= 0x2800 && first <= 0x28FF:
		return StatusBusy, true
	case strings.ContainsRune(rules.TitleIdle, first):
		return StatusIdle, true
	}
	return 0, false
}
