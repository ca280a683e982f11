package ui

// commands.go holds every command: the I/O the UI does off its loop (store
// reads and intents, keys sent for the person by the composer's buttons, the
// bell). Each captures what it needs by value and answers with a message;
// none touches the model.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"office/queue"
)

// storeTimeout bounds one store call made by the UI.
const storeTimeout = 5 * time.Second

// readStoreTick is the periodic store read: its answer arms the next one.
func (m *model) readStoreTick() tea.Cmd { return m.readStore(true) }

// readStoreOnce reads the store now, outside the periodic chain (after an
// intent, or when the queue panel opens).
func (m *model) readStoreOnce() tea.Cmd { return m.readStore(false) }

// readStore reads queue depths, the floor flag, new events and (with the
// queue panel open) the panel's agent's messages.
func (m *model) readStore(tick bool) tea.Cmd {
	store := m.src.Store()
	lastSeq := m.lastSeq
	panel := ""
	if m.overlay == overlayQueue {
		panel = m.queuePanel.agent
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		msg := queueMsg{tick: tick, fromSeq: lastSeq}
		var err error
		if msg.counts, err = store.Counts(ctx); err != nil {
			return queueMsg{err: err, lastSeq: lastSeq, tick: tick}
		}
		if msg.floorPaused, err = store.FloorPaused(ctx); err != nil {
			return queueMsg{err: err, lastSeq: lastSeq, tick: tick}
		}
		msg.lastSeq = lastSeq
		if lastSeq < 0 {
			// Start at the log's end: old events are not news.
			err = store.DB().QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&msg.lastSeq)
		} else {
			msg.events, err = store.Events(ctx, lastSeq, 200)
			if n := len(msg.events); n > 0 {
				msg.lastSeq = msg.events[n-1].Seq
			}
		}
		if err != nil {
			return queueMsg{err: err, lastSeq: lastSeq, tick: tick}
		}
		if panel != "" {
			msg.panelAgent = panel
			if msg.panelMsgs, err = store.List(ctx, panel); err != nil {
				return queueMsg{err: err, lastSeq: lastSeq, tick: tick}
			}
			if own, _, err := store.Paused(ctx, panel); err == nil {
				msg.panelPaused = own
			}
		}
		return msg
	}
}

// applyStore takes one store read into the model.
func (m *model) applyStore(msg queueMsg) tea.Cmd {
	if msg.err != nil {
		m.storeErr = msg.err.Error()
		return nil
	}
	m.storeErr = ""
	m.counts = msg.counts
	m.floorPaused = msg.floorPaused
	if msg.fromSeq != m.lastSeq {
		// Another read took these events already.
		msg.events = nil
	} else {
		m.lastSeq = msg.lastSeq
	}
	if msg.panelAgent != "" && msg.panelAgent == m.queuePanel.agent {
		m.queuePanel.load(msg.panelMsgs, msg.panelPaused)
	}
	m.retitle()
	var ns []notice
	for _, e := range msg.events {
		if n, ok := eventNotice(e); ok {
			ns = append(ns, n)
		}
	}
	if len(ns) > 0 {
		return m.raise(m.now, ns)
	}
	return nil
}

// enqueueCmd queues text for agent through the store, as `office send` does,
// then wakes the drain. It never types into a PTY.
func enqueueCmd(src source, agent, text string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		id, err := src.Store().Enqueue(ctx, agent, text, queue.EnqueueOptions{Source: "composer"})
		if err != nil {
			return composerErrMsg{err: err}
		}
		src.Wake()
		return enqueuedMsg{agent: agent, id: id}
	}
}

// storeAction runs one store intent, wakes the drain and reports done.
func storeAction(src source, done string, fn func(ctx context.Context, s *queue.Store) error) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		if err := fn(ctx, src.Store()); err != nil {
			return actionDoneMsg{err: err}
		}
		src.Wake()
		return actionDoneMsg{text: done}
	}
}

// releaseCmd is "send now" for message id.
func releaseCmd(src source, id int64) tea.Cmd {
	return storeAction(src, fmt.Sprintf("message %d sent now", id), func(ctx context.Context, s *queue.Store) error {
		return s.Release(ctx, id)
	})
}

// removeCmd deletes message id.
func removeCmd(src source, id int64) tea.Cmd {
	return storeAction(src, fmt.Sprintf("message %d deleted", id), func(ctx context.Context, s *queue.Store) error {
		return s.Remove(ctx, id, "deleted in the UI")
	})
}

// clearCmd deletes every message queued for agent.
func clearCmd(src source, agent string) tea.Cmd {
	return storeAction(src, "queue of "+agent+" cleared", func(ctx context.Context, s *queue.Store) error {
		_, err := s.Clear(ctx, agent)
		return err
	})
}

// pauseCmd sets the floor-wide pause flag.
func pauseCmd(src source, paused bool) tea.Cmd {
	done := "delivery resumed"
	if paused {
		done = "delivery paused for the whole floor"
	}
	return storeAction(src, done, func(ctx context.Context, s *queue.Store) error {
		return s.SetFloorPaused(ctx, paused)
	})
}

// closePickerCmd sends Esc for the person (the composer's "close picker").
func closePickerCmd(agent string, t terminal) tea.Cmd {
	return func() tea.Msg {
		if t == nil {
			return pickerClosedMsg{agent: agent, err: errors.New(agent + " is not running")}
		}
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		return pickerClosedMsg{agent: agent, err: t.ClosePicker(ctx)}
	}
}

// recoverPromptCmd sends Ctrl-U for the person and takes the draft it
// cleared (the composer's "recover prompt").
func recoverPromptCmd(agent string, t terminal) tea.Cmd {
	return func() tea.Msg {
		if t == nil {
			return recoveredMsg{agent: agent, err: errors.New(agent + " is not running")}
		}
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		text, err := t.RecoverPrompt(ctx)
		return recoveredMsg{agent: agent, text: text, err: err}
	}
}

// bellCmd rings the person's terminal and posts an OSC 9 notification with
// text. It is one write, so it never lands inside one of the renderer's
// writes; neither sequence moves the cursor, so the renderer's picture of the
// screen stays right.
func bellCmd(w io.Writer, text string) tea.Cmd {
	if w == nil {
		return nil
	}
	seq := bellSequence(text)
	return func() tea.Msg {
		_, _ = io.WriteString(w, seq)
		return nil
	}
}

// bellSequence is BEL then OSC 9 (BEL-terminated) with text made safe: control characters
// dropped, at most 200 runes, and a leading "office: " so the text never
// reads as an OSC 9 sub-command (ConEmu's "9;4;…" progress).
func bellSequence(text string) string {
	var b strings.Builder
	b.WriteString("\a\x1b]9;office: ")
	n := 0
	for _, r := range text {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			r = ' '
		}
		if n++; n > 200 {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
	}
	b.WriteByte(0x07)
	return b.String()
}
