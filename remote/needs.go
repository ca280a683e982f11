package remote

// needs.go is what the UI's needs-you list and notifications ask of a
// server besides ui.Office: the terminal's focus, and answering a dialog.

import (
	"context"
	"office/client"
	"office/wire"
)

// SetTerminalFocus tells the server whether the person's terminal has focus
// (the UI's focus reports), so its notifications stay quiet for the pane
// the person is looking at (docs/needs.md). After a reconnect the server
// takes the terminal as not focused until the next report.
func (r *Office) SetTerminalFocus(focused bool) error {
	return r.s.Conn().SetFocus(focused)
}

// SetTerminalFocus tells every host's server.
func (m *Multi) SetTerminalFocus(focused bool) error {
	for _, mb := range m.live() {
		_ = mb.office.SetTerminalFocus(focused) // a host that is gone is told after it is back
	}
	return nil
}

// Approve answers agent's dialog with option through the server's approve
// call (as `office approve`); it returns the option typed.
func (r *Office) Approve(ctx context.Context, agent, option string) (string, error) {
	out, err := client.Do(ctx, r.s.Conn(), wire.OpApprove, "", wire.ApproveArgs{Agent: agent, Option: option})
	if err != nil {
		return "", err
	}
	return out.Option, nil
}

// Approve answers the dialog on the agent's own host.
func (m *Multi) Approve(ctx context.Context, agent, option string) (string, error) {
	mb, a, err := m.owner(agent)
	if err != nil {
		return "", err
	}
	return mb.office.Approve(ctx, a, option)
}
