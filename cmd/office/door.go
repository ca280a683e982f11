package main

// door.go is what every body and every sender must pass before a command
// stores anything: one size limit (queue.MaxBody) for text given as
// arguments or on stdin (read bounded, never whole), valid UTF-8, something
// left to type after the drain's sanitizer; and a sender (OFFICE_AGENT) that
// is an agent of this office. Each refusal is exit 2 and says why.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"office/drain"
	"office/inbox"
	"office/queue"
)

// bodyArg is a command's text: its arguments joined by spaces, or stdin for
// a lone "-" (see readText). what names the text in errors ("message",
// "mail", "summary"). The text passes checkBody.
func bodyArg(e *env, what string, args []string) (string, error) {
	text, err := readText(e, what, args)
	if err != nil {
		return "", err
	}
	if err := checkBody(what, text); err != nil {
		return "", err
	}
	return text, nil
}

// readText joins args by spaces, or reads stdin for a lone "-": at most
// queue.MaxBody+1 bytes are read, and more than queue.MaxBody is refused
// (an inputError) without reading the rest.
func readText(e *env, what string, args []string) (string, error) {
	if len(args) != 1 || args[0] != "-" {
		return strings.Join(args, " "), nil
	}
	b, err := io.ReadAll(io.LimitReader(e.stdin, queue.MaxBody+1))
	if err != nil {
		return "", fmt.Errorf("%s: read stdin: %w", what, err)
	}
	if len(b) > queue.MaxBody {
		return "", &inputError{fmt.Errorf("%s on stdin is larger than %d bytes (1 MiB), the limit for every body: %w", what, queue.MaxBody, queue.ErrTooLarge)}
	}
	return string(b), nil
}

// checkBody refuses (as an inputError) a text over queue.MaxBody bytes, one
// that is not valid UTF-8 (naming the byte offset), and one that is blank or
// has nothing left to type (drain.Typeable: only NULs, C1 or other
// controls, or escape sequences).
func checkBody(what, text string) error {
	if err := queue.CheckBody(text); err != nil {
		return &inputError{fmt.Errorf("%s: %w", what, err)}
	}
	switch {
	case strings.TrimSpace(text) == "":
		return &inputError{fmt.Errorf("%s text is %w", what, queue.ErrBlank)}
	case !drain.Typeable(text):
		return &inputError{fmt.Errorf("%s text is %w: nothing is left to type once escape sequences and control characters are removed", what, queue.ErrBlank)}
	}
	return nil
}

// errUnknownSender: OFFICE_AGENT names no agent of the office.
var errUnknownSender = errors.New("not an agent of this office")

// sender is who runs the command: the person when OFFICE_AGENT is unset or
// blank, else the agent it names, which must be in the office's roster (the
// store's registry: the config's agents and those `office team add` added,
// not removed). An unknown name is an inputError naming it and the agents.
func sender(ctx context.Context, e *env, s *queue.Store) (string, error) {
	name := strings.TrimSpace(e.getenv("OFFICE_AGENT"))
	if name == "" {
		return inbox.Person, nil
	}
	known, err := rosterNames(ctx, s)
	if err != nil {
		return "", err
	}
	if slices.Contains(known, name) {
		return name, nil
	}
	return "", &inputError{fmt.Errorf("OFFICE_AGENT=%s: %w (its agents: %s); unset OFFICE_AGENT to act as the person", cell(name, 40), errUnknownSender, nameList(known))}
}

// rosterNames are the store registry's agents that are not removed, in
// its order.
func rosterNames(ctx context.Context, s *queue.Store) ([]string, error) {
	agents, err := s.ListAgents(ctx)
	if err != nil {
		return nil, err
	}
	var known []string
	for _, a := range agents {
		if !a.Removed {
			known = append(known, a.Name)
		}
	}
	return known, nil
}

// maxListed bounds the names one message lists (an office runs up to
// configs.MaxAgents).
const maxListed = 20

// nameList joins names for a message, "none" when there are none, the
// first maxListed and how many more when there are more.
func nameList(names []string) string {
	switch {
	case len(names) == 0:
		return "none"
	case len(names) > maxListed:
		return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
	}
	return strings.Join(names, ", ")
}

// senderOf opens the state dir's store only to check the sender (for the
// commands that otherwise talk to the running engine alone).
func senderOf(ctx context.Context, e *env, g *globals) (string, error) {
	if strings.TrimSpace(e.getenv("OFFICE_AGENT")) == "" {
		return inbox.Person, nil
	}
	s, _, err := openRegistry(ctx, e, g)
	if err != nil {
		return "", err
	}
	defer s.Close()
	return sender(ctx, e, s)
}

// agentErr wraps err, an error about agent from the store, with what (the
// command and its argument). When err says agent is not one of the office's
// (queue.ErrUnknownAgent; an agent of another host keeps its own words), the
// message is the one `office send` gives, naming the office's agents:
// `what: unknown agent "x" (the office's agents: a, b)`, not the store's
// layers ("queue: agent: unknown agent").
func agentErr(ctx context.Context, s *queue.Store, what, agent string, err error) error {
	var elsewhere *queue.ElsewhereError
	if !errors.Is(err, queue.ErrUnknownAgent) || errors.As(err, &elsewhere) {
		return fmt.Errorf("%s: %w", what, err)
	}
	agents, lerr := s.ListAgents(ctx)
	if lerr != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	var known []string
	removed := ""
	for _, a := range agents {
		switch {
		case !a.Removed:
			known = append(known, a.Name)
		case a.Name == agent:
			removed = "removed; "
		}
	}
	return fmt.Errorf("%s: %w %q (%sthe office's agents: %s)", what, queue.ErrUnknownAgent, agent, removed, nameList(known))
}
