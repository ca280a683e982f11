package configs

// The one table of office's tunables: every timing, size and count the
// engine runs on, with its office-file key, default, valid range and the
// rule it comes from. It is the source: Parse fills Config.Settings from it
// (defaults, then the file's top-level keys; Config.SettingsFor adds the
// per-agent keys where a row allows them, and for quiet the profiles, as
// Config.AgentValue orders them), the engine seeds drain, pool, inbox and its own timers
// from Config.Settings, and `office config show` prints it. A package that
// needs a default for a zero field takes it from Defaults(), so no number is
// written twice.
//
// Rows whose rule lives in package automation (quiet, boot_grace, stale,
// echo_grace, picker_settle, recover_settle, status_debounce, ready_quiet,
// hook_stale, hook_waiting_stale, turn_grace) take their default from
// automation's constant, and automation takes the value as a parameter
// (automation.Timing, StatusRules.Quiet, Boot.Grace), so the number is still
// written once.
//
// Not rows, on purpose (each constant stays next to its code):
//   - A profile's own windows are profile keys, which an office file's
//     [profile.NAME] table sets: ready_settle (the built-ins' 400 ms and
//     500 ms; automation.ClaudeReadySettle and its siblings are the same
//     facts, cross-checked by a test), enter_delay, paste_enter_delay,
//     quiet (also a row).
//   - Poll intervals of waits that end on what they watch for, where only
//     CPU depends on the number: the drain's verifyPoll, echoPoll and
//     evidencePoll, the engine's evidence poll.
//   - Bounds of waits for something that normally comes within
//     milliseconds, past which the next rule decides: the drain's echoWait
//     (3 s for a CLI's echo before its Enter, which then goes anyway) and
//     evidenceAfterNoSubmit (1 s), the engine's replyWait (2 s for a reply
//     record before a notice quotes the screen), settleTries/settleRetry.
//   - Internal pacing and shutdown bounds no rule depends on: the drain's
//     abandonAfter, the engine's server timings (helloTimeout, frameInterval,
//     writeStall, stateTick, quietTick, byeWait, ...), opTimeout,
//     callTimeout, scheduleTick (how often compaction schedules are
//     checked), ClashCheckWait, DefaultWatchEvery (the store watch), the
//     store's BusyTimeout and LockTimeout.
//   - Size bounds of what is read from outside (the office file's
//     MaxFileBytes and MaxAgents, beside the loader in config.go; the
//     pool's filter limits, MaxDim, MaxLineBytes,
//     records.MaxRead/MaxText/MaxFiles, queue.MaxBody,
//     inbox.PreviewThreshold/PreviewBytes, ResultLines/ResultBytes, the
//     turn ledger's and the turn machine's bounds): protection, not policy.
//   - records.Skew: the granularity of a CLI's own timestamps, a fact.

import (
	"fmt"
	"strconv"
	"time"

	"office/automation"
)

// Kind is how a setting's value is written in the office file.
type Kind int

const (
	// KindDuration: a string in time.ParseDuration form ("200ms", "6s", "30m").
	KindDuration Kind = iota
	// KindCount: an integer (attempts, items, lines).
	KindCount
	// KindBytes: an integer number of bytes.
	KindBytes
)

// String names the kind as `office config show --json` prints it.
func (k Kind) String() string {
	switch k {
	case KindDuration:
		return "duration"
	case KindCount:
		return "count"
	case KindBytes:
		return "bytes"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Settings holds the value of every row of the table: what the engine runs
// on. Defaults() returns the table's defaults; Config.Settings holds a
// file's top-level values and Config.SettingsFor one agent's.
type Settings struct {
	// The drain (drain.Config).
	Debounce       time.Duration // debounce
	Tick           time.Duration // tick
	Cooldown       time.Duration // cooldown (per agent)
	EnterGap       time.Duration // enter_gap
	SubmitCheck    time.Duration // submit_check
	EnterRetry     time.Duration // enter_retry
	MaxAttempts    int           // max_attempts
	PasteThreshold int           // paste_threshold
	WriteTimeout   time.Duration // write_timeout
	EvidenceWait   time.Duration // evidence_wait

	// Status (pool and automation).
	Quiet            time.Duration // quiet (per agent)
	BootGrace        time.Duration // boot_grace (per agent)
	Stale            time.Duration // stale
	EchoGrace        time.Duration // echo_grace
	PickerSettle     time.Duration // picker_settle
	RecoverSettle    time.Duration // recover_settle
	StatusDebounce   time.Duration // status_debounce
	ReadyQuiet       time.Duration // ready_quiet
	HookStale        time.Duration // hook_stale
	HookWaitingStale time.Duration // hook_waiting_stale
	TurnGrace        time.Duration // turn_grace
	ShellPoll        time.Duration // shell_poll
	ShellPromptQuiet time.Duration // shell_prompt_quiet
	HangupGrace      time.Duration // hangup_grace

	// Inbox and mail (inbox.Options and the engine's inbox timers).
	BatchItems           int           // batch_items
	BatchBytes           int           // batch_bytes
	MailTimeout          time.Duration // mail_timeout
	MailSweep            time.Duration // mail_sweep
	Stall                time.Duration // stall (per agent)
	StallSample          time.Duration // stall_sample
	Retention            time.Duration // retention
	RetentionSweep       time.Duration // retention_sweep
	JournalContinuations int           // journal_continuations
	StateRetries         int           // state_retries

	// The engine.
	RestartBackoff    time.Duration // restart_backoff
	RestartBackoffMax time.Duration // restart_backoff_max
	RestartReset      time.Duration // restart_reset

	// Panes.
	History int // history (per agent)
}

// Setting is one row of the table.
type Setting struct {
	// Key is the office-file key (`cooldown = "6s"`) and the name `office
	// config show` prints.
	Key string
	// Kind says how the value is written.
	Kind Kind
	// Default, Min and Max are the default and the valid range, both ends
	// included: nanoseconds for KindDuration, else the number.
	Default, Min, Max int64
	// PerAgent: an [[agent]] table may set it for that agent alone.
	PerAgent bool
	// Use names the field the engine seeds from it.
	Use string
	// Help says what the setting does, the rule it comes from and why.
	Help string

	dur func(*Settings) *time.Duration // KindDuration
	num func(*Settings) *int           // KindCount, KindBytes
}

const (
	ms     = time.Millisecond
	sec    = time.Second
	minute = time.Minute
	hr     = time.Hour
	day    = 24 * time.Hour
)

// durRow and numRow build rows.
func durRow(key string, def, lo, hi time.Duration, use string, f func(*Settings) *time.Duration, help string) Setting {
	return Setting{Key: key, Kind: KindDuration, Default: int64(def), Min: int64(lo), Max: int64(hi), Use: use, Help: help, dur: f}
}

func numRow(key string, kind Kind, def, lo, hi int64, use string, f func(*Settings) *int, help string) Setting {
	return Setting{Key: key, Kind: kind, Default: def, Min: lo, Max: hi, Use: use, Help: help, num: f}
}

// perAgent marks s settable per agent.
func perAgent(s Setting) Setting {
	s.PerAgent = true
	return s
}

// table is the settings table, in the order `office config show` prints it.
var table = []Setting{
	// The drain.
	durRow("debounce", 200*ms, 10*ms, 10*sec, "drain.Config.Debounce", func(s *Settings) *time.Duration { return &s.Debounce },
		"seed 002 (setTimeout(flush, 200)): a store or terminal change schedules a drain pass this long after the first change, a fixed window, so bursts of PTY output and store changes collapse into one pass"),
	durRow("tick", 3*sec, 100*ms, 5*minute, "drain.Config.Tick", func(s *Settings) *time.Duration { return &s.Tick },
		"seed 002 (setInterval(flush, 3000)): the fallback pass that runs even when nothing woke the drain, so a queue is never starved when no change event comes"),
	perAgent(durRow("cooldown", 4500*ms, 100*ms, hr, "drain.Config.Cooldown, drain.SubmitProfile.Cooldown", func(s *Settings) *time.Duration { return &s.Cooldown },
		"seed 002 (FLUSH_COOLDOWN_MS = 4500): least time between two delivery attempts to one agent, from the start of the earlier one, because back-to-back sends can wedge a TUI")),
	durRow("enter_gap", 140*ms, 10*ms, 5*sec, "drain.Config.EnterDelay", func(s *Settings) *time.Duration { return &s.EnterGap },
		"seed 002 (Enter alone after 140 ms): the CLI must take the text before the Enter, or text and Enter read as a newline; a profile's enter_delay or paste_enter_delay may be longer"),
	durRow("submit_check", 2*sec, 100*ms, time.Minute, "drain.Config.VerifyFor", func(s *Settings) *time.Duration { return &s.SubmitCheck },
		"after Enter, how long office watches for the prompt to empty or the agent to turn busy before it sends one more Enter; a message is acknowledged only once submitted"),
	durRow("enter_retry", 500*ms, 10*ms, 10*sec, "drain.Config.RetryEnterAfter", func(s *Settings) *time.Duration { return &s.EnterRetry },
		"the pause before that one extra Enter, when our text still sits on the prompt and no dialog is open"),
	numRow("max_attempts", KindCount, 3, 1, 100, "drain.Config.MaxAttempts", func(s *Settings) *int { return &s.MaxAttempts },
		"seed 002 (MAX_SEND_ATTEMPTS = 3): failed attempts (a write cut short, nothing typed) before a message is dropped: bounded, so office never spins on a dead agent, and loud (an event, a log line, a notice)"),
	numRow("paste_threshold", KindBytes, 512, 1, 1<<20, "drain.Config.PasteThreshold", func(s *Settings) *int { return &s.PasteThreshold },
		"seed 002 (bracketed paste): a message longer than this many bytes, or with a newline, goes as one bracketed paste when the CLI has paste mode on, so it arrives as one prompt"),
	durRow("write_timeout", 10*sec, sec, 10*minute, "drain.Config.WriteTimeout", func(s *Settings) *time.Duration { return &s.WriteTimeout },
		"bound on each write into an agent's PTY: an agent that stops reading its input blocks writes once about 18 KB are unread; a write past this is a failed attempt"),

	durRow("evidence_wait", 5*sec, 100*ms, minute, "drain.Config.EvidenceFor", func(s *Settings) *time.Duration { return &s.EvidenceWait },
		"after a submit, how long office waits for the agent's own record (Claude's prompt hook, the Codex and Gemini session files) to show the text, the strongest evidence it was received, before the screen check alone decides"),

	// Status.
	perAgent(durRow("quiet", automation.QuietAfter, sec, hr, "automation.StatusRules.Quiet", func(s *Settings) *time.Duration { return &s.Quiet },
		"busy with no output this long reads idle, when no stronger signal (hook, title, OSC state, screen pattern) decides; an agent's own quiet wins, then a [profile.NAME] quiet the office file writes, then the top-level one, then a built-in profile's (custom: 12s)")),
	perAgent(durRow("boot_grace", automation.BootGrace, sec, 10*minute, "pool.Behavior.BootGrace", func(s *Settings) *time.Duration { return &s.BootGrace },
		"seed 002 (BOOT_GRACE_MS = 35_000): after spawn, no automated write until the profile's ready markers show or this long passed: a freshly started CLI draws its banner first and keys typed then are lost; a slow CLI may need more")),
	durRow("stale", automation.StaleAfter, minute, day, "pool.Behavior.Timing.Stale (automation.Timing)", func(s *Settings) *time.Duration { return &s.Stale },
		"seed 002 (STALE_INPUT_MS = STALE_PICKER_MS = 1_800_000): a draft or picker block expires this long after the last keystroke or latch: both are inferred, and a wrongly kept one would hold the queue all day; long on purpose, as waiting is cheaper than typing into a live prompt"),
	durRow("echo_grace", automation.EchoGrace, 100*ms, 10*sec, "pool.Behavior.Timing.EchoGrace (automation.Timing)", func(s *Settings) *time.Duration { return &s.EchoGrace },
		"seed 002 (ECHO_GRACE_MS = 1000): the screen is no evidence about a draft this soon after a keystroke: the key is typed before its echo is drawn, and reading \"empty\" then is the expensive mistake; a slow remote terminal may need more"),
	durRow("picker_settle", automation.PickerCloseSettle, 10*ms, 10*sec, "pool.Behavior.Timing.PickerSettle (automation.Timing)", func(s *Settings) *time.Duration { return &s.PickerSettle },
		"seed 002 (settling): after a picker is released by Enter, Esc or Ctrl-C, no automated write for this long, while the CLI redraws its prompt"),
	durRow("recover_settle", automation.RecoverPromptSettle, 10*ms, 10*sec, "pool.Behavior.RecoverSettle", func(s *Settings) *time.Duration { return &s.RecoverSettle },
		"settling after the person has office clear their prompt (Ctrl-U, the composer's recover), while the CLI redraws it"),
	durRow("status_debounce", automation.StatusDebounce, 10*ms, 10*sec, "pool.Behavior.Timing.StatusDebounce (automation.StatusDebouncer)", func(s *Settings) *time.Duration { return &s.StatusDebounce },
		"a raw idle must last this long before the status says idle (busy shows at once), so a flicker between two busy frames does not open the gate"),
	durRow("ready_quiet", automation.CustomReadyQuiet, 100*ms, 5*minute, "pool.Behavior.Timing.ReadyQuiet (automation.Boot)", func(s *Settings) *time.Duration { return &s.ReadyQuiet },
		"a profile without ready markers (shell, custom) is ready after its first output and this long of quiet (the boot grace ends the wait in any case); a command that pauses while it starts may need more"),
	durRow("hook_stale", automation.HookStaleAfter, 100*ms, 10*minute, "pool.Behavior.Timing.HookStale (automation.Inputs.HookStale)", func(s *Settings) *time.Duration { return &s.HookStale },
		"design §4 (the status judge's hook step): a busy or idle report of the CLI's hooks no longer counts once the title has contradicted it this long, because Claude runs no hook when the person interrupts a turn (Esc) and none for a /compact turn; shorter trusts the title sooner, longer rides out a title that flickers"),
	durRow("hook_waiting_stale", automation.HookWaitingStaleAfter, 100*ms, hr, "pool.Behavior.Timing.HookWaitingStale (automation.Inputs.HookWaitingStale)", func(s *Settings) *time.Duration { return &s.HookWaitingStale },
		"design §4 (the hook step): the same for a waiting report (a permission dialog), contradicted by an idle title with no waiting pattern on the screen: longer than hook_stale, as a dialog wrongly dropped lets a delivery type into it"),
	durRow("turn_grace", automation.TurnGrace, 100*ms, 10*minute, "pool.Behavior.Timing.TurnGrace (automation.Turn.Grace)", func(s *Settings) *time.Duration { return &s.TurnGrace },
		"design §4 (the turn machine): a turn that has not shown busy ends when the agent is idle this long after its Enter, and the person's own Enter holds the agent busy until it shows busy or this passed, so nothing is typed in the gap before a CLI shows it is working"),
	durRow("shell_poll", 100*ms, 10*ms, 10*sec, "pool.Behavior.ShellPoll", func(s *Settings) *time.Duration { return &s.ShellPoll },
		"design §4 (the shell's foreground process group): a shell agent (shell_idle) is idle exactly when the shell is the PTY's foreground process group; no event says a job started or ended, so the group is read this often (an O(1) ioctl); longer makes a job's end show later"),
	durRow("shell_prompt_quiet", 150*ms, 10*ms, 10*sec, "pool.Behavior.ShellPromptQuiet", func(s *Settings) *time.Duration { return &s.ShellPromptQuiet },
		"design §3 (text office did not type, on a shell's line, is read after its prompt): a shell agent's prompt is learned from the screen: once a command returned and the line is known empty, the output must be quiet this long before the text left of the cursor is taken as the prompt; a prompt drawn in pieces (a slow PROMPT_COMMAND) may need more"),

	durRow("hangup_grace", 2*sec, 100*ms, minute, "pool.Behavior.HangupGrace", func(s *Settings) *time.Duration { return &s.HangupGrace },
		"when office stops (or an agent is removed), how long an agent's process group has after SIGHUP to save its session and exit before SIGKILL"),

	// Inbox and mail.
	numRow("batch_items", KindCount, 100, 1, 10000, "inbox.Options.BatchItems", func(s *Settings) *int { return &s.BatchItems },
		"seed 000 (up to 100 rows per drain): the most inbox items rendered into one delivery, so a backlog arrives as a few prompts, not hundreds"),
	numRow("batch_bytes", KindBytes, 32<<10, 1<<10, 1<<20, "inbox.Options.BatchBytes", func(s *Settings) *int { return &s.BatchBytes },
		"the most bytes of rendered items in one delivery (the first item always goes, whatever its size), so one prompt stays readable"),
	durRow("mail_timeout", 30*minute, sec, 30*day, "inbox.Options.MailDeadline", func(s *Settings) *time.Duration { return &s.MailTimeout },
		"seed 004 (default_task_timeout_minutes = 30): the deadline of working mail sent without --deadline; past it the mail fails with timeout"),
	durRow("mail_sweep", 30*sec, sec, hr, "engine inbox ticker", func(s *Settings) *time.Duration { return &s.MailSweep },
		"seed 004 (the ticker scans every 30 s): how often working mail past its deadline is failed and stalls are checked (on the next stall_sample)"),
	perAgent(durRow("stall", 6*minute, 10*sec, 7*day, "inbox.Options.Stall, inbox.StallObservation.After", func(s *Settings) *time.Duration { return &s.Stall },
		"seed 000 (the stall watchdog's 6 minutes): busy with no activity this long is a stall, noticed once to the parent; an agent that legitimately works silently longer may raise it")),
	durRow("stall_sample", 5*sec, sec, minute, "engine inbox sampler", func(s *Settings) *time.Duration { return &s.StallSample },
		"how often the engine samples each screen for the stall watchdog's activity and checks the inbox timers"),
	durRow("retention", 7*day, hr, 3650*day, "inbox.Options.Retention", func(s *Settings) *time.Duration { return &s.Retention },
		"seed 000 (rows older than 7 days): delivered items and finished mail older than this are deleted; undelivered ones become dead letters with a notice, never deleted silently"),
	durRow("retention_sweep", hr, minute, day, "engine retention timer", func(s *Settings) *time.Duration { return &s.RetentionSweep },
		"how often retention runs (also once at start)"),
	numRow("journal_continuations", KindCount, 3, 1, 100, "inbox.Options.JournalContinuations", func(s *Settings) *int { return &s.JournalContinuations },
		"seed 000 (the progress-journal check): how many continuations a task agent gets when its turn ends without a complete journal, before its parent is told"),
	numRow("state_retries", KindCount, 3, 1, 100, "inbox.Options.StateRetries", func(s *Settings) *int { return &s.StateRetries },
		"seed 004 (retried state writes): how often a failed mail state write is retried before the ticker is left to settle it"),

	// The engine.
	durRow("restart_backoff", sec, 10*ms, minute, "engine restart", func(s *Settings) *time.Duration { return &s.RestartBackoff },
		"the wait before restarting an agent whose restart policy asks for it; each quick failure doubles it"),
	durRow("restart_backoff_max", 30*sec, 10*ms, hr, "engine restart", func(s *Settings) *time.Duration { return &s.RestartBackoffMax },
		"the most the doubled restart wait grows to, so a crashing CLI is retried, slowly, without a busy loop"),
	durRow("restart_reset", minute, sec, day, "engine restart", func(s *Settings) *time.Duration { return &s.RestartReset },
		"a process that lived this long resets the restart wait to restart_backoff"),

	// Panes.
	perAgent(numRow("history", KindCount, 10000, 1, 1000000, "configs.Agent.History, pool.History", func(s *Settings) *int { return &s.History },
		"lines of pane history kept per agent (`office history`), in memory and in its file; bounded (at most pool.MaxHistory), as everything from outside is")),
}

// Table returns the settings table in `office config show` order, as a
// fresh slice.
func Table() []Setting {
	return append([]Setting(nil), table...)
}

// Lookup returns the row for an office-file key.
func Lookup(key string) (Setting, bool) {
	for _, s := range table {
		if s.Key == key {
			return s, true
		}
	}
	return Setting{}, false
}

// Defaults returns every setting at its default.
func Defaults() Settings {
	var s Settings
	for _, row := range table {
		row.set(&s, row.Default)
	}
	return s
}

// Get returns the row's value in s (nanoseconds for a duration).
func (row Setting) Get(s Settings) int64 {
	if row.dur != nil {
		return int64(*row.dur(&s))
	}
	return int64(*row.num(&s))
}

// set stores v, in the row's unit, into s.
func (row Setting) set(s *Settings, v int64) {
	if row.dur != nil {
		*row.dur(s) = time.Duration(v)
		return
	}
	*row.num(s) = int(v)
}

// Format writes v, in the row's unit, as the office file takes it: "200ms",
// "4.5s", "6s", "30m", "168h" for durations, the number otherwise.
func (row Setting) Format(v int64) string {
	if row.Kind == KindDuration {
		return FormatDuration(time.Duration(v))
	}
	return strconv.FormatInt(v, 10)
}

// FormatDuration writes d in the shortest time.ParseDuration form with one
// unit when there is one: "0s", "140ms", "4.5s", "6s", "30m", "168h";
// otherwise d.String() ("1h30m0s" reads "90m").
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%hr == 0:
		return strconv.FormatInt(int64(d/hr), 10) + "h"
	case d%minute == 0:
		return strconv.FormatInt(int64(d/minute), 10) + "m"
	case d%sec == 0:
		return strconv.FormatInt(int64(d/sec), 10) + "s"
	case d%ms == 0 && d > sec && d < minute:
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	case d%ms == 0:
		return strconv.FormatInt(int64(d/ms), 10) + "ms"
	}
	return d.String()
}

// parseValue reads a TOML value for the row and checks its range.
func (row Setting) parseValue(v any) (int64, error) {
	var n int64
	switch row.Kind {
	case KindDuration:
		s, ok := v.(string)
		if !ok {
			return 0, fmt.Errorf("want a duration string like %q, got %s", row.Format(row.Default), tomlType(v))
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("bad duration %q (want a string like %q)", s, row.Format(row.Default))
		}
		n = int64(d)
	default:
		i, ok := v.(int64)
		if !ok {
			return 0, fmt.Errorf("want an integer like %d, got %s", row.Default, tomlType(v))
		}
		n = i
	}
	if n < row.Min || n > row.Max {
		return 0, fmt.Errorf("%s is out of range (%s to %s)", row.Format(n), row.Format(row.Min), row.Format(row.Max))
	}
	return n, nil
}
