package drain

// The small interfaces drain depends on. The queue's *queue.Store satisfies
// Store as it is; pool's terminals satisfy Agent through a thin adapter; tests
// pass fakes.

import (
	"context"
	"time"

	"office/automation"
	"office/queue"
)

// Store is the durable queue as drain uses it: the same methods, with the same
// signatures and promises, as *queue.Store. An implementation must be safe for
// concurrent use: drain calls it from Run's goroutine and from the agents'
// submit goroutines at the same time.
type Store interface {
	// PendingAgents returns the agents with at least one queued message.
	PendingAgents(ctx context.Context) ([]string, error)
	// Head returns the agent's next message; ok is false when none is queued.
	Head(ctx context.Context, agent string) (m queue.Message, ok bool, err error)
	// Paused reports the agent's own pause flag and the floor-wide one.
	Paused(ctx context.Context, agent string) (agentPaused, floorPaused bool, err error)
	// Attempt stamps the message's last attempt; drain calls it before writing.
	Attempt(ctx context.Context, id int64) (queue.Message, error)
	// Writing records durably that typing is about to begin (after
	// Attempt, before the first byte): a stop before it proves nothing was
	// typed.
	Writing(ctx context.Context, id int64) error
	// Entering records durably that the Enter is about to be written: a
	// stop before it proves the text was never submitted.
	Entering(ctx context.Context, id int64) error
	// Unattempt records that a stamped attempt typed nothing after all.
	Unattempt(ctx context.Context, id int64) error
	// Hold marks a message interrupted: it may have reached the agent
	// unseen, so only the person may have it typed again.
	Hold(ctx context.Context, id int64, reason string) error
	// Delivered removes a message that was typed and submitted, noting how
	// the submit was confirmed.
	Delivered(ctx context.Context, id int64, note string) error
	// AttemptFailed counts a failed attempt; at maxAttempts the store drops
	// the message and dropped is true.
	AttemptFailed(ctx context.Context, id int64, errText string, maxAttempts int) (dropped bool, attempts int, err error)
	// Drop removes a message without delivering it, recording reason.
	Drop(ctx context.Context, id int64, reason string) error
	// SetHold records why the agent's head is held ("" clears it).
	SetHold(ctx context.Context, agent, reason string) error
}

// Agent is one live (or exited) agent terminal as drain sees it. An
// implementation must be safe for concurrent use: Run's goroutine reads it
// while the agent's submit goroutine writes to it.
type Agent interface {
	// Status returns the debounced status.
	Status() automation.Status
	// Block returns why automation may not type at now, strongest first:
	// exited > picker > draft > settling; BlockNone when nothing blocks.
	Block(now time.Time) automation.Block
	// Ready reports whether delivery may begin: the boot grace (35 s after
	// spawn) is over or the profile's readiness said ready.
	Ready(now time.Time) bool
	// BracketedPaste reports whether the CLI has turned bracketed paste
	// (mode ?2004) on.
	BracketedPaste() bool
	// Submit says how to type into this agent.
	Submit() SubmitProfile
	// Prompt returns the prompt row's current text; ok is false when the row
	// cannot be read (no evidence either way).
	Prompt() (text string, ok bool)
	// LastOutput is when the agent's terminal last produced output.
	LastOutput() time.Time
	// Write sends p to the PTY, serialized with every other write to it. nil
	// means every byte reached the PTY; an exited or closed PTY is an error,
	// never a silent success. Write should return early with an error once
	// ctx is done.
	Write(ctx context.Context, p []byte) error
	// MarkDraft tells the terminal that office typed text and did not submit
	// it: the text now counts as a draft (it blocks automation until the
	// screen or the person clears it).
	MarkDraft(text string)
}

// SubmitProfile says how to type into one kind of agent. The zero value is a
// verifiable CLI that takes 140 ms between text and Enter.
type SubmitProfile struct {
	// EnterDelay is the gap between the text and Enter; 0 means 140 ms.
	EnterDelay time.Duration
	// PasteEnterDelay is the gap between a bracketed paste and Enter; 0 means
	// EnterDelay (Gemini CLI needs about 700 ms, real-clis.md §5.4).
	PasteEnterDelay time.Duration
	// EnterRetries is how many more Enters the submit check may send, each
	// only while our text still sits on the prompt of an idle agent with no
	// block; 0 means 1.
	EnterRetries int
	// EnterAfterEcho: the Enter waits (up to 3 s) for the text to show on
	// the prompt row, then the gap once more: a CLI that reads the text and
	// the Enter in one batch takes the Enter as a newline (Gemini while it
	// resumes a conversation under load).
	EnterAfterEcho bool
	// LineByLine: multi-line text, when bracketed paste is off, is typed one
	// line at a time, each line followed by Enter (shell and custom agents).
	// Without it such text is held ("no paste mode"), never split.
	LineByLine bool
	// Unverifiable: the prompt row cannot be read (shell, custom), so the
	// submit is not checked and the message counts as delivered once both
	// writes succeed.
	Unverifiable bool
	// Cooldown is this agent's least time between two attempts; 0 means
	// Config.Cooldown.
	Cooldown time.Duration
}

// Evidence looks in an agent CLI's own records (hook payloads, transcripts,
// session files) for what it received. It must be safe for concurrent use.
type Evidence interface {
	// Keeps reports whether the agent's CLI keeps records office reads
	// (only then is a delivery's evidence looked for), and whether they were
	// seen to record this run of the agent (only then does a missing record
	// count against a delivery).
	Keeps(agent string) (keeps, proven bool)
	// Received reports whether the agent's records show text (as typed)
	// received at or after since, and which record shows it (the evidence
	// word: "hook", "transcript", "session record").
	Received(ctx context.Context, agent, text string, since time.Time) (source string, ok bool, err error)
}

// Agents finds agent terminals by name. It must be safe for concurrent use.
type Agents interface {
	// Agent returns the named agent's terminal; ok is false for a name with
	// no terminal (its messages stay queued, held "unknown agent").
	Agent(name string) (a Agent, ok bool)
}

// Notice tells the person about a message the drain gave up on.
type Notice struct {
	// Agent is the message's agent.
	Agent string
	// MsgID is the queue message's id.
	MsgID int64
	// Kind is NoticeDropped, NoticeTypedNotSubmitted or
	// NoticePreconditionDropped.
	Kind string
	// Text is the message's text (for NoticeTypedNotSubmitted, the sanitized
	// text that was typed and now sits on the prompt).
	Text string
}

// The kinds of Notice.
const (
	// NoticeDropped: the message was dropped after its last failed attempt,
	// or because nothing was left of it once sanitized.
	NoticeDropped = "dropped"
	// NoticeTypedNotSubmitted: the text was typed but the CLI did not take
	// the Enter; it was removed from the queue (retyping would duplicate it)
	// and sits on the prompt as a draft.
	NoticeTypedNotSubmitted = "typed_not_submitted"
	// NoticePreconditionDropped: the message's precondition no longer held,
	// so it was dropped without typing.
	NoticePreconditionDropped = "precondition_dropped"
	// NoticeHeld: the message was typed but the agent showed nothing at all
	// afterwards (it may not be reading its input); it is held as
	// interrupted until the person releases or removes it.
	NoticeHeld = "held"
	// NoticeSetAside: the office stopped while typing the message and no
	// evidence settled whether it arrived; it is set aside (it does not
	// hold the queue) until the person releases or removes it. Text is the
	// whole notice.
	NoticeSetAside = "set_aside"
)

// Preconditions checks a head message just before it would be typed (gate 6).
// It is called for every head message that passed gates 1 to 5, whatever its
// Precondition field says, so it may judge by Kind as well; false drops the
// message (Drop with "precondition failed: ..."), an error leaves it queued
// for the next pass. It runs on Run's goroutine. A nil Preconditions passes
// exactly the messages whose Precondition is "".
type Preconditions func(ctx context.Context, m queue.Message) (bool, error)
