package wire

// words.go is office's vocabulary across the boundary: the words a status,
// a hold, a queued message's label, a message's fate and a mail's state
// travel as. Each word is a code (a client compares with these constants,
// never with a literal of its own and never by reading prose) and is also
// the label a person reads: the two are one string, so what protocol 1
// sends stays as it was. The producers (automation, drain, the engine's
// queue labels, inbox) are held to these lists by engine's tests.

// An agent's status (State's and AgentStatus's "status", EventStatus).
const (
	StatusStarting = "starting"
	StatusIdle     = "idle"
	StatusBusy     = "busy"
	StatusWaiting  = "waiting"
	StatusExited   = "exited"
	StatusLimited  = "usage limit"
	// StatusUnreachable is a remote agent's status while its host's server
	// cannot be reached (a client's own word, remote.Multi's: no server
	// sends it).
	StatusUnreachable = "unreachable"
)

// Statuses is every status a server sends.
var Statuses = []string{StatusStarting, StatusIdle, StatusBusy, StatusWaiting, StatusExited, StatusLimited}

// Why an agent's next message is not typed now (State's "hold",
// EventHold): the drain's hold reasons.
const (
	HoldBusy         = "busy"
	HoldWaiting      = "waiting"
	HoldExited       = "exited"
	HoldPicker       = "picker open"
	HoldDraft        = "your draft"
	HoldSettling     = "settling"
	HoldPaused       = "paused"
	HoldBooting      = "booting"
	HoldCoolingDown  = "cooling down"
	HoldNoPasteMode  = "no paste mode"
	HoldUnknownAgent = "unknown agent"
	HoldInterrupted  = "interrupted"
)

// Holds is every hold reason.
var Holds = []string{HoldBusy, HoldWaiting, HoldExited, HoldPicker, HoldDraft, HoldSettling, HoldPaused, HoldBooting,
	HoldCoolingDown, HoldNoPasteMode, HoldUnknownAgent, HoldInterrupted}

// A queued message's label (QueuedMessage.Held, `office queue`) when it
// is not its head's hold reason.
const (
	QueuedSetAside   = "set aside"
	QueuedNotRunning = "office not running"
	QueuedDelivering = "delivering"
	QueuedNext       = "next"
	QueuedBehind     = "queued"
)

// A message's fate besides its delivery states (MessageFate.State).
const (
	FateQueued  = "queued"
	FateRemoved = "removed"
	FateUnknown = "unknown"
)

// A mail's state (EventMail's "state").
const (
	MailQueued    = "queued"
	MailClaimed   = "claimed"
	MailWorking   = "working"
	MailDone      = "done"
	MailFailed    = "failed"
	MailCancelled = "cancelled"
)

// MailStates is every mail state.
var MailStates = []string{MailQueued, MailClaimed, MailWorking, MailDone, MailFailed, MailCancelled}

// The channel a delivery went by (HookResult.Channel, Event.Channel,
// Explanation.Channel): typed into the prompt, or handed over by the CLI's
// turn-end hook (docs/channels.md).
const (
	ChannelTyped    = "typed"
	ChannelStopHook = "stop hook"
)

// Channels is every channel.
var Channels = []string{ChannelTyped, ChannelStopHook}
