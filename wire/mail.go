package wire

import "time"

// The results of the mail calls ("mail.list", "mail.show", "inbox.person",
// "mail.reply"): what `office mail ls`, `mail show`, `inbox --person` and
// `mail reply` show, for a client that has no store of its own (the web
// page). The server bounds each answer (docs/protocol.md).

// Mail is one mail's envelope.
type Mail struct {
	ID        string `json:"id"`
	Sender    string `json:"sender"`
	Receiver  string `json:"receiver"`
	Type      string `json:"type"` // "request" or "inform"
	Title     string `json:"title"`
	InReplyTo string `json:"in_reply_to,omitempty"`
	// State is queued, claimed, working, done, failed or cancelled; Reason
	// says why it failed or was cancelled.
	State      string    `json:"state"`
	Reason     string    `json:"reason,omitempty"`
	Created    time.Time `json:"created"`
	WorkingAt  time.Time `json:"working_at,omitzero"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
}

// MailList answers "mail.list": the newest mail (of a state when asked),
// oldest first; Total is how many there are, of which Mail holds the last.
type MailList struct {
	Mail  []Mail `json:"mail"`
	Total int    `json:"total"`
}

// MailShown answers "mail.show": one mail with its text (Cut: cut at the
// server's bound; Purged: gone by retention) and its timeline.
type MailShown struct {
	Mail
	Text     string     `json:"text"`
	Cut      bool       `json:"cut,omitempty"`
	Purged   bool       `json:"purged,omitempty"`
	Timeline []MailStep `json:"timeline"`
}

// MailStep is one step of a mail's timeline.
type MailStep struct {
	At     time.Time `json:"at"`
	State  string    `json:"state"`
	Detail string    `json:"detail,omitempty"`
}

// InboxItem is one item waiting in the person's inbox ("inbox.person"):
// a mail (Mail set), a notice or a note; Body cut at the server's bound
// when Cut.
type InboxItem struct {
	ID      string    `json:"id"`
	Sender  string    `json:"sender"`
	Kind    string    `json:"kind"`
	Body    string    `json:"body"`
	Cut     bool      `json:"cut,omitempty"`
	Created time.Time `json:"created"`
	Mail    *Mail     `json:"mail,omitempty"`
}

// MailListArgs are "mail.list"'s arguments: a mail state, or "" for every
// state.
type MailListArgs struct {
	State string `json:"state"`
}

// MailIDArgs are the arguments of a call about one mail.
type MailIDArgs struct {
	ID string `json:"id"`
}

// MailReplyArgs are "mail.reply"'s arguments: the request's id and the
// reply's text.
type MailReplyArgs struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// MailReplyResult answers "mail.reply": the reply's id.
type MailReplyResult struct {
	ID string `json:"id"`
}
