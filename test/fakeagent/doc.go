// Command fakeagent is a deterministic stand-in for an interactive coding-agent
// CLI (modelled on Claude Code 2.1.x). It is
// meant to run in a PTY under office's harness and tests. It puts the terminal
// in raw mode, draws an inline, bottom-anchored screen with absolute cursor
// moves, and appends one JSON object per line to a log file, so tests can check
// exactly what was submitted.
//
// # Screen (bottom of the terminal, redrawn row by row)
//
//	fakeagent (test double for Claude Code-style agent TUIs)   <- transcript (older lines drop off the top)
//
//	❯ hello                                                    <- past prompt (blank line after each entry)
//
//	● reply: hello                                             <- reply (first 40 runes of the prompt)
//
//	✻ Working…                                                 <- only while busy, followed by a blank line
//
//	  ❯ queued text                                            <- one per queued message (more lines indent 4)
//	──────────────────────────────────────────────  <- full-width U+2500 rule
//	❯ input text█                                   <- "❯" U+276F, U+00A0, text, inverse-video caret cell
//	  continuation row                              <- further input rows (newlines / wrapping) indent 2
//	──────────────────────────────────────────────
//	  ? for shortcuts                               <- "  esc to interrupt" while busy
//
// With an empty input and queued messages the input row shows the placeholder
// "Press up to edit queued messages" (first letter in inverse video).
// Transient right-aligned footer hints: "Esc again to clear" and
// "Press Ctrl-C again to exit". Typing "/..." (no whitespace) that prefixes a
// known command shows a slash menu in place of the footer row; Esc closes it.
// Enter never completes from the menu: the typed text is submitted as is.
// The real cursor is hidden (?25l) and parked on the caret cell. After every
// wide (2-column) rune the renderer emits CHA (ESC[nG) to the true column,
// like Claude, so a real terminal is exact and vt10x shows gaps.
//
// Window title (OSC 0): none during --startup; "✳ fakeagent" when idle or a
// dialog is open; "⠂ fakeagent" / "⠐ fakeagent" alternating every 100 ms
// while busy.
//
// # Flags
//
// Parsed leniently by hand: unknown flags and positional arguments are ignored
// (all arguments are recorded in the start log line). Flags may be written
// -flag or --flag, with "=value" or the value as the next argument. Durations
// are Go durations ("250ms", "1s"); a bare integer means milliseconds. A bad
// value keeps the default and logs a "warn" event. Extra flags can be given in
// the environment variable FAKEAGENT_OPTS (whitespace-separated, parsed before
// the command line).
//
//	--log FILE             JSON-lines log, opened O_APPEND|O_CREATE (default: $FAKEAGENT_LOG, else no log)
//	--busy DUR             length of a prompt turn (default 1s)
//	--command-busy DUR     length of a slash-command turn such as /compact (default 200ms)
//	--exit-code N          exit status for /exit and --exit-after (default 0)
//	--exit-after N         exit right after the Nth "reply" event (default 0 = never)
//	--startup DUR          show only "fakeagent starting…" for DUR before the prompt (default 0)
//	--permission           ask "Do you want to proceed?" before every prompt turn
//	--fast-return DUR      Codex/Gemini-style Enter handling (default 0 = off, Claude-like)
//	--no-paste             do not enable bracketed paste (?2004h)
//	--swallow-enter N      ignore the first N Enters that would submit (the text
//	                       stays; logs {"event":"swallowed",...}), like a CLI
//	                       that is not really ready yet
//	--swallow-after N      --swallow-enter swallows only once N prompts were
//	                       submitted (a CLI that stops taking Enter later)
//	--stop-reading-after N after N replies never read stdin again (a hung CLI:
//	                       writes into its PTY block once the buffer fills;
//	                       logs {"event":"stopped-reading"})
//	--hook-evidence        run `$OFFICE_BIN hook UserPromptSubmit` (payload with
//	                       "prompt") after each submitted prompt and `$OFFICE_BIN
//	                       hook Stop` (with "last_assistant_message" = "reply: ...")
//	                       after each reply, Claude-shaped JSON on stdin, as
//	                       Claude Code's hooks do (logs {"event":"hook",...}); a
//	                       Stop answered {"decision":"block","reason":R} goes on
//	                       with R as --stop-hook says;
//	                       without $OFFICE_BIN the record `office hook` would
//	                       keep is appended to $OFFICE_STATE/agents/$OFFICE_AGENT/hooks.jsonl
//	--hook-delay DUR       with --hook-evidence, write each prompt's record DUR
//	                       after its submit, the hooks kept in order (a CLI that
//	                       records late under load; the screen shows the turn)
//	--hook-gate FILE       with --hook-evidence, write each prompt's record only
//	                       once FILE exists (at most a minute later): a test
//	                       releases a late record when it is ready for it
//	--first-run KIND       before the prompt, show Claude Code 2.1.332's first-run
//	                       offer KIND: "fullscreen" ("Try the new fullscreen
//	                       renderer?", ❯ 1. Yes, try it / 2. Not now, "Enter to
//	                       confirm · Esc to cancel") or "automode" ("Make auto mode
//	                       your default permission mode?", unnumbered, "↑/↓ to
//	                       choose") or "novel" (a numbered dialog no profile
//	                       knows by its text); Enter picks the highlighted option (Yes at
//	                       first), a digit a numbered one, Esc declines (logs
//	                       {"event":"first-run","offer":K,"answer":A}); "ready"
//	                       follows the answer
//	--settings FILE        the file a "yes" to the offer overwrites (the
//	                       person's own settings, as Claude's ~/.claude/settings.json)
//	--stop-hook            at a prompt turn's end run the Stop hooks of the
//	                       --settings file (office's, as Claude Code 2.1.332
//	                       runs them: sh -c COMMAND, Claude's payload with
//	                       prompt_id and stop_hook_active) instead of
//	                       --hook-evidence's Stop; a {"decision":"block",
//	                       "reason":R} answer continues the same turn with R
//	                       (no UserPromptSubmit; Claude's isMeta transcript
//	                       line under $HOME/.claude/projects; logs
//	                       {"event":"handed","text":R}); the 9th block in a
//	                       row ends the turn with Claude's notice (logs
//	                       {"event":"stop-hook-cap"}). R is recorded as given
//	                       (Claude escapes a "<" opening a system-reminder tag)
//
// # Log lines
//
// Every line is one JSON object written with a single write call. Every line
// has "event" first and "time" (RFC3339Nano, UTC); other fields as listed:
//
//	{"event":"start","cols":C,"rows":R,"pid":P,"args":[...all argv[1:]...],"time":T}
//	{"event":"warn","text":"bad value for --busy: ...","time":T}
//	{"event":"ready","time":T}                                  prompt box first drawn
//	{"event":"prompt","text":"...","time":T,"queued":false}     a prompt was submitted (queued:true when it came from the queue)
//	{"event":"queued","text":"...","time":T}                    Enter while busy queued this text
//	{"event":"command","text":"/model","time":T}                any submitted line starting with "/"
//	{"event":"picker","how":"enter"|"esc","choice":N,"time":T}  /model picker closed; N is the 1-based highlighted option
//	{"event":"permission","answer":"yes"|"no"|"esc","time":T}
//	{"event":"reply","text":"...","time":T}                     a prompt turn completed; text = first 40 runes of the prompt (newlines as spaces)
//	{"event":"interrupt","restored":"...","time":T}             Esc while busy; restored = text put back into the input box
//	{"event":"recall","text":"...","time":T}                    Up/Down history recall; text = what the input box now holds
//	{"event":"dropped","key":"enter","reason":"startup","time":T}
//	{"event":"resize","cols":C,"rows":R,"time":T}               after SIGWINCH
//	{"event":"exit","code":N,"reason":"/exit"|"exit-after"|"ctrl-c"|"stdin-closed"|"signal","signal":"SIGTERM","time":T}
//
// "signal" is present only for reason "signal". Signals (SIGHUP, SIGTERM,
// SIGINT) exit with status 128+signo after restoring the terminal. When stdin
// hits EOF/EIO (PTY master closed) the program waits up to 200 ms for the
// accompanying SIGHUP and reports that (code 129); otherwise it exits 0 with
// reason "stdin-closed". /exit and --exit-after use --exit-code; a double
// Ctrl-C exits 0.
//
// # Keys
//
// Input is parsed by a byte state machine; escape sequences, bracketed-paste
// markers and UTF-8 may be split across reads. A lone ESC is recognised once
// 50 ms pass with no following byte, or at once when the next byte cannot
// continue a sequence (anything but '[' or 'O').
//
//   - printable runes append; Backspace (0x7f, 0x08) deletes one rune; Ctrl-U clears.
//   - ESC[200~ … ESC[201~ is literal text: CR, LF and CRLF become one newline each,
//     other control bytes are dropped, nothing is submitted.
//   - ESC CR / ESC LF (Alt-Enter) inserts a newline.
//   - Enter (CR or LF) submits the trimmed input; empty input does nothing.
//     With --fast-return D > 0 an Enter that follows printable text (or a paste)
//     in the same read, or comes less than D after the last printable byte or
//     paste, inserts a newline instead.
//   - Arrow keys and other sequences are consumed. Up/Down move pickers; at
//     the prompt (idle, no menu) they are history recall like Claude's and
//     Codex's: Up with an empty input puts the previous prompt into the input
//     box (logged "recall"), again goes further back, Down comes forward
//     (past the newest: empty). Typing ends the browsing.
//   - Esc: closes a dialog (picker: how "esc"; permission: answer "esc"), else
//     closes the slash menu, else interrupts a busy turn, else with text in the
//     input shows "Esc again to clear" (never clears).
//   - Ctrl-C: clears the input if it has text; otherwise a second Ctrl-C within
//     1 s exits with status 0.
//
// # Behaviour
//
//   - Idle + Enter: "/..." is a command (below). Anything else logs "prompt",
//     then (with --permission) shows the permission dialog, then a busy turn of
//     --busy, then "● reply: <first 40 runes>" and a "reply" event.
//   - Busy + Enter: the text is queued (shown as "  ❯ text", logged "queued").
//     When the turn ends the queue is drained in order, one submit at a time,
//     each logged then (prompt with "queued":true).
//   - Esc while busy interrupts: the interrupted prompt, the queued messages and
//     the current draft are put back into the input box joined by newlines (as
//     Claude does) and nothing queued is sent.
//   - "/model" exactly opens the picker (Select model; 1. Default (recommended),
//     2. Opus, 3. Sonnet; footer "Enter to confirm · Esc to cancel"); no prompt is
//     logged. "/model ARG" prints "  ⎿ Set model to ARG". "/exit" exits with
//     --exit-code. Other "/..." run a busy turn of --command-busy.
//   - Permission dialog: "1"/"y" yes, "2"/"n" no, Up/Down move, Enter picks the
//     highlighted answer (initially Yes), Esc cancels. Yes runs the turn; no/esc
//     end it without a reply.
//   - While a dialog is open the prompt box is hidden and typed text is ignored.
//   - During --startup typed text and edits are applied to the (hidden) input,
//     but an Enter is LOST (logged as "dropped"), like real CLIs whose prompt
//     has not mounted yet.
package main
