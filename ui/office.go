package ui

// office.go is everything the UI knows of a running office: a small
// read-and-intents interface made of plain values, so the engine implements
// it in the same process and a client implements it over a socket the same
// way. Nothing here points into the engine, the pool or the store.

import (
	"context"
	"time"

	"office/pool"
	"office/wire"
)

// Office is the running office as the UI sees it. Reads return copies; the
// UI learns that something changed from Watch, never by polling. Every
// method is safe for concurrent use.
type Office interface {
	// Agents returns the roster in order.
	Agents() []AgentInfo
	// Screen copies agent's screen into dst (reusing dst.Cells) when its
	// generation differs from dst.Generation, and reports whether it did.
	// An unknown or unstarted agent leaves dst alone and returns false.
	// rows, when not nil, holds per row the generation dst's row was
	// copied at (as Screen keeps them; empty: none) and is updated: only the
	// rows whose generation moved are copied, so a key's echo copies one
	// row, and the caller learns which rows may have changed (those whose
	// generation moved). A row of the same generation is the same row.
	Screen(agent string, dst *Screen, rows *[]uint64) bool
	// History returns which history lines agent's office holds (lines
	// that scrolled off the top of its screen, numbered for the agent's
	// life and never changed once numbered) and whether its screen is
	// still live, and lines [from, to) as held, decoded into dst (reused,
	// so a view kept from frame to frame allocates nothing). An unknown
	// agent is an error. Bounds alone cost a call with to <= from.
	History(ctx context.Context, agent string, from, to int64, dst []HistoryLine) (HistoryBounds, []HistoryLine, error)
	// Floor returns queue depths, hold reasons and the floor-wide pause.
	Floor() Floor
	// Queue lists the messages queued for agent, in delivery order.
	Queue(ctx context.Context, agent string) (QueueListing, error)
	// Watch calls fn for every change until stop is called. fn must not
	// block; it runs on the office's goroutines.
	Watch(fn func(Change)) (stop func())

	// Input sends the person's bytes (keys, pastes, mouse reports, already
	// encoded for the agent's modes) to agent's terminal. It never blocks.
	Input(agent string, p []byte) error
	// Resize sets agent's terminal size.
	Resize(agent string, cols, rows int) error
	// Enqueue queues text for agent, as `office send` does; it returns the
	// message's id.
	Enqueue(ctx context.Context, agent, text string) (int64, error)
	// SetFloorPaused pauses or resumes delivery for the whole floor.
	SetFloorPaused(ctx context.Context, paused bool) error
	// ReleaseLimit ends the usage-limit hold of agent's account early (""
	// every account's), as `office resume` does (the server's
	// limit_release, docs/limits.md); it returns the agents released.
	ReleaseLimit(ctx context.Context, agent string) (wire.LimitReleaseResult, error)
	// Release sends message id now (ignoring pauses), Remove deletes it,
	// Clear deletes every message queued for agent.
	Release(ctx context.Context, id int64) error
	Remove(ctx context.Context, id int64) error
	Clear(ctx context.Context, agent string) error
	// ClosePicker sends Esc for the person to close agent's picker.
	ClosePicker(ctx context.Context, agent string) error
	// RecoverPrompt clears agent's prompt for the person and returns the
	// draft that was on it.
	RecoverPrompt(ctx context.Context, agent string) (string, error)
	// AddAgent adds an agent as `office team add` does (same validation,
	// same errors).
	AddAgent(ctx context.Context, spec AgentSpec) error
	// RestartAgent stops agent's process and starts it again (its
	// conversation resumed where the profile can).
	RestartAgent(ctx context.Context, agent string) error
	// Quit stops the office: every agent's process group is stopped,
	// queued messages stay for next time.
	Quit(ctx context.Context) error
}

// Remote is what an Office that is a client of the office's server (not the
// server itself) adds: the whole view at once, and the connection's fate.
type Remote interface {
	// SetView gives the size of every pane shown (instead of Resize per
	// agent: a server's view carries them all); resized says the person
	// resized the terminal.
	SetView(focus string, panes map[string]PaneSize, resized bool) error
	// Gone says why the server cannot be reached ("" while connected);
	// ended: the connection is over for good (the office stopped), the UI
	// quits.
	Gone() (reason string, ended bool)
	// StartServer starts the server again after it went away (it crashed);
	// an error when it cannot be started from here.
	StartServer(ctx context.Context) error
}

// Subscriber is an Office that sends an agent's screen only while the UI
// draws it (a client of the server, over the protocol's subscribe): the UI
// names every agent it draws (a page's panes, the zoomed one, a pane in
// copy mode) whenever that set changes. The others' screens stop coming
// (their roster entries and states do not) and Screen returns false for
// them until they are named again and their screen has come whole.
type Subscriber interface {
	Subscribe(agents []string) error
}

// PaneSize is a pane's size in cells.
type PaneSize struct{ Cols, Rows int }

// Screen is an agent's screen: cells, cursor (position, visibility, and
// the shape in Modes.CursorShape), title and modes, as plain values.
type Screen = pool.Snapshot

// HistoryBounds is where an agent's history stands (Office.History).
type HistoryBounds struct {
	// First … Total-1 number the lines held.
	First, Total int64
	// Live is false once the agent's output ended and its last screen's
	// rows were moved into the history as its last lines: the history
	// alone is then its whole output, and the screen repeats it.
	Live bool
}

// AgentInfo is one agent of the roster.
type AgentInfo struct {
	Name string
	// Host is the agent's host when the view shows several ("" with one).
	Host    string
	Profile string
	// Status is "starting", "idle", "busy", "waiting" or "exited", or
	// "unreachable" while Host's server cannot be reached.
	Status string
	// Exited and ExitCode say how the process ended.
	Exited   bool
	ExitCode int
	// RestartAt is when an exited agent's restart (its restart policy's,
	// after the back-off) runs; zero when none is pending.
	RestartAt time.Time
	// SpawnErr says why the process could not start ("" when it runs).
	SpawnErr string
	// Draft: the person's unsent text is on its prompt. Picker: a picker
	// (a bare slash command's menu) is open.
	Draft  bool
	Picker bool
	// Started is when the process started; a restart changes it.
	Started time.Time
	// ReadyMarkers are what office waits to see on screen before it
	// counts the agent as ready (empty: first output and a quiet spell).
	ReadyMarkers []string
	// BootGrace is how long office waits for the markers before it tells
	// the person the agent has not shown its prompt.
	BootGrace time.Duration
	// Generation is the screen's generation (see Office.Screen).
	Generation uint64
	// LimitAt, while Status is "usage limit", is the reset the CLI printed
	// (zero: not known); with LimitRetry none was, and it is office's retry.
	LimitAt    time.Time
	LimitRetry bool
}

// Floor is the delivery state of every queue.
type Floor struct {
	// Counts is the number of queued messages per agent.
	Counts map[string]int
	// Holds is why delivery to an agent is held ("busy", "your draft", ...).
	Holds map[string]string
	// Paused: delivery is paused for the whole floor.
	Paused bool
	// Err is the last store error ("" when reads work).
	Err string
	// Needs is the needs-you list, oldest first (docs/needs.md).
	Needs []Need
}

// Need is one agent or item waiting on the person.
type Need struct {
	Agent   string
	Host    string
	Reason  string
	Since   time.Time
	Excerpt string
	// Options are a dialog's numbered options ("1. Yes").
	Options []string
	// Ref names the item (a message's or mail's id).
	Ref string
}

// QueueListing is one agent's queue.
type QueueListing struct {
	Agent    string
	Messages []QueuedMessage
	// Paused: delivery to this agent is paused by its own flag.
	Paused bool
}

// QueuedMessage is one queued message.
type QueuedMessage struct {
	ID        int64
	Created   time.Time
	Attempts  int
	Manual    bool // released by the person: sent even while paused
	LastError string
	Text      string
}

// AgentSpec is an agent added from the UI, as `office team add` takes it.
type AgentSpec struct {
	Name    string
	Profile string
	Cwd     string
	Command []string
}

// ChangeKind says what changed.
type ChangeKind int

// The kinds of Change.
const (
	// ChangeScreen: Agent's screen changed.
	ChangeScreen ChangeKind = iota
	// ChangeAgent: Agent's status, gate or exit changed.
	ChangeAgent
	// ChangeRoster: agents were added, removed or restarted.
	ChangeRoster
	// ChangeFloor: queue depths, holds or the pause changed.
	ChangeFloor
	// ChangeNotice: Notice is news for the person.
	ChangeNotice
	// ChangeConnection: the connection to the server was lost, is back or
	// ended (see Remote.Gone).
	ChangeConnection
)

// Change tells the UI what changed; it carries no state except a notice.
type Change struct {
	Kind   ChangeKind
	Agent  string
	Notice Notice
}

// Notice is news for the person: a drop, an exit, an agent waiting, a
// completed or failed agent, mail to the person.
type Notice struct {
	At    time.Time
	Agent string
	Kind  string
	Text  string
	// Alert: a notification the [notify] rules let through (docs/needs.md):
	// shown on the person's terminal (Title, Text), not in the list.
	Alert bool
	Title string
}
