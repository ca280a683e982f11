package wire

// messages.go is every message of the protocol. Each is one JSON object with
// its type in "t"; docs/protocol.md describes them for other implementations.

import (
	"encoding/json"
	"fmt"
	"time"
)

// Message types, the "t" field of every frame.
const (
	// Client to server.
	THello = "hello"
	TInput = "input"
	TView  = "view"
	TCall  = "call"
	// TSubscribe names the agents whose screens the client draws.
	TSubscribe = "subscribe"
	// Server to client.
	TWelcome = "welcome"
	TRefused = "refused"
	TRoster  = "roster"
	TState   = "state"
	TScreen  = "screen"
	TEvent   = "event"
	TReply   = "reply"
	TBye     = "bye"
)

// Hello is the client's first frame. Its form (t, version, client) stays the
// same in every protocol version, so any server can refuse any client
// clearly.
type Hello struct {
	T string `json:"t"`
	// Version is the protocol version the client speaks.
	Version int `json:"version"`
	// Client names the client program, for the server's log ("office attach").
	Client string `json:"client,omitempty"`
	// Screens asks for the agents' screens (a full snapshot of each, then
	// changes). A client that only wants events or calls leaves it false.
	// With Subscribe as well, only the screens of the agents its latest
	// Subscribe names are sent (none before its first): the others'
	// roster and state still come, their screens do not.
	Screens   bool `json:"screens,omitempty"`
	Subscribe bool `json:"subscribe,omitempty"`
	// Events asks for the event stream; Agents limits it to these agents
	// (empty: all), Since resumes it after an event's Seq (0: from now);
	// FromStart replays every stored event first (Since is then ignored).
	Events    bool     `json:"events,omitempty"`
	Agents    []string `json:"agents,omitempty"`
	Since     int64    `json:"since,omitempty"`
	FromStart bool     `json:"from_start,omitempty"`
}

// NewHello returns a Hello of this Version.
func NewHello(client string) Hello { return Hello{T: THello, Version: Version, Client: client} }

// Welcome accepts a client.
type Welcome struct {
	T       string `json:"t"`
	Version int    `json:"version"`
	// Pid is the server's process id.
	Pid int `json:"pid"`
	// State is the server's state directory; Config the office file it runs
	// ("" for the embedded default).
	State  string `json:"state"`
	Config string `json:"config,omitempty"`
	// Prefix is the UI prefix key that office file sets, as written there
	// ("C-a"; "" when it sets none), so a UI need not read the file again.
	Prefix string `json:"prefix,omitempty"`
	// Client is this connection's id on the server (its log names it).
	Client int64 `json:"client"`
	// Seq is the last event of the store's log when the client attached;
	// a client that reconnects passes the last Seq it saw as Hello.Since.
	Seq int64 `json:"seq"`
}

// ReasonStopping is the reason of the Bye every client gets when the office
// stops, and of the Refused a client gets that connects meanwhile.
const ReasonStopping = "the office is stopping"

// Refused rejects a client; the server closes the connection after it.
type Refused struct {
	T string `json:"t"`
	// Version is the server's protocol version.
	Version int `json:"version"`
	// Reason is for the person, complete: what is wrong and what to do.
	Reason string `json:"reason"`
}

// Error makes a Refused an error.
func (r *Refused) Error() string { return "the office server refused the connection: " + r.Reason }

// VersionMismatch is the Refused reason for a client of another version.
func VersionMismatch(server, client int) string {
	return fmt.Sprintf("the running office server speaks protocol %d and this office speaks %d: "+
		"it was started by another build of office. Restart it with this build: "+
		"`office stop` then `office start` (agents resume their conversations; queue, inbox and mail are kept)",
		server, client)
}

// Input sends bytes to an agent as the person's own keys (they pass through
// the server's line model, exactly as keys typed in the office's own window).
type Input struct {
	T     string `json:"t"`
	Agent string `json:"agent"`
	// Data is the raw bytes (base64 in JSON).
	Data []byte `json:"data"`
}

// Size is a pane's size in cells.
type Size struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Pane size limits a client may ask for.
const (
	MaxCols = 1000
	MaxRows = 500
)

// Valid reports whether s is within 1..MaxCols × 1..MaxRows.
func (s Size) Valid() bool {
	return s.Cols >= 1 && s.Rows >= 1 && s.Cols <= MaxCols && s.Rows <= MaxRows
}

// View tells the server what the client shows: the size of the pane each
// agent gets (agents not listed keep their size as far as this client is
// concerned) and the focused agent. Resized is true when the person resized
// the client's terminal (it makes this client the most recently active one,
// as keys do).
type View struct {
	T       string          `json:"t"`
	Focus   string          `json:"focus,omitempty"`
	Panes   map[string]Size `json:"panes,omitempty"`
	Resized bool            `json:"resized,omitempty"`
}

// MaxPanes bounds the panes of one View and the agents of one Subscribe.
const MaxPanes = 256

// Subscribe names every agent whose screen the client draws now (a page of
// panes, a zoomed one, one in copy mode), replacing the last Subscribe. The
// server keeps what it sent a client only of the agents it subscribes to:
// an agent newly named gets a full screen at once (not paced), then its
// changes; one no longer named gets no more screens, and a later Subscribe
// naming it again starts it from a full one. A client that never sends one
// (and did not say Hello.Subscribe) gets every screen. Names of agents not
// (yet) in the roster are kept: an agent added under that name is sent.
type Subscribe struct {
	T      string   `json:"t"`
	Agents []string `json:"agents"`
}

// Call asks the server to do something and answer with a Reply of the same
// ID. Op names the call (docs/protocol.md lists them); Args is its JSON
// argument object.
type Call struct {
	T     string          `json:"t"`
	ID    int64           `json:"id"`
	Op    string          `json:"op"`
	Agent string          `json:"agent,omitempty"`
	Args  json.RawMessage `json:"args,omitempty"`
}

// Reply answers a Call.
type Reply struct {
	T     string          `json:"t"`
	ID    int64           `json:"id"`
	Error string          `json:"error,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
	// Reason, with an Error that refused the call's input, is what was
	// wrong without the server's layers of context: what a person reads.
	Reason string `json:"reason,omitempty"`
	// Input marks an Error that is the call's fault (bad input: an
	// unknown agent, a name in use, a malformed argument); nothing was
	// changed. A command exits 2 for it, as for the same refusal made
	// without a server.
	Input bool `json:"input,omitempty"`
}

// Agent is one member of the roster.
type Agent struct {
	Name    string `json:"name"`
	Profile string `json:"profile"`
	// Instance changes when the agent's terminal is replaced (a restart):
	// its screen starts again from a full snapshot.
	Instance int64 `json:"instance"`
	// SpawnError says why the agent's process could not be started.
	SpawnError string `json:"spawn_error,omitempty"`
	// Started is when its process started (a restart changes it).
	Started time.Time `json:"started,omitzero"`
	// ReadyMarkers are what the server waits to see on its screen before it
	// counts it ready (empty: its first output and a quiet spell).
	ReadyMarkers []string `json:"ready_markers,omitempty"`
}

// Roster is the office's agents in order; sent on attach and whenever it
// changes.
type Roster struct {
	T      string  `json:"t"`
	Agents []Agent `json:"agents"`
}

// AgentState is one agent's live state.
type AgentState struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Signal string `json:"signal,omitempty"`
	// Draft: the person's text sits on the prompt.
	Draft bool `json:"draft,omitempty"`
	// Picker: a menu the person opened is assumed open.
	Picker bool `json:"picker,omitempty"`
	// Hold is why the head of its queue is not typed now ("" none).
	Hold string `json:"hold,omitempty"`
	// Queued is how many messages wait for it; Paused its own pause flag.
	Queued int  `json:"queued,omitempty"`
	Paused bool `json:"paused,omitempty"`
	Pid    int  `json:"pid,omitempty"`
	// ExitCode is set once its process exited.
	ExitCode *int   `json:"exit_code,omitempty"`
	Error    string `json:"error,omitempty"`
	// Restart is its restart policy: "never", "on-failure" or "always"
	// (absent from an older server). RestartAt, once its process exited,
	// is when the restart its policy asked for runs (absent: none pending).
	Restart   string    `json:"restart,omitempty"`
	RestartAt time.Time `json:"restart_at,omitzero"`
	// Turn: a turn is open (a prompt submitted, its end not yet seen), or
	// its end is not settled yet (its mail, notices, journal check).
	Turn bool `json:"turn,omitempty"`
	// LimitAt, while its status is "usage limit", is the reset the CLI
	// printed; with LimitRetry, none was printed and it is when office
	// retries (absent from an older server).
	LimitAt    time.Time `json:"limit_at,omitzero"`
	LimitRetry bool      `json:"limit_retry,omitempty"`
}

// State is the whole office's live state; the server sends it whenever any
// part changes (a slow client gets only the latest).
type State struct {
	T           string       `json:"t"`
	FloorPaused bool         `json:"floor_paused,omitempty"`
	Agents      []AgentState `json:"agents"`
	// Needs is the needs-you list, oldest first (wire/needs.go).
	Needs []Need `json:"needs,omitempty"`
}

// Event is one entry of the event stream (docs/protocol.md, "Events").
type Event struct {
	T string `json:"t,omitempty"`
	// Seq is the store log's position for events that come from it (queue,
	// deliveries, mail, inbox); 0 for live ones (status, hold, notice, exit).
	Seq   int64     `json:"seq,omitempty"`
	At    time.Time `json:"at"`
	Type  string    `json:"type"`
	Agent string    `json:"agent,omitempty"`
	MsgID int64     `json:"msg_id,omitempty"`
	// State is a delivery's step (EventDelivery) or a mail's new state.
	State string `json:"state,omitempty"`
	// Status and Signal are an agent's new status (EventStatus).
	Status string `json:"status,omitempty"`
	Signal string `json:"signal,omitempty"`
	// Hold is the new hold reason (EventHold; "" when cleared).
	Hold string `json:"hold,omitempty"`
	// Kind is the store's or the notice's own kind.
	Kind   string `json:"kind,omitempty"`
	Detail string `json:"detail,omitempty"`
	Text   string `json:"text,omitempty"`
	// Item and From, on an inbox item sent (EventStore, Kind
	// "inbox_sent"), are its kind ("request", "notification", ...) and its
	// sender, and Text its preview: the parts of Detail, so no client
	// reads them out of its prose.
	Item string `json:"item,omitempty"`
	From string `json:"from,omitempty"`
	// Channel, on a delivery handed over (EventDelivery, State
	// DeliveryHanded), is the channel that carried it (ChannelStopHook).
	Channel string `json:"channel,omitempty"`
	// Code is an exit code (EventExit).
	Code *int `json:"code,omitempty"`
	// Lost counts events this client missed because it read too slowly
	// (EventLost).
	Lost int `json:"lost,omitempty"`
}

// Event types.
const (
	EventStatus   = "status"
	EventHold     = "hold"
	EventExit     = "exit"
	EventDelivery = "delivery"
	EventQueue    = "queue"
	EventMail     = "mail"
	EventNotice   = "notice"
	EventAgent    = "agent"
	EventStore    = "store"
	EventLost     = "lost"
	// EventTurn: an agent's turn ended and was settled (Kind "ended"):
	// Detail its causes ("person", "delivery 7"), MsgID the first queue
	// message whose Enter is among them, Text the agent's last reply (from
	// its CLI's records, else its screen's reply region; bounded, as a
	// parent's notice quotes it).
	EventTurn = "turn"
)

// TurnEnded is the Kind of an EventTurn.
const TurnEnded = "ended"

// Delivery steps (Event.State of EventDelivery).
const (
	DeliveryTyping       = "typing"
	DeliverySubmitted    = "submitted"
	DeliveryVerified     = "verified"
	DeliveryNotSubmitted = "typed_not_submitted"
	DeliveryFailed       = "attempt_failed"
	DeliveryDropped      = "dropped"
	DeliveryHeld         = "held"
	// DeliveryHanded: handed over through the CLI's turn-end hook
	// (Event.Channel names it) instead of typed; confirmed by a later
	// delivered step.
	DeliveryHanded = "handed"
)

// Bye tells the client the server is going away (stopping); the connection
// closes after it.
type Bye struct {
	T      string `json:"t"`
	Reason string `json:"reason"`
	// Error is set when the server stops because something failed (its
	// store was lost), not because it was asked to: a client exits
	// non-zero with it.
	Error string `json:"error,omitempty"`
}
