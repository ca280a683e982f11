package engine

// web.go starts the web server of the office file's [web] table with the
// server (docs/web.md), and answers the mail calls the web page makes. The engine does not know the web server (package
// web is a client of this server's socket, as `office web` is): the
// command that opens the engine hands it in Options.Web.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"office/configs"
	"office/inbox"
	"office/queue"
	"office/wire"
)

// WebRunner runs the web server of w, bounded by the office file's web_*
// settings s, as a client of the engine's own server until ctx ends
// (Options.Web).
type WebRunner func(ctx context.Context, w configs.Web, s configs.Settings) error

// startWeb runs Options.Web when the office file has a [web] table, in bg,
// until ctx ends. A web server that cannot start or stops by itself is
// logged; the office runs on without it.
func (e *Engine) startWeb(ctx context.Context, bg *sync.WaitGroup) {
	w := e.opts.Config.Web
	if w == nil || e.opts.Web == nil {
		return
	}
	bg.Add(1)
	go func() {
		defer bg.Done()
		e.log.Info("web: starting the [web] table's web server", "listen", w.Listen)
		if err := e.opts.Web(ctx, *w, e.settings()); err != nil && ctx.Err() == nil {
			e.log.Error("web: the [web] table's web server stopped", "err", err)
		}
	}()
}

// The mail calls: what `office mail ls`, `mail show`, `inbox --person` and
// `mail reply` read and do, for a client with no store of its own (the web
// page, which is a client of this server, never a second brain). Each
// answer is bounded: a wire frame holds it, a phone shows it.
const (
	// maxMailListed: "mail.list" answers the newest this many (a page of
	// mail a person scrolls; Total says how many there are).
	maxMailListed = 200
	// maxMailText: "mail.show" cuts a mail's text here (a mail may be
	// queue.MaxBody; a phone reads the start, `office mail show` the rest).
	maxMailText = 64 << 10
	// maxMailSteps: the newest steps of a mail's timeline shown.
	maxMailSteps = 100
	// maxInboxItems and maxInboxBody: "inbox.person" answers the newest
	// items, each body cut here (a request's question is short).
	maxInboxItems = 100
	maxInboxBody  = 4 << 10
)

// registerMailOps adds the mail calls to the table.
func (e *Engine) registerMailOps() {
	register(e, wire.OpMailList, e.opMailList)
	register(e, wire.OpMailShow, e.opMailShow)
	register(e, wire.OpPersonInbox, e.opPersonInbox)
	register(e, wire.OpMailReply, e.opMailReply)
}

// mailService is the inbox service the mail calls read, or an error when
// the office runs without its inbox layer.
func (e *Engine) mailService(op string) (*inbox.Service, error) {
	if e.inbox == nil {
		return nil, fmt.Errorf("%s: this office has no inbox", op)
	}
	return e.inbox.svc, nil
}

// mailErr marks the inbox's refusals of what a caller asked (an unknown
// id, a reply the gate refuses) as bad input, so the caller sees them as
// its own mistake.
func mailErr(op string, err error) error {
	for _, s := range []error{inbox.ErrNotFound, inbox.ErrNotAllowed, inbox.ErrFinal, inbox.ErrBlankBody, inbox.ErrTooLarge,
		queue.ErrBlank, queue.ErrTooLarge} {
		if errors.Is(err, s) {
			return fmt.Errorf("%s: %w: %w", op, ErrBadInput, err)
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

func wireMail(m inbox.Mail) wire.Mail {
	return wire.Mail{ID: m.ID, Sender: m.Sender, Receiver: m.Receiver, Type: m.Type, Title: m.Title, InReplyTo: m.InReplyTo,
		State: string(m.State), Reason: m.Reason, Created: m.Created, WorkingAt: m.WorkingAt, FinishedAt: m.FinishedAt}
}

// cutText cuts s to at most n bytes on a rune boundary.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n], true
}

func (e *Engine) opMailList(ctx context.Context, req Request, args wire.MailListArgs) (wire.MailList, error) {
	svc, err := e.mailService(req.Op)
	if err != nil {
		return wire.MailList{}, err
	}
	ms, err := MailListing(ctx, svc, args.State)
	if err != nil {
		return wire.MailList{}, mailErr(req.Op, err)
	}
	out := wire.MailList{Mail: []wire.Mail{}, Total: len(ms)}
	for _, m := range ms[max(0, len(ms)-maxMailListed):] {
		out.Mail = append(out.Mail, wireMail(m))
	}
	return out, nil
}

func (e *Engine) opMailShow(ctx context.Context, req Request, args wire.MailIDArgs) (wire.MailShown, error) {
	if args.ID == "" {
		return wire.MailShown{}, fmt.Errorf("mail.show: %w: give the mail's id", ErrBadInput)
	}
	svc, err := e.mailService(req.Op)
	if err != nil {
		return wire.MailShown{}, err
	}
	shown, err := ShowMail(ctx, svc, args.ID)
	if err != nil {
		return wire.MailShown{}, mailErr(req.Op, err)
	}
	out := wire.MailShown{Mail: wireMail(shown.Mail), Timeline: []wire.MailStep{}, Purged: shown.Purged}
	out.Text, out.Cut = cutText(shown.Text, maxMailText)
	tl := shown.Timeline
	for _, s := range tl[max(0, len(tl)-maxMailSteps):] {
		out.Timeline = append(out.Timeline, wire.MailStep{At: s.At, State: string(s.State), Detail: s.Detail})
	}
	return out, nil
}

func (e *Engine) opPersonInbox(ctx context.Context, req Request, _ wire.None) ([]wire.InboxItem, error) {
	svc, err := e.mailService(req.Op)
	if err != nil {
		return nil, err
	}
	its, err := InboxItems(ctx, svc, inbox.Person, false)
	if err != nil {
		return nil, mailErr(req.Op, err)
	}
	out := []wire.InboxItem{}
	for _, it := range its[max(0, len(its)-maxInboxItems):] {
		w := wire.InboxItem{ID: it.ID, Sender: it.Sender, Kind: it.Kind, Created: it.Created}
		w.Body, w.Cut = cutText(it.Body, maxInboxBody)
		if it.Mail != nil {
			m := wireMail(*it.Mail)
			w.Mail = &m
		}
		out = append(out, w)
	}
	return out, nil
}

// opMailReply is "mail.reply": `office mail reply ID TEXT` by the person;
// a request that came from another host of the floor is answered there.
func (e *Engine) opMailReply(ctx context.Context, req Request, args wire.MailReplyArgs) (wire.MailReplyResult, error) {
	if args.ID == "" {
		return wire.MailReplyResult{}, fmt.Errorf("mail.reply: %w: give the mail's id", ErrBadInput)
	}
	svc, err := e.mailService(req.Op)
	if err != nil {
		return wire.MailReplyResult{}, err
	}
	r, err := ReplyMail(ctx, e.store, svc, inbox.Person, args.ID, args.Text)
	if err != nil {
		return wire.MailReplyResult{}, mailErr(req.Op, err)
	}
	// The reply is to be delivered (here, or sent to its host): as after
	// `office mail reply`'s poke.
	if poke := e.serve.ops[wire.OpPoke.Name]; poke != nil {
		poke(ctx, Request{Op: wire.OpPoke.Name})
	}
	return wire.MailReplyResult{ID: r.ID}, nil
}
