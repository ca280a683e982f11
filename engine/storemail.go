package engine

// storemail.go holds the bodies of the mail calls ("mail.list",
// "mail.show", "inbox.person", "mail.reply"): the server's op handlers
// (web.go) call them with the office's inbox layer, and the store-only
// commands (`office mail ls`, `mail show`, `mail reply`, `inbox`) with one
// they open on the store, whether or not a server runs. One function per
// call, so the two ways cannot drift apart; what each way bounds or prints
// stays its own. The mail calls no client makes over the socket (`mail
// send`, `mail cancel`, `inbox show`, `report`) have their one body here
// too, so that a server op added for them later calls the same function.

import (
	"context"
	"fmt"
	"strconv"

	"office/cluster"
	"office/inbox"
	"office/queue"
)

// MailListing is "mail.list" on the store: the mail in state (its name, any
// case; "" every state), oldest first. A state that is not one is
// ErrBadInput.
func MailListing(ctx context.Context, svc *inbox.Service, state string) ([]inbox.Mail, error) {
	st, ok := inbox.ParseMailState(state)
	if state != "" && !ok {
		return nil, fmt.Errorf("%w: %q is not a state (queued claimed working done failed cancelled)", ErrBadInput, state)
	}
	return svc.ListMail(ctx, st)
}

// ShownMail is "mail.show" of one mail: the envelope, its timeline oldest
// first, and its text whole (Purged when the text is gone; Text is "").
type ShownMail struct {
	Mail     inbox.Mail
	Timeline []inbox.TimelineEntry
	Text     string
	Purged   bool
}

// ShowMail is "mail.show" on the store: mail id (inbox.ErrNotFound when
// there is none).
func ShowMail(ctx context.Context, svc *inbox.Service, id string) (ShownMail, error) {
	m, tl, err := svc.GetMail(ctx, id)
	if err != nil {
		return ShownMail{}, err
	}
	out := ShownMail{Mail: m, Timeline: tl}
	if out.Text, err = svc.MailBody(ctx, m.ID); err != nil {
		out.Text, out.Purged = "", true
	}
	return out, nil
}

// InboxItems is "inbox.person" on the store, of any receiver: its
// undelivered items (pending, leased), oldest first; with all the
// delivered and dead ones too.
func InboxItems(ctx context.Context, svc *inbox.Service, receiver string, all bool) ([]inbox.Item, error) {
	states := []string{inbox.StatePending, inbox.StateLeased}
	if all {
		states = append(states, inbox.StateDelivered, inbox.StateDead)
	}
	return svc.Items(ctx, receiver, states...)
}

// Replied is what ReplyMail stored: the reply's id and, for a request that
// came from another host of the floor, that host (Host) and the request's
// sender there (To); both "" for a reply stored for this host.
type Replied struct {
	ID, Host, To string
}

// ReplyMail is "mail.reply" on the store: from's reply (the person's, or an
// agent's) of text to mail id, stored through the floor when the mail came
// from another host (cluster.ReplyTx), else in this store (inbox's
// Service.Reply). The caller pokes the office so that it is delivered.
func ReplyMail(ctx context.Context, s *queue.Store, svc *inbox.Service, from, id, text string) (Replied, error) {
	origin, crossed, err := cluster.Origin(ctx, s, id)
	if err != nil {
		return Replied{}, err
	}
	if crossed {
		// An agent's shell replies with no office file: the store knows
		// the host.
		self, ok, err := cluster.Self(ctx, s)
		if err != nil {
			return Replied{}, err
		}
		if ok {
			orig, _, err := svc.GetMail(ctx, id)
			if err != nil {
				return Replied{}, err
			}
			var rid string
			err = s.Update(ctx, func(tx *queue.Tx) error {
				var err error
				rid, err = cluster.ReplyTx(tx, svc, self, origin, from, orig, text)
				return err
			})
			if err != nil {
				return Replied{}, err
			}
			return Replied{ID: rid, Host: origin, To: orig.Sender}, nil
		}
	}
	rid, err := svc.Reply(ctx, from, id, text)
	if err != nil {
		return Replied{}, err
	}
	return Replied{ID: rid}, nil
}

// Keyed is what a store write with an idempotency key did: ID is the id of
// what it stored, or Prev the id an earlier write with the same key stored
// (then nothing was stored and ID is "").
type Keyed struct {
	ID, Prev string
}

// mailFingerprint is what an idempotency key of mail send stands for: a
// second send with the key and another fingerprint is
// queue.ErrKeyConflict.
func mailFingerprint(req inbox.MailRequestArgs) string {
	return queue.Fingerprint("mail", req.To, req.From, req.Title, req.Text, strconv.FormatBool(req.Request), req.Deadline.String())
}

// SendMail is `office mail send` on the store: req's mail stored for a
// receiver of this host (inbox's Service.SendMailTx) in one transaction
// with key (its idempotency key; "" none). The caller pokes the office so
// that it is delivered.
func SendMail(ctx context.Context, s *queue.Store, svc *inbox.Service, req inbox.MailRequestArgs, key string) (Keyed, error) {
	var fp string
	if key != "" {
		fp = mailFingerprint(req)
	}
	return keyedUpdate(ctx, s, key, fp, func(tx *queue.Tx) (string, error) { return svc.SendMailTx(tx, req) })
}

// keyedUpdate runs write in one transaction with idempotency key ("" none)
// standing for fingerprint fp: when key is recorded already, it names the
// earlier write's id (Keyed.Prev, queue.ErrKeyConflict for another fp) and
// writes nothing; else the id write stored is recorded under key.
func keyedUpdate(ctx context.Context, s *queue.Store, key, fp string, write func(tx *queue.Tx) (string, error)) (Keyed, error) {
	var k Keyed
	err := s.Update(ctx, func(tx *queue.Tx) error {
		if key != "" {
			var err error
			if k.Prev, err = tx.KeyedID(key, fp); err != nil || k.Prev != "" {
				return err
			}
		}
		var err error
		if k.ID, err = write(tx); err != nil {
			return err
		}
		if key != "" {
			return tx.RecordKey(key, fp, k.ID)
		}
		return nil
	})
	if err != nil {
		return Keyed{}, err
	}
	return k, nil
}

// SendMailElsewhere is `office mail send` to a receiver of another host of
// the floor: it (the item for the outbox) stashed (StashRemote) with this
// host's envelope of it (req with the item's id, Remote) in the same
// transaction, with key as SendMail has it.
func SendMailElsewhere(ctx context.Context, s *queue.Store, svc *inbox.Service, it cluster.Item, req inbox.MailRequestArgs, key string) (Keyed, error) {
	return StashRemote(ctx, s, it, key, mailFingerprint(req), func(tx *queue.Tx, id string) error {
		local := req
		local.ID, local.Remote = id, true
		_, err := svc.SendMailTx(tx, local)
		return err
	})
}

// CancelMail is `office mail cancel` on the store: by's cancel (the
// mail's sender, or the person) of mail id, there when it crossed to
// another host (inbox's Service.CancelMail says where it went).
func CancelMail(ctx context.Context, svc *inbox.Service, by, id string) (inbox.Cancelled, error) {
	return svc.CancelMail(ctx, by, id)
}

// InboxItem is `office inbox show` on the store: item id whole
// (inbox.ErrNotFound when there is none).
func InboxItem(ctx context.Context, svc *inbox.Service, id string) (inbox.Item, error) {
	return svc.GetItem(ctx, id)
}

// Report is `office report` on the store: agent's outcome (success,
// partial, failed, blocked: inbox.ValidReport) of its current turn with
// summary ("" none), which its parent's notice of the turn carries. An
// outcome that is not one, or the person's report, is inbox.ErrNotAllowed.
func Report(ctx context.Context, svc *inbox.Service, agent, outcome, summary string) error {
	return svc.SetReport(ctx, agent, outcome, summary)
}
