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
//     milliseconds, past which the next rule decides: the drain's
//     evidenceAfterNoSubmit (1 s), the engine's replyWait (2 s for a reply
//     record before a notice quotes the screen), settleTries/settleRetry.
//   - StartWait (below): how long starting a server waits for it to
//     answer, read before any office file's settings are.
//   - Internal pacing and shutdown bounds no rule depends on: the drain's
//     abandonAfter, the server's timings (package server: helloTimeout,
//     frameInterval, writeStall, stateTick, quietTick, byeWait, ...,
//     OpTimeout),
//     callTimeout, scheduleTick (how often compaction schedules are
//     checked), ClashCheckWait, DefaultWatchEvery (the store watch), the
//     store's BusyTimeout and LockTimeout.
//   - The cluster's liveness timings (cluster.RosterEvery, Unreachable,
//     OutboxEvery, FetchWait, OpTimeout, AckWait, ReconnectWait,
//     RouteRetry; the engine's RemoteApproveWait): every host of a floor
//     must agree on them (one host's Unreachable counts the others'
//     heartbeats), so they are the build's, not one office file's; each
//     has its reason where it is declared, and their relations a test.
//   - Size bounds of what is read from outside (the office file's
//     MaxFileBytes and MaxAgents, beside the loader in config.go; the
//     pool's filter limits, MaxDim, MaxLineBytes,
//     records.MaxRead/MaxText/MaxFiles, queue.MaxBody,
//     inbox.PreviewThreshold/PreviewBytes, ResultLines/ResultBytes, the
//     turn ledger's and the turn machine's bounds): protection, not policy.
//   - records.Skew: the granularity of a CLI's own timestamps, a fact.
//   - The web server's bounds that protect parsing or the server itself,
//     not a person's use of it (each beside its code in package web): a
//     message a page sends on its WebSocket (maxWSMessage, 4 KiB: a watch
//     request names one agent; the read limit bounds the frame before its
//     JSON is parsed), the request headers (64 KiB and 10 s, read by
//     net/http before any handler runs), web.json as read (storeMax), the
//     pairing exchange (MaxPending waiting pairings, PairTTL, and
//     pairAttemptsPerWindow for the whole server: tokens are 192 bits, the
//     rate only keeps a guesser from costing the disk), a session's own
//     WebSockets (4, a few tabs), the 10 s window web_calls and web_reads
//     count in, and internal pacing (framePace, writeTimeout, callTimeout,
//     maxLogged, maxEvents, maxEventText).
//
// The web_* rows are the web server's policy: how many connections,
// WebSockets and sessions, how long a session lives, how fast a session
// may call and read, how many bytes of keys or of a message one request
// carries, how long its body may take, and how long a write of keys waits.
// `office web` reads them from the office file it runs (the [web] table's
// server from the engine's), through web.LimitsOf; web's
// TestSettingsReachWeb checks every web_* row reaches its field there and
// that a small value is enforced.

import (
	"fmt"
	"strconv"
	"time"

	"office/automation"
)

// StartWait bounds how long starting a server waits for it to answer: `office
// start`, the UI starting one, a store-only command waiting for a starting
// server to listen, and the UI starting it again after it went away. A server
// answers only once it has started its agents (their PTYs and programs) and
// opened its store, which on a loaded machine with a large team takes tens
// of seconds; past this bound something is wrong and the error points at the
// server's log. It is no row: it is read before an office file's settings
// are (start validates the file, the UI starts servers of other files), and
// one wait for every way of starting keeps them from disagreeing (they were
// 60 s and 90 s; the longer one is kept, so no start that answered in time
// before fails now).
const StartWait = 90 * time.Second

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
	EchoWait       time.Duration // echo_wait
	ChannelBlocks  int           // channel_blocks

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
	MailTitleBytes       int           // mail_title_bytes
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
	NotifyGap         time.Duration // notify_gap

	// Usage limits (the engine's account holds, docs/limits.md).
	LimitRetry   time.Duration // limit_retry
	LimitMargin  time.Duration // limit_margin
	LimitStagger time.Duration // limit_stagger

	// Panes.
	History int // history (per agent)

	// The web server (web.Limits, docs/web.md).
	WebConnections  int           // web_connections
	WebSockets      int           // web_sockets
	WebSessions     int           // web_sessions
	WebSessionTTL   time.Duration // web_session_ttl
	WebCalls        int           // web_calls
	WebReads        int           // web_reads
	WebKeysBytes    int           // web_keys_bytes
	WebMessageBytes int           // web_message_bytes
	WebBodyTimeout  time.Duration // web_body_timeout
	WebKeysTimeout  time.Duration // web_keys_timeout
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
	durRow("echo_wait", 3*sec, 100*ms, minute, "drain.Config.EchoWait", func(s *Settings) *time.Duration { return &s.EchoWait },
		"for a profile whose Enter waits for the echo (Gemini: it read text and Enter in one batch while resuming under load and took the Enter as a newline), how long the Enter waits for the text to show on the prompt row before it goes anyway and the submit check decides; a CLI echoes within milliseconds, so this bounds a delay on a loaded machine and never decides a delivery"),

	numRow("channel_blocks", KindCount, 8, 1, 8, "drain.Config.ChannelBlocks", func(s *Settings) *int { return &s.ChannelBlocks },
		"Claude Code 2.1.332 ends a turn on the 9th Stop-hook block in a row (docs/channels.md: the 9th reaches the model only with the next prompt), so at most this many messages are handed over through the turn-end hook in one turn (one per block), and the rest are typed (delivery = \"type\" hands none over)"),

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
	numRow("mail_title_bytes", KindBytes, 1<<10, 16, 64<<10, "inbox.Options.MailTitleBytes", func(s *Settings) *int { return &s.MailTitleBytes },
		"the most bytes a mail's title may hold (after trimming; `office mail send --title` past it is refused, exit 2): the title is typed twice into the receiver's prompt and shown in every list, so length belongs in the text"),
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
	durRow("notify_gap", 30*sec, sec, day, "engine notifications", func(s *Settings) *time.Duration { return &s.NotifyGap },
		"at most one notification per agent this often ([notify], docs/needs.md); the ones in between are folded into the next"),

	// Usage limits.
	durRow("limit_retry", automation.LimitRetry, minute, day, "engine limit hold", func(s *Settings) *time.Duration { return &s.LimitRetry },
		"how long an account is held when its CLI says it hit a usage limit but prints no reset time office can read, and the most a refused resume backs off to"),
	durRow("limit_margin", automation.LimitMargin, sec, hr, "engine limit hold", func(s *Settings) *time.Duration { return &s.LimitMargin },
		"added to the reset time a CLI prints before its account is resumed: the printed time can precede the server's real reset by minutes; a resume the CLI still refuses waits twice as long each time, from this, up to limit_retry"),
	durRow("limit_stagger", automation.LimitStagger, 10*ms, 10*minute, "engine limit hold", func(s *Settings) *time.Duration { return &s.LimitStagger },
		"the gap between resuming two agents of one account, so they do not all hit the fresh quota in the same second"),

	// Panes.
	perAgent(numRow("history", KindCount, 10000, 1, 1000000, "configs.Agent.History, pool.History", func(s *Settings) *int { return &s.History },
		"lines of pane history kept per agent (`office history`), in memory and in its file; bounded (at most pool.MaxHistory), as everything from outside is")),

	// The web server (`office web` and [web]; docs/web.md).
	numRow("web_connections", KindCount, 64, 2, 4096, "web.Limits.Connections", func(s *Settings) *int { return &s.WebConnections },
		"connections the web server serves at once; more wait to be accepted: keep it above web_sockets, as a page holds its WebSocket and makes its calls beside it"),
	numRow("web_sockets", KindCount, 16, 1, 1024, "web.Limits.Sockets", func(s *Settings) *int { return &s.WebSockets },
		"WebSockets open at once, every session together (a page holds one; a few devices); more are refused (429: close a page); one session holds at most 4 of them"),
	numRow("web_sessions", KindCount, 32, 1, 1000, "web.Limits.Sessions, web.Store.MaxSessions", func(s *Settings) *int { return &s.WebSessions },
		"paired browsers' sessions live at once: pairing one more is refused (revoke some with `office web revoke`); a person pairs a few, more is a leak"),
	durRow("web_session_ttl", 7*day, hr, 365*day, "web.Limits.SessionTTL, web.Store.SessionTTL", func(s *Settings) *time.Duration { return &s.WebSessionTTL },
		"a paired browser's session expires this long after it paired (then pair again); it applies to the sessions paired while it is set"),
	numRow("web_calls", KindCount, 30, 1, 10000, "web.Limits.Calls", func(s *Settings) *int { return &s.WebCalls },
		"calls (POSTs: send, approve, keys) of one session per 10 s, then 429: a person taps, a loop does not"),
	numRow("web_reads", KindCount, 120, 1, 100000, "web.Limits.Reads", func(s *Settings) *int { return &s.WebReads },
		"reads (GETs: the WebSocket, the queue and mail lists) of one session per 10 s, a window apart from the calls', then 429"),
	numRow("web_keys_bytes", KindBytes, 4<<10, 1, 64<<10, "web.Limits.KeysBytes", func(s *Settings) *int { return &s.WebKeysBytes },
		"the most bytes of keys one /api/input types: a person's keys; a bigger paste is refused whole (413): send a long text as a message"),
	numRow("web_message_bytes", KindBytes, 1<<20, 1, 1<<20, "web.Limits.MessageBytes", func(s *Settings) *int { return &s.WebMessageBytes },
		"the most bytes of a message or a mail reply a page sends (at most queue.MaxBody, which the queue takes); its request body is bounded to that, JSON-escaped"),
	durRow("web_body_timeout", 10*sec, sec, 5*minute, "web.Limits.BodyTimeout", func(s *Settings) *time.Duration { return &s.WebBodyTimeout },
		"the time a request body has to arrive (a read deadline): a body held open for ever would hold its connection; a slow phone link sending a long message may need more"),
	durRow("web_keys_timeout", 5*sec, 100*ms, minute, "web.Limits.KeysTimeout (client.Options.SendTimeout of `office web keys`)", func(s *Settings) *time.Duration { return &s.WebKeysTimeout },
		"a write of keys the office server does not take within this (an agent that reads nothing holds the keys connection) fails, and the keys connection is dialled again"),
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
