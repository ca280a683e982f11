package main

// mail.go is `office mail`: send, reply, ls, show and cancel mail between
// agents and the person. The sender is the agent named by OFFICE_AGENT, or
// the person. The system owns each envelope's state (queued, claimed,
// working, done, failed, cancelled); these commands only write the store and
// poke a running office, so they work with no office running.

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"office/engine"
	"office/inbox"
)

const mailUsage = `usage:
  office mail send --to AGENT [--request] [--title T] [--deadline 45m] TEXT...|-   prints the new mail's id
  office mail reply ID TEXT...|-                                                  answer a request (inform mail to its sender)
  office mail ls [STATE] [--json]                                                 STATE: queued claimed working done failed cancelled
  office mail show ID [--json]                                                    state, reason, text and timeline
  office mail cancel ID                                                           cancel queued or claimed mail (its sender or the person)`

func runMail(ctx context.Context, e *env, g *globals, args []string) error {
	if len(args) == 0 {
		return usagef("%s", mailUsage)
	}
	switch args[0] {
	case "send":
		return mailSend(ctx, e, g, args[1:])
	case "reply":
		return mailReply(ctx, e, g, args[1:])
	case "ls", "list":
		return mailList(ctx, e, g, args[1:])
	case "show":
		return mailShow(ctx, e, g, args[1:])
	case "cancel":
		return mailCancel(ctx, e, g, args[1:])
	}
	return usagef("office mail: unknown subcommand %q\n%s", args[0], mailUsage)
}

func mailSend(ctx context.Context, e *env, g *globals, args []string) error {
	fs, rest, err := parseFlags("mail send", args, []string{"--to", "--title", "--deadline"}, []string{"--request"})
	if err != nil {
		return err
	}
	to := fs.values["--to"]
	if to == "" || len(rest) == 0 {
		return usagef("%s", mailUsage)
	}
	var deadline time.Duration
	if d, ok := fs.values["--deadline"]; ok {
		if deadline, err = time.ParseDuration(d); err != nil || deadline <= 0 {
			return usagef("office mail send: --deadline %q is not a positive duration (e.g. 45m)", d)
		}
	}
	text, err := textArg(e, rest)
	if err != nil {
		return err
	}
	title := fs.values["--title"]
	if strings.TrimSpace(title) == "" {
		title = oneLine(strings.TrimSpace(text), 60)
	}
	svc, s, dir, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	id, err := svc.SendMail(ctx, inbox.MailRequestArgs{To: to, From: caller(e), Title: title, Text: text,
		Request: fs.bools["--request"], Deadline: deadline})
	if err != nil {
		return inboxErr(fmt.Errorf("mail send: %w", err))
	}
	engine.Poke(dir)
	fmt.Fprintln(e.stdout, id)
	fmt.Fprintf(e.stderr, "office: mail %s to %s stored (delivered when %s can take it)\n", id, to, to)
	return nil
}

func mailReply(ctx context.Context, e *env, g *globals, args []string) error {
	if err := rejectFlags("mail reply", args); err != nil {
		return err
	}
	if len(args) < 2 {
		return usagef("%s", mailUsage)
	}
	text, err := textArg(e, args[1:])
	if err != nil {
		return err
	}
	svc, s, dir, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	id, err := svc.Reply(ctx, caller(e), args[0], text)
	if err != nil {
		return inboxErr(fmt.Errorf("mail reply: %w", err))
	}
	engine.Poke(dir)
	fmt.Fprintln(e.stdout, id)
	fmt.Fprintf(e.stderr, "office: reply %s stored\n", id)
	return nil
}

func mailList(ctx context.Context, e *env, g *globals, args []string) error {
	fs, rest, err := parseFlags("mail ls", args, nil, []string{"--json"})
	if err != nil {
		return err
	}
	state := ""
	switch {
	case len(rest) == 1 && inbox.ValidMailState(rest[0]):
		state = strings.ToLower(rest[0])
	case len(rest) > 0:
		return usagef("%s", mailUsage)
	}
	svc, s, _, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	ms, err := svc.ListMail(ctx, state)
	if err != nil {
		return err
	}
	if fs.bools["--json"] {
		if ms == nil {
			ms = []inbox.Mail{}
		}
		return printJSON(e, ms)
	}
	if len(ms) == 0 {
		fmt.Fprintln(e.stdout, "no mail")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFROM\tTO\tTYPE\tSTATE\tTITLE")
	for _, m := range ms {
		st := m.State
		if m.Reason != "" {
			st += "(" + m.Reason + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.Sender, m.Receiver, m.Type, st, oneLine(m.Title, 50))
	}
	return tw.Flush()
}

// mailView is `office mail show --json`.
type mailView struct {
	inbox.Mail
	Text     string                `json:"text"`
	Timeline []inbox.TimelineEntry `json:"timeline"`
}

func mailShow(ctx context.Context, e *env, g *globals, args []string) error {
	fs, rest, err := parseFlags("mail show", args, nil, []string{"--json"})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("%s", mailUsage)
	}
	svc, s, _, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	m, tl, err := svc.GetMail(ctx, rest[0])
	if err != nil {
		return inboxErr(fmt.Errorf("mail show: %w", err))
	}
	text, err := svc.MailBody(ctx, m.ID)
	if err != nil {
		text = "(text purged)"
	}
	if fs.bools["--json"] {
		return printJSON(e, mailView{Mail: m, Text: text, Timeline: tl})
	}
	st := m.State
	if m.Reason != "" {
		st += " (" + m.Reason + ")"
	}
	fmt.Fprintf(e.stdout, "id: %s\nfrom: %s\nto: %s\ntype: %s\ntitle: %s\nstate: %s\n", m.ID, m.Sender, m.Receiver, m.Type, m.Title, st)
	if m.InReplyTo != "" {
		fmt.Fprintf(e.stdout, "in reply to: %s\n", m.InReplyTo)
	}
	deadline := "the office's mail_timeout" // sent without --deadline
	if m.Deadline > 0 {
		deadline = m.Deadline.String()
	}
	fmt.Fprintf(e.stdout, "deadline: %s after it goes working\n\n%s\n\ntimeline:\n", deadline, text)
	for _, t := range tl {
		fmt.Fprintf(e.stdout, "  %s  %-9s %s\n", t.At.Local().Format("2006-01-02 15:04:05"), t.State, t.Detail)
	}
	return nil
}

func mailCancel(ctx context.Context, e *env, g *globals, args []string) error {
	if err := rejectFlags("mail cancel", args); err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("%s", mailUsage)
	}
	svc, s, dir, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := svc.Cancel(ctx, caller(e), args[0]); err != nil {
		return inboxErr(fmt.Errorf("mail cancel: %w", err))
	}
	engine.Poke(dir)
	fmt.Fprintf(e.stdout, "cancelled %s\n", args[0])
	return nil
}
