package ui

// commands.go holds every command: the intents the UI sends the office off
// its loop. Each captures what it needs by value and answers with a
// message; none touches the model.

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"office/configs"
)

// callTimeout bounds one call the UI makes to the office.
const callTimeout = 5 * time.Second

type (
	// resizedMsg reports PTY resizes done off the loop.
	resizedMsg struct{ err error }
	// enqueuedMsg: the composer's message is durable in the queue.
	enqueuedMsg struct {
		agent string
		id    int64
	}
	// actionDoneMsg: a queue-panel or pause intent finished.
	actionDoneMsg struct {
		text string
		err  error
	}
	// composerErrMsg: the composer's message was refused; the text stays.
	composerErrMsg struct{ err error }
	// queueReadMsg is one read of the queue panel's agent's queue.
	queueReadMsg struct {
		agent   string
		listing QueueListing
		err     error
	}
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
	// addedMsg: the add-agent form's agent was added (or refused).
	addedMsg struct {
		agent string
		err   error
	}
	// serverStartedMsg: prefix s started the server again (or could not).
	serverStartedMsg struct{ err error }
	// restartedMsg: a restart asked with prefix R finished.
	restartedMsg struct {
		agent string
		err   error
	}
)

func call[T any](fn func(ctx context.Context) T) T {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return fn(ctx)
}

// readQueue reads the queue panel's agent's queue.
func (m *model) readQueue() tea.Cmd {
	if m.overlay != overlayQueue || m.queuePanel.agent == "" {
		return nil
	}
	office, agent := m.office, m.queuePanel.agent
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			l, err := office.Queue(ctx, agent)
			return queueReadMsg{agent: agent, listing: l, err: err}
		})
	}
}

// enqueueCmd queues text for agent, as `office send` does. It never types
// into a PTY.
func enqueueCmd(office Office, agent, text string) tea.Cmd {
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			id, err := office.Enqueue(ctx, agent, text)
			if err != nil {
				return composerErrMsg{err: err}
			}
			return enqueuedMsg{agent: agent, id: id}
		})
	}
}

// action runs one intent and reports done.
func action(done string, fn func(ctx context.Context) error) tea.Cmd {
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			if err := fn(ctx); err != nil {
				return actionDoneMsg{err: err}
			}
			return actionDoneMsg{text: done}
		})
	}
}

func releaseCmd(o Office, id int64) tea.Cmd {
	return action(fmt.Sprintf("message %d sent now", id), func(ctx context.Context) error { return o.Release(ctx, id) })
}

func removeCmd(o Office, id int64) tea.Cmd {
	return action(fmt.Sprintf("message %d deleted", id), func(ctx context.Context) error { return o.Remove(ctx, id) })
}

func clearCmd(o Office, agent string) tea.Cmd {
	return action("queue of "+agent+" cleared", func(ctx context.Context) error { return o.Clear(ctx, agent) })
}

// pauseCmd pauses the floor, or resumes it and, as `office resume --all`
// does, ends every usage-limit hold early (docs/limits.md).
func pauseCmd(o Office, paused bool) tea.Cmd {
	if paused {
		return action("delivery paused for the whole floor", func(ctx context.Context) error { return o.SetFloorPaused(ctx, true) })
	}
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			if err := o.SetFloorPaused(ctx, false); err != nil {
				return actionDoneMsg{err: err}
			}
			r, err := o.ReleaseLimit(ctx, "")
			switch {
			case err != nil:
				return actionDoneMsg{text: "delivery resumed; usage-limit holds not ended: " + err.Error()}
			case len(r.Released) > 0:
				return actionDoneMsg{text: "delivery resumed; " + releasedText("", r.Released)}
			}
			return actionDoneMsg{text: "delivery resumed"}
		})
	}
}

func closePickerCmd(o Office, agent string) tea.Cmd {
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			return pickerClosedMsg{agent: agent, err: o.ClosePicker(ctx, agent)}
		})
	}
}

func recoverPromptCmd(o Office, agent string) tea.Cmd {
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			text, err := o.RecoverPrompt(ctx, agent)
			return recoveredMsg{agent: agent, text: text, err: err}
		})
	}
}

func addAgentCmd(o Office, spec AgentSpec) tea.Cmd {
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			return addedMsg{agent: spec.Name, err: o.AddAgent(ctx, spec)}
		})
	}
}

func restartCmd(o Office, agent string) tea.Cmd {
	return func() tea.Msg {
		return call(func(ctx context.Context) tea.Msg {
			return restartedMsg{agent: agent, err: o.RestartAgent(ctx, agent)}
		})
	}
}

// startServerCmd starts the office's server again after it went away.
func startServerCmd(r Remote) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), serverStartTimeout)
		defer cancel()
		return serverStartedMsg{err: r.StartServer(ctx)}
	}
}

// serverStartTimeout bounds starting the server again (its agents start
// before it answers).
const serverStartTimeout = configs.StartWait

// quitCmd stops the office, then the program (an error stays on the
// status line instead).
func quitCmd(o Office) tea.Cmd {
	return func() tea.Msg {
		if err := call(func(ctx context.Context) error { return o.Quit(ctx) }); err != nil {
			return actionDoneMsg{err: err}
		}
		return tea.QuitMsg{}
	}
}
