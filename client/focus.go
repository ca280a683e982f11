package client

import "office/wire"

// SetFocus tells the server whether the person's terminal has focus (its
// focus reports): with the focused agent of SetView, the server's
// notifications stay quiet for the pane a person is looking at.
func (c *Conn) SetFocus(focused bool) error {
	return c.send(wire.Focus{T: wire.TFocus, Focused: focused})
}
