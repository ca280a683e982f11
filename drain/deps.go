package drain

// The small interfaces drain depends on, and the typed words of its protocol
// with the store (drop reasons, notice kinds; hold reasons are in hold.go).
// The inbox layer's store (inbox.DrainStore, over *queue.Store) satisfies
// Store; pool's terminals satisfy Agent through a thin adapter; tests pass
// fakes.

import (
	"context"
	"time"

	"office/automation"
	"office/queue"
)

// Store is the durable queue as drain uses it: the methods of *queue.Store
// with the same promises, except that what the drain decides is said by an
// explicit method or a typed reason (the layer above the queue acts on it:
// an inbox delivery's items are delivered when its text was typed and not
// submitted, put back when it was dropped). An implementation must be safe
// for concurrent use: drain calls it from Run's goroutine and from the
// agents' submit goroutines at the same time.
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
	// Handing records durably that a message Attempt stamped is handed over
	// through its CLI's turn-end hook by channel, instead of typed
	// (queue.Store.Handing: its "writing begins" and "Enter" at once).
	Handing(ctx context.Context, id int64, channel string) error
	// Unattempt records that a stamped attempt typed nothing after all (no
	// byte was written; the message stays queued as it was).
	Unattempt(ctx context.Context, id int64, why string) error
	// Hold marks a message interrupted after it was typed: it may have
	// reached the agent unseen, so only the person may have it typed again.
	// note says why, for the event log.
	Hold(ctx context.Context, id int64, note string) error
	// SetAsideHeld sets aside m, a message Hold held, as read at the head,
	// once the agent's process it was typed into has ended: it no longer
	// holds the queue, and waits for the person. Only if it is still held
	// from that same typing, decided in one write; else (removed, released
	// meanwhile) nothing changes and the error is queue.ErrNotFound
	// (queue.Store.SetAsideHeld).
	SetAsideHeld(ctx context.Context, m queue.Message, evidence string) error
	// SetAside sets aside message id, in flight: it was typed and no
	// evidence settles whether it arrived, so it waits for the person and
	// does not hold the queue (queue.Store.SetAside). ErrNotFound: it is no
	// longer in flight (the person removed it meanwhile).
	SetAside(ctx context.Context, id int64, evidence string) error
	// TypedNotSubmitted removes a message whose text reached the agent's
	// prompt but was not submitted by office: it sits there as a draft and
	// is never typed again (recorded with reason DropTypedNotSubmitted).
	TypedNotSubmitted(ctx context.Context, id int64) error
	// Delivered removes a message that was typed and submitted, noting how
	// the submit was confirmed, and whether (state: queue.StateConfirmed
	// or StateUnconfirmed).
	Delivered(ctx context.Context, id int64, note, state string) error
	// AttemptFailed counts a failed attempt; at maxAttempts the store drops
	// the message and dropped is true.
	AttemptFailed(ctx context.Context, id int64, errText string, maxAttempts int) (dropped bool, attempts int, err error)
	// Drop removes a message without typing any of it, recording reason.
	Drop(ctx context.Context, id int64, reason DropReason) error
	// SetHold records why the agent's head is held (HoldNone clears it).
	SetHold(ctx context.Context, agent string, reason Hold) error
}

// DropReason is why the drain removed a message, as the store records it.
type DropReason string

// The drop reasons (DropPrecondition makes the one with a name in it).
const (
	// DropNothingLeft: nothing was left of the text once sanitized.
	DropNothingLeft DropReason = "nothing left to type after sanitizing"
	// DropTypedNotSubmitted: the text reached the prompt but was not
	// submitted (Store.TypedNotSubmitted records it).
	DropTypedNotSubmitted DropReason = "typed, not submitted"
	// dropPreconditionPrefix starts the reason of a failed precondition.
	dropPreconditionPrefix = "precondition failed: "
)

// DropPrecondition is the drop reason of a message whose precondition
// (named by name) no longer holds.
func DropPrecondition(name string) DropReason {
	return DropReason(dropPreconditionPrefix + name)
}

// Agent is one live (or exited) agent terminal as drain sees it. An
// implementation must be safe for concurrent use: Run's goroutine reads it
// while the agent's submit goroutine writes to it.
type Agent interface {
	// Status returns the debounced status. It is starting until the judge
	// opens the boot gate (the profile's readiness, or the boot grace over):
	// an agent is never idle before delivery may begin.
	Status() automation.Status
	// Block returns why automation may not type at now, strongest first:
	// exited > picker > draft > settling; BlockNone when nothing blocks.
	Block(now time.Time) automation.Block
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
	// Spawned is when the agent's current process was started (zero for
	// one that never started).
	Spawned() time.Time
	// Text is the screen's text, rows joined by newlines (an approval's
	// dialog is recognised on it: DialogFingerprint).
	Text() string
	// Write sends p to the PTY, serialized with every other write to it. nil
	// means every byte reached the PTY; an exited or closed PTY is an error,
	// never a silent success. Write should return early with an error once
	// ctx is done.
	Write(ctx context.Context, p []byte) error
	// PressEnter writes Enter ("\r") alone, as Write does, and once it
	// reached the PTY records the submit with its cause: the drain passes
	// automation.DeliveryEnter with the message it submits, so the turn the
	// Enter starts (or joins) is known to be that delivery's.
	PressEnter(ctx context.Context, cause automation.TurnCause) error
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
	// EnterDelay (Gemini CLI needs about 700 ms after a paste).
	PasteEnterDelay time.Duration
	// EnterRetries is how many more Enters the submit check may send, each
	// only while our text still sits on the prompt of an idle agent with no
	// block; 0 means 1.
	EnterRetries int
	// EnterAfterEcho: the Enter waits (up to Config.EchoWait, the echo_wait
	// setting) for the text to show on the prompt row, then the gap once
	// more: a CLI that reads the text and the Enter in one batch takes the
	// Enter as a newline (Gemini while it resumes a conversation under load).
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
	// KnownPrompt: the profile defines the CLI's prompt (claude, codex,
	// gemini): nothing is typed unless the screen shows it, its row found
	// and empty, and no dialog (the screen gate, screen.go).
	KnownPrompt bool
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
	// Handed reports whether the agent's records show text (as handed
	// over) handed over by its CLI's turn-end hook at or after since
	// (records.Handed: never a typed prompt), and which record shows it.
	Handed(ctx context.Context, agent, text string, since time.Time) (source string, ok bool, err error)
	// Late reports the first prompt the agent's records show recorded at
	// or after since and before until (zero: no bound), and whether it is
	// text (as typed), equal with white space collapsed (records.First): of
	// a message held typed, not confirmed, only that record can be the
	// typing's late record.
	Late(ctx context.Context, agent, text string, since, until time.Time) (LateRecord, error)
}

// LateRecord is what Evidence.Late found.
type LateRecord struct {
	// Any: a prompt is recorded in the span.
	Any bool
	// Same: the first one is the text.
	Same bool
	// Source is the evidence word of its record ("hook", ...).
	Source string
	// At is when it was recorded (zero: undated).
	At time.Time
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
	// Kind says what became of the message.
	Kind NoticeKind
	// Text is the message's text (for NoticeTypedNotSubmitted, the sanitized
	// text that was typed and now sits on the prompt; for NoticeHeld and
	// NoticeSetAside, the whole notice for the person).
	Text string
}

// NoticeKind says what a Notice reports.
type NoticeKind string

// The kinds of Notice.
const (
	// NoticeDropped: the message was dropped after its last failed attempt,
	// or because nothing was left of it once sanitized.
	NoticeDropped NoticeKind = "dropped"
	// NoticeTypedNotSubmitted: the text was typed but the CLI did not take
	// the Enter; it was removed from the queue (retyping would duplicate it)
	// and sits on the prompt as a draft.
	NoticeTypedNotSubmitted NoticeKind = "typed_not_submitted"
	// NoticePreconditionDropped: the message's precondition no longer held,
	// so it was dropped without typing.
	NoticePreconditionDropped NoticeKind = "precondition_dropped"
	// NoticeHeld: the message was typed but the agent showed nothing at all
	// afterwards (it may not be reading its input); it is held as
	// interrupted, and holds its agent's queue, until the person releases
	// or removes it. Text is the whole notice.
	NoticeHeld NoticeKind = "held"
	// NoticeSetAside: the office stopped while typing the message and no
	// evidence settled whether it arrived, the agent's process exited during
	// its submit check and no evidence settled it (docs/evidence.md), or a
	// message held (NoticeHeld) outlived the agent's process it was typed
	// into (a restart); it is set
	// aside (it does not hold the queue) until the person releases or
	// removes it. Text is the whole notice.
	NoticeSetAside NoticeKind = "set_aside"
)

// Preconditions checks a head message just before it would be typed (gate 6).
// It is called for every head message that passed gates 1 to 5, whatever its
// Precondition field says, so it may judge by Kind as well; false drops the
// message (Drop with DropPrecondition), an error leaves it queued
// for the next pass. It runs on Run's goroutine. A nil Preconditions passes
// exactly the messages whose Precondition is "".
type Preconditions func(ctx context.Context, m queue.Message) (bool, error)
