package main

// report.go is `office report`: an agent records the outcome of its current
// turn (success, partial, failed, blocked) with an optional summary; its
// parent's notice for the turn carries it. Store-only.

import (
	"context"
	"fmt"
	"strings"

	"office/inbox"
)

func runReport(ctx context.Context, e *env, g *globals, args []string) error {
	if len(args) < 1 || !inbox.ValidReport(args[0]) {
		return usagef("usage: office report success|partial|failed|blocked [SUMMARY...]")
	}
	agent := strings.TrimSpace(e.getenv("OFFICE_AGENT"))
	if agent == "" {
		return usagef("office report: run it from an agent of the office (OFFICE_AGENT is not set)")
	}
	summary, err := textArg(e, args[1:])
	if err != nil {
		return err
	}
	svc, s, _, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := svc.SetReport(ctx, agent, args[0], summary); err != nil {
		return inboxErr(err)
	}
	fmt.Fprintf(e.stdout, "reported %s for %s\n", args[0], agent)
	return nil
}
