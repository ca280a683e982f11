package main

// queue.go is `office queue`: the queued messages with why each is held, and
// its subcommands release, rm and clear that edit the queue.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"office/engine"
	"office/inbox"
	"office/queue"
)

func newQueueCmd(e *env, g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "queue [AGENT]",
		Short: "list queued messages with why each is held, or edit the queue (release, rm, clear)",
		Long: `List the queued messages, oldest first, with age, attempts, last error and why
each is held (the words of 'office status'); of one agent with AGENT.`,
		Args:              argsBetween(0, 1),
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			agent := optionalArg(args)
			return listQueue(c.Context(), e, g, agent, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	edit := func(use, short string, fn func(ctx context.Context, s *queue.Store, dir string, id int64) error) *cobra.Command {
		return &cobra.Command{
			Use:               use + " ID",
			Short:             short,
			Args:              exactArgs(1),
			ValidArgsFunction: completeMessageID(e, g),
			RunE: func(c *cobra.Command, args []string) error {
				id, err := strconv.ParseInt(args[0], 10, 64)
				if err != nil {
					return usagef("office queue %s: %q is not a message id", use, args[0])
				}
				s, dir, err := openStore(c.Context(), e, g)
				if err != nil {
					return err
				}
				defer s.Close()
				if err := fn(c.Context(), s, dir, id); errors.Is(err, queue.ErrInFlight) {
					if !engine.Running(dir) {
						// No drain types it: the last stop left it in
						// flight, and the next start settles it.
						return fmt.Errorf("queue %s %d: the office stopped while typing message %d; the next start settles it from the agent's records ('office start'), then it can be released", use, id, id)
					}
					// The store's words are about its row; say it of the message.
					return fmt.Errorf("queue %s %d: message %d is %w", use, id, id, queue.ErrInFlight)
				} else if err != nil {
					return fmt.Errorf("queue %s %d: %w", use, id, err)
				}
				engine.Poke(dir)
				return nil
			},
		}
	}
	c.AddCommand(
		edit("release", "send a held message now (ignores the pause only; types an interrupted one again)",
			func(ctx context.Context, s *queue.Store, _ string, id int64) error { return s.Release(ctx, id) }),
		edit("rm", "remove one queued message (one being typed now: what was typed stays on the prompt, not submitted)",
			func(ctx context.Context, s *queue.Store, dir string, id int64) error {
				// A held inbox delivery's items are done with it, in the
				// removal's transaction (as the server's "queue.rm").
				svc, err := inbox.Open(ctx, s, inbox.Options{})
				if err != nil {
					return err
				}
				m, err := engine.RemoveQueued(ctx, s, svc, id)
				if err != nil {
					return err
				}
				if engine.Running(dir) {
					warnTyping(e, m)
				}
				return nil
			}),
		&cobra.Command{
			Use:               "clear AGENT",
			Short:             "remove every queued message of an agent (one being typed now: as rm)",
			Args:              exactArgs(1),
			ValidArgsFunction: completeAgent(e, g),
			RunE: func(c *cobra.Command, args []string) error {
				return clearQueue(c.Context(), e, g, args[0])
			},
		},
	)
	return c
}

func clearQueue(ctx context.Context, e *env, g *globals, agent string) error {
	s, dir, err := openStore(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	// The server's "queue.clear" is the same body; gone is what each
	// message was when it went.
	gone, n, err := engine.ClearQueue(ctx, s, agent)
	if err != nil {
		// An unknown agent says the office's agents; any other error
		// reads "queue clear AGENT: ...".
		return agentErr(ctx, s, "queue clear "+agent, agent, err)
	}
	engine.Poke(dir)
	fmt.Fprintf(e.stdout, "cleared %d message(s) for %s\n", n, agent)
	if engine.Running(dir) {
		for _, m := range gone {
			warnTyping(e, m)
		}
	}
	return nil
}

// queueRow is one message as `office queue --json` prints it.
type queueRow struct {
	ID         int64     `json:"id"`
	Agent      string    `json:"agent"`
	Text       string    `json:"text"`
	Created    time.Time `json:"created"`
	AgeSeconds float64   `json:"age_seconds"`
	Attempts   int       `json:"attempts"`
	LastError  string    `json:"last_error,omitempty"`
	Manual     bool      `json:"manual"`
	Held       string    `json:"held"`
	// Evidence is what is known of the message's delivery (a message set
	// aside after a stop: why no evidence settled it).
	Evidence string `json:"evidence,omitempty"`
}

func listQueue(ctx context.Context, e *env, g *globals, agent string, asJSON bool) error {
	s, dir, err := openStore(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	if agent != "" {
		if _, err := s.Agent(ctx, agent); err != nil {
			return agentErr(ctx, s, "queue "+agent, agent, err)
		}
	}
	rows, err := queueRows(ctx, s, dir, agent)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "no queued messages")
		return printRefused(ctx, e, s, agent)
	}
	tw := newTable(e.stdout)
	fmt.Fprintln(tw, "ID\tAGENT\tAGE\tATTEMPTS\tHELD\tTEXT")
	for _, r := range rows {
		held := r.Held
		if r.Evidence != "" {
			held += " (" + r.Evidence + ")"
		}
		if r.LastError != "" {
			held += " (last error: " + r.LastError + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", r.ID, cell(r.Agent, 0), age(time.Duration(r.AgeSeconds*float64(time.Second))),
			r.Attempts, cell(held, 0), cell(r.Text, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printRefused(ctx, e, s, agent)
}

// queueRows lists messages with the reason each is held: the running engine's
// recorded hold for the head, "delivering" for a head the drain is typing,
// "next" for one nothing holds that it has not begun, "queued" behind it,
// "paused", or "office not running" when no engine runs.
func queueRows(ctx context.Context, s *queue.Store, dir, agent string) ([]queueRow, error) {
	stored, err := s.Holds(ctx)
	if err != nil {
		return nil, err
	}
	holds := map[string]string{}
	for a, h := range stored {
		holds[a] = h.Reason
	}
	// The server's "queue.list" does the same, with its live holds.
	msgs, labels, err := engine.QueueListing(ctx, s, agent, holds, engine.Running(dir))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	rows := make([]queueRow, 0, len(msgs))
	for i, m := range msgs {
		rows = append(rows, queueRow{ID: m.ID, Agent: m.Agent, Text: m.Text, Created: m.Created, AgeSeconds: now.Sub(m.Created).Seconds(),
			Attempts: m.Attempts, LastError: m.LastError, Manual: m.Manual, Evidence: m.Evidence, Held: labels[i]})
	}
	return rows, nil
}

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// completeMessageID completes a queued message's id from the state
// directory's queue, each with its agent and the start of its text; nothing
// (and no file names) when there is no store yet. It only reads: no state
// directory, store, -wal or -shm file is created, no schema migrated (a
// store that needs it completes nothing), no agent registered, and a busy
// store is given up on after readOnlyWait.
func completeMessageID(e *env, g *globals) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		dir, err := engine.StateDir(g.state, e.getenv)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		s, err := queue.OpenReadOnly(filepath.Join(dir, engine.StoreFile), readOnlyWait)
		if err != nil { // none yet, busy, or needing a migration: no completions
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer s.Close()
		msgs, err := s.List(c.Context(), "")
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, m := range msgs {
			id := strconv.FormatInt(m.ID, 10)
			if strings.HasPrefix(id, toComplete) {
				out = append(out, cobra.CompletionWithDesc(id, m.Agent+": "+completionPreview(m.Text)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completionPreview is the first line of text, at most 40 runes, with
// control characters and tabs (which end a completion's description) made
// spaces.
func completionPreview(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	r := []rune(line)
	if len(r) > 40 {
		r = append(r[:39], '…')
	}
	for i, c := range r {
		if c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0 {
			r[i] = ' '
		}
	}
	return string(r)
}

// warnTyping tells the person, on stderr, what removing m meant when the
// drain had begun it (m as it was in the transaction that removed it): one
// being typed, not yet entered, is never submitted (the drain finds it gone
// before its Enter), so what was typed stays on the prompt; one whose Enter
// was under way may have reached the agent. A message only queued, or one
// interrupted by a stop, says nothing.
func warnTyping(e *env, m queue.Message) {
	switch {
	case m.Interrupted || m.Writing.IsZero():
	case m.Entered.IsZero():
		fmt.Fprintf(e.stderr, "office: message %d was being typed into %s: what was typed stays on its prompt, not submitted (clear it there)\n", m.ID, m.Agent)
	default:
		fmt.Fprintf(e.stderr, "office: message %d was being submitted to %s: it may have reached the agent\n", m.ID, m.Agent)
	}
}
