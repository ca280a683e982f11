package main

// mail.go is `office mail`: send, reply, ls, show and cancel mail between
// agents and the person. The sender is the agent named by OFFICE_AGENT (it
// must be one of the office), or the person. The system owns each envelope's
// state (queued, claimed, working, done, failed, cancelled); these commands
// only write the store and poke a running office, so they work with no
// office running.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"office/cluster"
	"office/configs"
	"office/engine"
	"office/inbox"
	"office/queue"
)

func newMailCmd(e *env, g *globals) *cobra.Command {
	c := groupCmd(&cobra.Command{
		Use:   "mail",
		Short: "mail between agents and the person (send, reply, ls, show, cancel)",
		Long: `Mail between agents and the person. The sender is the agent named by
OFFICE_AGENT (office sets it in each agent's environment; a name that is not an
agent of the office is refused, exit 2), or the person when it is unset.`,
	})
	c.AddCommand(newMailSendCmd(e, g), newMailReplyCmd(e, g), newMailListCmd(e, g), newMailShowCmd(e, g), newMailCancelCmd(e, g))
	return c
}

// mailSendArgs are `office mail send`'s flags.
type mailSendArgs struct {
	to, title, deadline, key string
	request                  bool
}

func newMailSendCmd(e *env, g *globals) *cobra.Command {
	var a mailSendArgs
	c := &cobra.Command{
		Use:   "send --to AGENT TEXT...|-",
		Short: "send mail (a request with --request); prints the new mail's id",
		Long: `Send mail to an agent (or "person"). TEXT is the arguments joined by spaces, or
stdin for a lone "-": at most 1 MiB of valid UTF-8. A --request waits for the
receiver's reply (office mail reply) and fails at its deadline.`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if a.to == "" {
				return usagef("office mail send: --to AGENT is required")
			}
			if err := checkKeyFlag(c, a.key); err != nil {
				return err
			}
			return mailSend(c.Context(), e, g, a, args)
		},
	}
	f := c.Flags()
	f.StringVar(&a.to, "to", "", "the receiver: an agent, or person")
	f.BoolVar(&a.request, "request", false, "a request: the receiver must reply")
	f.StringVar(&a.title, "title", "", "the title (default: the text's first line)")
	f.StringVar(&a.deadline, "deadline", "", "how long a request may stay working, e.g. 45m (default 30m)")
	f.StringVar(&a.key, "id", "", "idempotency key: a second send with the same key stores nothing and prints the first id")
	_ = c.RegisterFlagCompletionFunc("to", completeAgent(e, g))
	return c
}

// mailTitleBytes is the bound on a mail's title: the office file's
// mail_title_bytes when the file loads, else the settings table's default.
func mailTitleBytes(g *globals, e *env) int {
	if cfg, _, err := loadConfig(g, e); err == nil {
		return cfg.Settings.MailTitleBytes
	}
	return configs.Defaults().MailTitleBytes
}

func mailSend(ctx context.Context, e *env, g *globals, a mailSendArgs, args []string) error {
	var deadline time.Duration
	if a.deadline != "" {
		d, err := time.ParseDuration(a.deadline)
		if err != nil || d <= 0 {
			return usagef("office mail send: --deadline %q is not a positive duration (e.g. 45m)", a.deadline)
		}
		deadline = d
	}
	text, err := bodyArg(e, "mail", args)
	if err != nil {
		return err
	}
	title := a.title
	limit := mailTitleBytes(g, e)
	if strings.TrimSpace(title) == "" {
		title = cell(strings.TrimSpace(text), 60)
	} else if err := checkBody("title", title); err != nil {
		return err
	} else if n := len(strings.TrimSpace(title)); n > limit {
		return &inputError{fmt.Errorf("mail send: --title is %d bytes, at most %d (mail_title_bytes): put the rest in the text", n, limit)}
	}
	svc, s, dir, err := openInboxWith(ctx, e, g, inbox.Options{MailTitleBytes: limit})
	if err != nil {
		return err
	}
	defer s.Close()
	from, err := sender(ctx, e, s)
	if err != nil {
		return err
	}
	req := inbox.MailRequestArgs{To: a.to, From: from, Title: title, Text: text, Request: a.request, Deadline: deadline}
	if m, host, ok, err := remoteOf(ctx, e, g, s, a.to); err != nil || ok {
		if err != nil {
			return err
		}
		it := cluster.Item{Kind: cluster.KindMail, From: from, FromHost: host, To: a.to, ToHost: m.Host, Text: text,
			Title: title, Request: a.request, Deadline: deadline}
		k, err := engine.SendMailElsewhere(ctx, s, svc, it, req, a.key)
		return stashed(e, dir, it, a.key, k, err)
	}
	// No server op sends mail: engine.SendMail is its one body.
	k, err := engine.SendMail(ctx, s, svc, req, a.key)
	if err != nil {
		return inboxErr(fmt.Errorf("mail send: %w", err))
	}
	id, prev := k.ID, k.Prev
	if prev != "" {
		fmt.Fprintf(e.stderr, "office: not sent again: %v\n", &queue.KeyUsedError{Key: a.key, ExistingID: prev})
		fmt.Fprintln(e.stdout, prev)
		return nil
	}
	engine.Poke(dir)
	fmt.Fprintln(e.stdout, id)
	fmt.Fprintf(e.stderr, "office: mail %s to %s stored (delivered when %s can take it)\n", id, a.to, a.to)
	return nil
}

func newMailReplyCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "reply ID TEXT...|-",
		Short: "answer a request (inform mail to its sender); prints the reply's id",
		Args:  minArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			return mailReply(c.Context(), e, g, args[0], args[1:])
		},
	}
}

func mailReply(ctx context.Context, e *env, g *globals, id string, args []string) error {
	text, err := bodyArg(e, "reply", args)
	if err != nil {
		return err
	}
	svc, s, dir, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	from, err := sender(ctx, e, s)
	if err != nil {
		return err
	}
	// The server's "mail.reply" is the same body (as the person).
	r, err := engine.ReplyMail(ctx, s, svc, from, id, text)
	if errors.Is(err, queue.ErrBlank) || errors.Is(err, queue.ErrTooLarge) {
		return &inputError{fmt.Errorf("mail reply: %w", err)}
	}
	if err != nil {
		return inboxErr(fmt.Errorf("mail reply: %w", err))
	}
	engine.Poke(dir)
	fmt.Fprintln(e.stdout, r.ID)
	if r.Host != "" {
		fmt.Fprintf(e.stderr, "office: reply %s stored (sent to %s on host %s when host %s takes it)\n", r.ID, r.To, r.Host, r.Host)
		return nil
	}
	fmt.Fprintf(e.stderr, "office: reply %s stored\n", r.ID)
	return nil
}

func newMailListCmd(e *env, g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:     "ls [STATE]",
		Aliases: []string{"list"},
		Short:   "list mail; STATE: queued claimed working done failed cancelled",
		Args:    argsBetween(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			state := ""
			if len(args) == 1 {
				if !inbox.ValidMailState(args[0]) {
					return usagef("office mail ls: %q is not a state (queued claimed working done failed cancelled)", args[0])
				}
				state = strings.ToLower(args[0])
			}
			return mailList(c.Context(), e, g, state, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func mailList(ctx context.Context, e *env, g *globals, state string, asJSON bool) error {
	svc, s, _, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	// The server's "mail.list" is the same body (state is checked).
	ms, err := engine.MailListing(ctx, svc, state)
	if err != nil {
		return err
	}
	if asJSON {
		if ms == nil {
			ms = []inbox.Mail{}
		}
		return printJSON(e, ms)
	}
	if len(ms) == 0 {
		fmt.Fprintln(e.stdout, "no mail")
		return nil
	}
	tw := newTable(e.stdout)
	fmt.Fprintln(tw, "ID\tFROM\tTO\tTYPE\tSTATE\tTITLE")
	for _, m := range ms {
		st := string(m.State)
		if m.Reason != "" {
			st += "(" + m.Reason + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, cell(m.Sender, 0), cell(m.Receiver, 0), m.Type, cell(st, 0), cell(m.Title, 50))
	}
	return tw.Flush()
}

// mailView is `office mail show --json`.
type mailView struct {
	inbox.Mail
	Text     string                `json:"text"`
	Timeline []inbox.TimelineEntry `json:"timeline"`
}

func newMailShowCmd(e *env, g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show ID",
		Short: "one mail: state, reason, text and timeline",
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return mailShow(c.Context(), e, g, args[0], asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func mailShow(ctx context.Context, e *env, g *globals, id string, asJSON bool) error {
	svc, s, _, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	// The server's "mail.show" is the same body (it cuts what it sends).
	shown, err := engine.ShowMail(ctx, svc, id)
	if err != nil {
		return inboxErr(fmt.Errorf("mail show: %w", err))
	}
	m, tl, text := shown.Mail, shown.Timeline, shown.Text
	if shown.Purged {
		text = "(text purged)"
	}
	if asJSON {
		return printJSON(e, mailView{Mail: m, Text: text, Timeline: tl})
	}
	st := string(m.State)
	if m.Reason != "" {
		st += " (" + m.Reason + ")"
	}
	fmt.Fprintf(e.stdout, "id: %s\nfrom: %s\nto: %s\ntype: %s\ntitle: %s\nstate: %s\n", m.ID, cell(m.Sender, 0), cell(m.Receiver, 0), m.Type, cell(m.Title, 0), cell(st, 0))
	if m.InReplyTo != "" {
		fmt.Fprintf(e.stdout, "in reply to: %s\n", m.InReplyTo)
	}
	deadline := "the office's mail_timeout" // sent without --deadline
	if m.Deadline > 0 {
		deadline = m.Deadline.String()
	}
	fmt.Fprintf(e.stdout, "deadline: %s after it goes working\n\n%s\n\ntimeline:\n", deadline, safeText(text))
	for _, t := range tl {
		fmt.Fprintf(e.stdout, "  %s  %-9s %s\n", t.At.Local().Format("2006-01-02 15:04:05"), t.State, cell(t.Detail, 0))
	}
	return nil
}

func newMailCancelCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel ID",
		Short: "cancel queued or claimed mail (its sender or the person)",
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return mailCancel(c.Context(), e, g, args[0])
		},
	}
}

func mailCancel(ctx context.Context, e *env, g *globals, id string) error {
	svc, s, dir, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	by, err := sender(ctx, e, s)
	if err != nil {
		return err
	}
	// No server op cancels mail: engine.CancelMail is its one body.
	c, err := engine.CancelMail(ctx, svc, by, id)
	if err != nil {
		return inboxErr(fmt.Errorf("mail cancel: %w", err))
	}
	engine.Poke(dir)
	if c.Host != "" {
		fmt.Fprintf(e.stdout, "cancel of %s stored for host %s\n", id, c.Host)
		fmt.Fprintf(e.stderr, "office: the mail is on host %s: cancelled there unless already typed in (then you are told); office mail show %s follows it\n", c.Host, id)
		return nil
	}
	fmt.Fprintf(e.stdout, "cancelled %s\n", id)
	return nil
}
