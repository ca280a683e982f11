package web

// mail.go is the person's mail on the page: the items waiting in the
// person's inbox (`office inbox --person`) with a reply to a request mail
// (`office mail reply`), and every mail of the office (`office mail ls`)
// with one mail's text and timeline (`office mail show`). All of it comes
// from the office server's mail calls ("inbox.person", "mail.reply",
// "mail.list", "mail.show"), which bound what they answer: the web server
// opens no store of its own.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"office/client"
	"office/inbox"

	"office/wire"
)

// Mail is the person's inbox and the office's mail, as the office server
// answers for them.
type Mail interface {
	// PersonInbox is the person's undelivered inbox items, oldest first.
	PersonInbox(ctx context.Context) ([]wire.InboxItem, error)
	// Reply answers request mail id as the person (`office mail reply`)
	// and returns the reply's id.
	Reply(ctx context.Context, id, text string) (string, error)
	// List is the newest mail in state ("" every state).
	List(ctx context.Context, state string) (wire.MailList, error)
	// Show is one mail with its text and timeline.
	Show(ctx context.Context, id string) (wire.MailShown, error)
}

// SessionMail is the office server's mail calls on s.
func SessionMail(s *client.Session) Mail { return sessionMail{s} }

type sessionMail struct{ s *client.Session }

func (m sessionMail) PersonInbox(ctx context.Context) ([]wire.InboxItem, error) {
	return m.s.Conn().PersonInbox(ctx)
}
func (m sessionMail) Reply(ctx context.Context, id, text string) (string, error) {
	return m.s.Conn().MailReply(ctx, id, text)
}
func (m sessionMail) List(ctx context.Context, state string) (wire.MailList, error) {
	return m.s.Conn().MailList(ctx, state)
}
func (m sessionMail) Show(ctx context.Context, id string) (wire.MailShown, error) {
	return m.s.Conn().MailShow(ctx, id)
}

// inboxRow is one item as the page shows it.
type inboxRow struct {
	ID      string    `json:"id"`
	Sender  string    `json:"sender"`
	Kind    string    `json:"kind"`
	Body    string    `json:"body"`
	Cut     bool      `json:"cut,omitempty"`
	Created time.Time `json:"created"`
	// Type, Title and State are a mail's; Request marks request mail the
	// person may answer.
	Type    string `json:"type,omitempty"`
	Title   string `json:"title,omitempty"`
	State   string `json:"state,omitempty"`
	Request bool   `json:"request,omitempty"`
}

// mailCall runs fn on the office server's mail, bounded by callTimeout,
// and answers its result or its error.
func (s *Server) mailCall(w http.ResponseWriter, r *http.Request, fn func(ctx context.Context, m Mail) (any, error)) {
	if s.cfg.Mail == nil {
		jsonError(w, http.StatusNotFound, "this web server has no mail")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), callTimeout)
	defer cancel()
	out, err := fn(ctx, s.cfg.Mail)
	if err != nil {
		msg := err.Error()
		var ce *client.CallError
		if errors.As(err, &ce) {
			msg = ce.PersonMessage()
		}
		jsonError(w, http.StatusBadRequest, msg)
		return
	}
	writeJSON(w, out)
}

func (s *Server) handleInbox(w http.ResponseWriter, r *http.Request) {
	s.mailCall(w, r, func(ctx context.Context, m Mail) (any, error) {
		its, err := m.PersonInbox(ctx)
		if err != nil {
			return nil, err
		}
		out := []inboxRow{}
		for _, it := range its {
			row := inboxRow{ID: it.ID, Sender: it.Sender, Kind: it.Kind, Body: it.Body, Cut: it.Cut, Created: it.Created}
			if m := it.Mail; m != nil {
				row.Type, row.Title, row.State = m.Type, m.Title, m.State
				row.Request = m.Type == inbox.MailRequest
			}
			out = append(out, row)
		}
		return out, nil
	})
}

func (s *Server) handleReply(w http.ResponseWriter, r *http.Request) {
	var b struct{ ID, Text string }
	if !s.decode(w, r, &b) {
		return
	}
	if b.ID == "" || len(b.Text) == 0 || len(b.Text) > s.lim.MessageBytes {
		jsonError(w, http.StatusBadRequest, fmt.Sprintf("a reply needs the mail's id and a text of 1 to %d bytes (web_message_bytes)", s.lim.MessageBytes))
		return
	}
	s.log.Info("web: mail reply", "session", sessionOf(r).ID, "mail", b.ID)
	s.mailCall(w, r, func(ctx context.Context, m Mail) (any, error) {
		id, err := m.Reply(ctx, b.ID, b.Text)
		return map[string]string{"id": id}, err
	})
}

// handleMailList is `office mail ls [STATE]`: GET /api/mail?state=S.
func (s *Server) handleMailList(w http.ResponseWriter, r *http.Request) {
	state := r.URL.Query().Get("state")
	if len(state) > 32 {
		jsonError(w, http.StatusBadRequest, "state: not a mail state")
		return
	}
	s.mailCall(w, r, func(ctx context.Context, m Mail) (any, error) { return m.List(ctx, state) })
}

// handleMailShow is `office mail show ID`: GET /api/mail/show?id=ID.
func (s *Server) handleMailShow(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if id == "" || len(id) > 64 {
		jsonError(w, http.StatusBadRequest, "give the mail's id")
		return
	}
	s.mailCall(w, r, func(ctx context.Context, m Mail) (any, error) { return m.Show(ctx, id) })
}
