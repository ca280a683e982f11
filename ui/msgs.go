package ui

// msgs.go lists every message the model handles. Each has its own type; none
// is a bare string or error.

import (
	"time"

	"office/queue"
)

type (
	// inputMsg is a raw chunk read from the person's terminal.
	inputMsg []byte
	// frameMsg is the frame tick (at most 30 per second): pick up changed
	// screens, titles, the roster and notices. It carries the tick's time.
	frameMsg time.Time
	// queueTickMsg asks for the next store read.
	queueTickMsg struct{}
	// queueMsg is one store read, done off the loop: queue depths, the floor
	// flag, new notices from the event log and, when the queue panel is
	// open, its agent's messages.
	queueMsg struct {
		tick        bool // part of the periodic chain: arm the next read
		counts      map[string]int
		floorPaused bool
		fromSeq     int64 // the log position the read started after
		lastSeq     int64
		events      []queue.Event
		panelAgent  string // "" when the panel was not read
		panelMsgs   []queue.Message
		panelPaused bool
		err         error
	}
	// resizedMsg reports PTY resizes done off the loop.
	resizedMsg struct{ err error }
	// enqueuedMsg: the composer's message is durable in the queue.
	enqueuedMsg struct {
		agent string
		id    int64
	}
	// actionDoneMsg: a queue-panel or pause intent finished; text says what
	// happened (shown on the status line), err why it failed.
	actionDoneMsg struct {
		text string
		err  error
	}
	// composerErrMsg: the composer's message was refused (blank, unknown
	// agent, duplicate compaction, store error); the text stays.
	composerErrMsg struct{ err error }
	// recoveredMsg: "recover prompt" sent Ctrl-U and took the draft.
	recoveredMsg struct {
		agent string
		text  string
		err   error
	}
	// pickerClosedMsg: "close picker" sent Esc for the person.
	pickerClosedMsg struct {
		agent string
		err   error
	}
)
