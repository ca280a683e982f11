package drain

// Configuration of a Drainer. The defaults a zero field stands for are the
// settings table's (configs.Defaults: seed 002 and the design's typing
// rules); only the drain's own internal pacing is named here.

import (
	"context"
	"log/slog"
	"time"

	"office/configs"
	"office/queue"
)

// The drain's internal pacing (not tunables: no rule depends on them).
const (
	// settleTries and settleRetry: recording a delivery is tried this often,
	// the wait doubling from settleRetry, before the message is held.
	settleTries = 3
	settleRetry = 100 * time.Millisecond
	// verifyPoll is how often the prompt row is read while checking a submit.
	verifyPoll = 100 * time.Millisecond
	// heldRecordPoll is how often the records of a message held typed,
	// not confirmed, are read again while it waits at its agent's head
	// (settleHeld): passes run on every Wake, and one read a second
	// bounds the reads while a late record is still seen within a tick.
	heldRecordPoll = time.Second
	// heldRecordWaits bounds those reads: a message held typed, not
	// confirmed, has its records read again for this many evidence_waits
	// (Config.EvidenceFor) after its typing began, no longer. A CLI under
	// load writes its record a few seconds late (the Gemini CLI's came
	// about two seconds after a one second evidence_wait), never minutes;
	// a record much later is likelier the person's own typing than this
	// one's, and each read runs on the drain's one decision goroutine.
	heldRecordWaits = 6
	// untakenWaits: a message whose attempt the screen saw submitted and
	// the CLI's proven records did not show within evidence_wait is typed
	// again no sooner than this many evidence_waits after that typing
	// began, and only if its records still do not show it then
	// (untaken.go): a record a few seconds late (as under load) then
	// settles it delivered instead of a second copy.
	untakenWaits = 2
	// abandonAfter is how long Run, once cancelled, waits for in-flight
	// submits before it abandons them (a Write that ignores its ctx).
	abandonAfter = time.Second
)

// Config is everything a Drainer needs. The zero value of every field but
// Store and Agents is valid: a zero (or negative) number means the default
// named on the field, which is the settings table's (configs.Defaults; the
// engine fills every field from the office file's settings).
type Config struct {
	// Store is the durable queue. Required: Run fails without it.
	Store Store
	// Agents finds the agents' terminals. Required: Run fails without it.
	Agents Agents
	// Clock is the source of time; nil means RealClock.
	Clock Clock
	// Preconditions checks a head message's precondition (gate 6); nil
	// passes only messages whose Precondition is "".
	Preconditions Preconditions
	// Notify is told about every message the drain gives up on. It is called
	// from the agents' submit goroutines and from Run's, possibly at the same
	// time, and should return quickly. nil ignores notices.
	Notify func(Notice)
	// Logger receives the drain's log; drops are logged at Warn. nil
	// discards it.
	Logger *slog.Logger
	// Evidence reads the agents' own records; nil: no agent keeps any, and
	// the screen check alone confirms a submit.
	Evidence Evidence
	// EvidenceFor is how long after a submit the drain waits for the
	// agent's records to show the text. 0 means 5 s (evidence_wait).
	EvidenceFor time.Duration
	// EchoWait bounds how long an Enter waits for its text to show on the
	// prompt row (SubmitProfile.EnterAfterEcho). 0 means 3 s (echo_wait).
	EchoWait time.Duration

	// Debounce is the fixed window from the first Wake to the pass it
	// triggers; later Wakes inside the window do not extend it. 0 means
	// 200 ms.
	Debounce time.Duration
	// Tick is the interval of the pass that runs regardless of Wake. 0 means
	// 3 s.
	Tick time.Duration
	// Cooldown is the least time between two attempts to one agent, counted
	// from the start of the earlier attempt (failed or not). 0 means 4.5 s.
	Cooldown time.Duration
	// VerifyFor is how long after an Enter the drain watches for the prompt
	// row to empty or the agent to turn busy. 0 means 2 s.
	VerifyFor time.Duration
	// RetryEnterAfter is the pause before the one extra Enter sent when a
	// submit was not confirmed and our text still sits on the prompt. 0 means
	// 500 ms.
	RetryEnterAfter time.Duration
	// MaxAttempts is how many failed attempts drop a message (the store
	// counts them). 0 means 3.
	MaxAttempts int
	// PasteThreshold is the size in bytes above which even a single line is
	// sent as a bracketed paste (when the agent has paste mode on). 0 means
	// 512.
	PasteThreshold int
	// WriteTimeout bounds each write into an agent's PTY (an agent that stops
	// reading its input makes writes block once about 18 KB are unread); a
	// write that times out is a failed attempt. 0 means 10 s.
	WriteTimeout time.Duration
	// EnterDelay is the gap between text and Enter when the agent's
	// SubmitProfile leaves it zero. 0 means 140 ms.
	EnterDelay time.Duration
	// ChannelBlocks is how many messages Handover hands over in one turn,
	// in a row (channel_blocks). 0 means 8.
	ChannelBlocks int
	// Channel says whether m may be handed over through a turn-end hook
	// at all (whose words it is: the person's own are typed,
	// docs/channels.md); nil takes every message Handover's gates pass.
	// Handover asks it twice: on the head before the attempt, and on the
	// message Store.Attempt stamped (an inbox delivery's batch leased), so
	// it must judge a message by what it carries then.
	Channel func(ctx context.Context, m queue.Message) (bool, error)
}

// withDefaults returns c with every zero field replaced by its default.
func (c Config) withDefaults() Config {
	dur := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	def := configs.Defaults()
	dur(&c.Debounce, def.Debounce)
	dur(&c.Tick, def.Tick)
	dur(&c.Cooldown, def.Cooldown)
	dur(&c.VerifyFor, def.SubmitCheck)
	dur(&c.RetryEnterAfter, def.EnterRetry)
	dur(&c.WriteTimeout, def.WriteTimeout)
	dur(&c.EnterDelay, def.EnterGap)
	dur(&c.EvidenceFor, def.EvidenceWait)
	dur(&c.EchoWait, def.EchoWait)
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = def.MaxAttempts
	}
	if c.ChannelBlocks <= 0 {
		c.ChannelBlocks = def.ChannelBlocks
	}
	if c.PasteThreshold <= 0 {
		c.PasteThreshold = def.PasteThreshold
	}
	if c.Clock == nil {
		c.Clock = RealClock{}
	}
	if c.Notify == nil {
		c.Notify = func(Notice) {}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}
