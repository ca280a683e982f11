package main

// inbox.go is `office inbox`: the undelivered inbox items of an agent or of
// the person (mail, notices, forwarded dialogs), and one item whole. It only
// reads the store (with --read it marks the person's items read), so it
// works with no office running. It also holds the helpers the inbox
// commands share (mail, report).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"office/engine"
	"office/inbox"
	"office/queue"
)

// openInbox opens the store and the inbox layer on it. Inside an office
// agent (OFFICE_AGENT set) with no --config, the registry the engine wrote
// is the truth and the embedded default's agents are not registered.
func openInbox(ctx context.Context, e *env, g *globals) (*inbox.Service, *queue.Store, string, error) {
	var s *queue.Store
	var dir string
	var err error
	if g.config == "" && e.getenv("OFFICE_AGENT") != "" {
		if dir, err = stateDir(g, e); err != nil {
			return nil, nil, "", err
		}
		if s, err = queue.Open(filepath.Join(dir, engine.StoreFile), queue.Options{}); err != nil {
			return nil, nil, "", err
		}
	} else if s, dir, err = openStore(ctx, e, g); err != nil {
		return nil, nil, "", err
	}
	svc, err := inbox.Open(ctx, s, inbox.Options{})
	if err != nil {
		s.Close()
		return nil, nil, "", err
	}
	return svc, s, dir, nil
}

// caller is who runs the command: OFFICE_AGENT, else the person.
func caller(e *env) string {
	if a := strings.TrimSpace(e.getenv("OFFICE_AGENT")); a != "" {
		return a
	}
	return inbox.Person
}

// flagSet parses "--name value" and "--name=value" options out of args for
// the names given (value flags) and bools (boolean flags), returning the
// positional rest in order.
type flagSet struct {
	values map[string]string
	bools  map[string]bool
}

func parseFlags(cmd string, args []string, valueNames, boolNames []string) (*flagSet, []string, error) {
	fs := &flagSet{values: map[string]string{}, bools: map[string]bool{}}
	isValue := map[string]bool{}
	for _, n := range valueNames {
		isValue[n] = true
	}
	isBool := map[string]bool{}
	for _, n := range boolNames {
		isBool[n] = true
	}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || a == "--" {
			rest = append(rest, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case isBool[name] && !hasVal:
			fs.bools[name] = true
		case isValue[name] && hasVal:
			fs.values[name] = val
		case isValue[name]:
			if i+1 >= len(args) {
				return nil, nil, usagef("office %s: %s needs a value", cmd, name)
			}
			fs.values[name] = args[i+1]
			i++
		default:
			return nil, nil, usagef("office %s: unknown flag %s", cmd, name)
		}
	}
	return fs, rest, nil
}

// textArg joins args as the text, or reads stdin for a lone "-".
func textArg(e *env, args []string) (string, error) {
	if len(args) == 1 && args[0] == "-" {
		// One byte over the limit is enough for the store to refuse it.
		b, err := io.ReadAll(io.LimitReader(e.stdin, inbox.MaxBodyBytes+1))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return string(b), nil
	}
	return strings.Join(args, " "), nil
}

// printJSON writes v indented.
func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runInbox(ctx context.Context, e *env, g *globals, args []string) error {
	fs, rest, err := parseFlags("inbox", args, nil, []string{"--person", "--json", "--read", "--all"})
	if err != nil {
		return err
	}
	if len(rest) == 2 && rest[0] == "show" {
		svc, s, _, err := openInbox(ctx, e, g)
		if err != nil {
			return err
		}
		defer s.Close()
		it, err := svc.GetItem(ctx, rest[1])
		if err != nil {
			return fmt.Errorf("inbox show: %w", err)
		}
		if fs.bools["--json"] {
			return printJSON(e, it)
		}
		fmt.Fprintf(e.stdout, "id: %s\nfrom: %s\nto: %s\nkind: %s\nstate: %s\nsent: %s\n\n%s\n", it.ID, orSystem(it.Sender), it.Receiver,
			it.Kind, it.State, it.Created.UTC().Format(inbox.SentAtLayout), it.Body)
		return nil
	}
	receiver := ""
	switch {
	case fs.bools["--person"] && len(rest) == 0:
		receiver = inbox.Person
	case !fs.bools["--person"] && len(rest) == 1:
		receiver = rest[0]
	case !fs.bools["--person"] && len(rest) == 0:
		receiver = caller(e)
	default:
		return usagef("usage: office inbox [AGENT | --person] [--all] [--json] [--read] | office inbox show ID")
	}
	svc, s, _, err := openInbox(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	if receiver != inbox.Person {
		if _, err := s.Agent(ctx, receiver); err != nil {
			return fmt.Errorf("inbox: %w", err)
		}
	}
	states := []string{inbox.StatePending, inbox.StateLeased}
	if fs.bools["--all"] {
		states = append(states, inbox.StateDelivered, inbox.StateDead)
	}
	its, err := svc.Items(ctx, receiver, states...)
	if err != nil {
		return err
	}
	if fs.bools["--json"] {
		if its == nil {
			its = []inbox.Item{}
		}
		if err := printJSON(e, its); err != nil {
			return err
		}
	} else if len(its) == 0 {
		fmt.Fprintf(e.stdout, "no inbox items for %s\n", receiver)
	} else {
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tFROM\tKIND\tSTATE\tSENT\tTEXT")
		for _, it := range its {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.ID, orSystem(it.Sender), it.Kind, it.State,
				it.Created.Local().Format("15:04:05"), oneLine(it.Body, 70))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if fs.bools["--read"] && receiver == inbox.Person && len(its) > 0 {
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
