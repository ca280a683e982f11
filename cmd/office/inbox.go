package main

// inbox.go is `office inbox`: the undelivered inbox items of an agent or of
// the person (mail, notices, forwarded dialogs), and one item whole. It only
// reads the store (with --read it marks the person's items read), so it
// works with no office running. It also holds the helpers the inbox
// commands share (mail, report).

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"office/cluster"
	"office/engine"
	"office/inbox"
	"office/queue"
)

// openInbox opens the store (see openRegistry) and the inbox layer on it.
func openInbox(ctx context.Context, e *env, g *globals) (*inbox.Service, *queue.Store, string, error) {
	return openInboxWith(ctx, e, g, inbox.Options{})
}

// openInboxWith is openInbox with the inbox's options.
func openInboxWith(ctx context.Context, e *env, g *globals, opts inbox.Options) (*inbox.Service, *queue.Store, string, error) {
	s, dir, err := openRegistry(ctx, e, g)
	if err != nil {
		return nil, nil, "", err
	}
	svc, err := inbox.Open(ctx, s, opts)
	if err != nil {
		s.Close()
		return nil, nil, "", err
	}
	// A clustered office's mail crosses hosts from commands too (a cancel
	// of crossed mail, the state of mail that crossed here).
	if _, err := cluster.Bind(ctx, s, svc); err != nil {
		s.Close()
		return nil, nil, "", err
	}
	return svc, s, dir, nil
}

// inboxFlags are `office inbox`'s flags.
type inboxFlags struct {
	person, asJSON, read, all bool
}

func newInboxCmd(e *env, g *globals) *cobra.Command {
	var f inboxFlags
	c := &cobra.Command{
		Use:               "inbox [AGENT | --person]",
		Short:             "undelivered inbox items of an agent (default: OFFICE_AGENT) or the person",
		Args:              argsBetween(0, 1),
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			if f.person && len(args) == 1 {
				return usagef("office inbox: give AGENT or --person, not both")
			}
			agent := optionalArg(args)
			return listInbox(c.Context(), e, g, agent, f)
		},
	}
	c.Flags().BoolVar(&f.person, "person", false, "the person's inbox")
	c.Flags().BoolVar(&f.asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&f.read, "read", false, "mark the person's listed items read")
	c.Flags().BoolVar(&f.all, "all", false, "delivered and dead items too")
	var showJSON bool
	show := &cobra.Command{
		Use:   "show ID",
		Short: "one inbox item whole",
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return showItem(c.Context(), e, g, args[0], showJSON)
		},
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print JSON")
	c.AddCommand(show)
	return c
}

func showItem(ctx context.Context, e *env, g *globals, id string, asJSON bool) error {
	svc, s, _, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	// No server op shows one item: engine.InboxItem is its one body.
	it, err := engine.InboxItem(ctx, svc, id)
	if err != nil {
		return inboxErr(fmt.Errorf("inbox show: %w", err))
	}
	if asJSON {
		return printJSON(e, it)
	}
	fmt.Fprintf(e.stdout, "id: %s\nfrom: %s\nto: %s\nkind: %s\nstate: %s\nsent: %s\n\n%s\n", it.ID, cell(orSystem(it.Sender), 0), cell(it.Receiver, 0),
		it.Kind, it.State, it.Created.UTC().Format(inbox.SentAtLayout), safeText(it.Body))
	return nil
}

func listInbox(ctx context.Context, e *env, g *globals, agent string, f inboxFlags) error {
	svc, s, _, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	receiver := agent
	switch {
	case f.person:
		receiver = inbox.Person
	case agent == "":
		if receiver, err = sender(ctx, e, s); err != nil {
			return err
		}
	}
	if receiver != inbox.Person {
		if _, err := s.Agent(ctx, receiver); err != nil {
			return agentErr(ctx, s, "inbox "+receiver, receiver, err)
		}
	}
	// The server's "inbox.person" is the same body (of the person, not
	// --all).
	its, err := engine.InboxItems(ctx, svc, receiver, f.all)
	if err != nil {
		return err
	}
	switch {
	case f.asJSON:
		if its == nil {
			its = []inbox.Item{}
		}
		if err := printJSON(e, its); err != nil {
			return err
		}
	case len(its) == 0:
		fmt.Fprintf(e.stdout, "no inbox items for %s\n", receiver)
	default:
		tw := newTable(e.stdout)
		fmt.Fprintln(tw, "ID\tFROM\tKIND\tSTATE\tSENT\tTEXT")
		for _, it := range its {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.ID, cell(orSystem(it.Sender), 0), it.Kind, it.State,
				it.Created.Local().Format("15:04:05"), cell(it.Body, 70))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if f.read && receiver == inbox.Person && len(its) > 0 {
		if _, err := svc.MarkRead(ctx, its[len(its)-1].Seq); err != nil {
			return err
		}
	}
	return nil
}

// inboxErr marks the inbox's input errors (unknown receiver, blank or huge
// body, unknown id, not allowed, final state) for exit code 2.
func inboxErr(err error) error {
	for _, s := range []error{inbox.ErrUnknownReceiver, inbox.ErrBlankBody, inbox.ErrTooLarge, inbox.ErrNotFound, inbox.ErrNotAllowed, inbox.ErrFinal} {
		if errors.Is(err, s) {
			return &inputError{err}
		}
	}
	return err
}

func orSystem(s string) string {
	if s == "" {
		return inbox.System
	}
	return s
}
