package automation

import "time"

// Status is what an agent is doing, as office judges it.
type Status int

// The statuses, in the order an agent usually passes through them.
const (
	// StatusStarting: the process runs but its CLI has not shown it is ready.
	StatusStarting Status = iota
	// StatusIdle: ready for a prompt.
	StatusIdle
	// StatusBusy: working on a turn.
	StatusBusy
	// StatusWaiting: a dialog (permission, question) waits for a human.
	StatusWaiting
	// StatusExited: the process has exited.
	StatusExited
	// StatusLimited: the agent's account is out of quota until its reset
	// (a usage-limit hold, Inputs.Limit; docs/limits.md).
	StatusLimited
)

// String returns the lower-case word used in the UI and in `office status`.
func (s Status) String() string {
	switch s {
	case StatusStarting:
		return "starting"
	case StatusIdle:
		return "idle"
	case StatusBusy:
		return "busy"
	case StatusWaiting:
		return "waiting"
	case StatusExited:
		return "exited"
	case StatusLimited:
		return "usage limit"
	}
	return "unknown"
}

// Block is why automation may not type into a terminal right now.
type Block int

// The block reasons, strongest first (docs/design.md §2: exited > picker > draft > settling).
const (
	// BlockNone: automation may type now.
	BlockNone Block = iota
	// BlockExited: the agent's process has exited.
	BlockExited
	// BlockPicker: a menu the person opened is believed open (not stale).
	BlockPicker
	// BlockDraft: the person's text is believed on the prompt (not stale).
	BlockDraft
	// BlockSettling: a picker just closed; the UI is still redrawing.
	BlockSettling
)

// String returns the hold-reason word (README, "Hold reasons") for the block
// ("exited", "picker open", "your draft", "settling"), or "" for BlockNone.
func (b Block) String() string {
	switch b {
	case BlockExited:
		return "exited"
	case BlockPicker:
		return "picker open"
	case BlockDraft:
		return "your draft"
	case BlockSettling:
		return "settling"
	}
	return ""
}

// State is the automation view of one terminal: everything BlockReason needs.
// The zero value is a live terminal with no draft, no picker and no settling.
type State struct {
	// Exited is true once the agent's process has exited.
	Exited bool
	// PickerLatched is true while a bare interactive command's menu is assumed open.
	PickerLatched bool
	// PickerAt is when the picker was latched; zero never goes stale.
	PickerAt time.Time
	// Dirty is true while the person's text is believed to sit on the prompt.
	Dirty bool
	// DirtyAt is the person's last keystroke that touched the draft; zero never goes stale.
	DirtyAt time.Time
	// SettleUntil blocks automation strictly before this instant (after a picker closes).
	SettleUntil time.Time
	// Stale is how long the picker and draft blocks last (Timing.Stale); 0
	// means StaleAfter.
	Stale time.Duration
}
