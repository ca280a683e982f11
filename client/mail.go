package client

import (
	"context"

	"office/wire"
)

// The person's mail, for a client with no store of its own (the web page).

// MailList lists the newest mail, in state ("" every state), as
// `office mail ls`.
func (c *Conn) MailList(ctx context.Context, state string) (wire.MailList, error) {
	return Do(ctx, c, wire.OpMailList, "", wire.MailListArgs{State: state})
}

// MailShow returns mail id with its text and timeline, as `office mail show`.
func (c *Conn) MailShow(ctx context.Context, id string) (wire.MailShown, error) {
	return Do(ctx, c, wire.OpMailShow, "", wire.MailIDArgs{ID: id})
}

// PersonInbox lists the newest items waiting for the person, oldest first,
// as `office inbox --person`.
func (c *Conn) PersonInbox(ctx context.Context) ([]wire.InboxItem, error) {
	return Do(ctx, c, wire.OpPersonInbox, "", wire.None{})
}

// MailReply answers request mail id as the person (`office mail reply`,
// across hosts too) and returns the reply's id.
func (c *Conn) MailReply(ctx context.Context, id, text string) (string, error) {
	r, err := Do(ctx, c, wire.OpMailReply, "", wire.MailReplyArgs{ID: id, Text: text})
	return r.ID, err
}
