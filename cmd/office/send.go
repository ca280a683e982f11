package main

// send.go is `office send AGENT TEXT...|-`: queue a message for an agent and
// print its id. With --id KEY a retry of the same send (after a crash, a
// kill, a lost answer) stores nothing and prints the first id.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"office/cluster"
	"office/engine"
	"office/inbox"
	"office/queue"
	"office/wire"
)

func newSendCmd(e *env, g *globals) *cobra.Command {
	var key string
	c := &cobra.Command{
		Use:   "send AGENT TEXT...|-",
		Short: "queue a message for an agent (TEXT, or stdin with -); prints its id",
		Long: `Queue a message for an agent; prints its id once it is stored durably.
TEXT is the arguments joined by spaces, or stdin for a lone "-". Every body is
at most 1 MiB of valid UTF-8 with something left to type once control
characters are removed. Put "--" before a text that starts with "-".
Unknown agent or bad text: exit 2, nothing written.`,
		Example: `  office send builder "run the tests"
  git diff | office send reviewer -
  office send --id deploy-42 builder "deploy"   # a retry prints the same id
  office send builder -- --help is literal text`,
		Args:              sendArgs,
		ValidArgsFunction: completeAgent(e, g),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkKeyFlag(c, key); err != nil {
				return err
			}
			return send(c.Context(), e, g, args[0], args[1:], key)
		},
	}
	c.Flags().StringVar(&key, "id", "", "idempotency key: a second send with the same key stores nothing and prints the first id")
	return c
}

// sendUsage is how send is called, said when an argument is missing.
const sendUsage = "office send AGENT TEXT..., or - to read it from stdin"

// sendArgs refuses a send without an agent or a text, saying what is
// missing rather than counting arguments.
func sendArgs(c *cobra.Command, args []string) error {
	switch len(args) {
	case 0:
		return usagef("%s: no agent and no message text (%s)", c.CommandPath(), sendUsage)
	case 1:
		return usagef("%s: no message text (%s)", c.CommandPath(), sendUsage)
	}
	return nil
}

func send(ctx context.Context, e *env, g *globals, agent string, args []string, key string) error {
	text, err := bodyArg(e, "message", args)
	if err != nil {
		return err
	}
	s, dir, err := openStore(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	if m, host, ok, err := remoteOf(ctx, e, g, s, agent); err != nil || ok {
		if err != nil {
			return err
		}
		it := cluster.Item{Kind: cluster.KindSend, From: inbox.Person, FromHost: host, To: agent, ToHost: m.Host, Text: text}
		return stashRemote(ctx, e, dir, s, it, key, queue.Fingerprint("message", agent, text))
	}
	// The server's "enqueue" does the same (engine.Enqueue).
	id, err := engine.Enqueue(ctx, s, agent, text, queue.EnqueueOptions{Source: "send", Key: key})
	var dup *queue.DuplicateError
	var used *queue.KeyUsedError
	switch {
	case errors.As(err, &used):
		fmt.Fprintf(e.stderr, "office: not queued again: %v\n", used)
		fmt.Fprintln(e.stdout, used.ExistingID)
		return nil
	case errors.As(err, &dup):
		fmt.Fprintf(e.stderr, "office: not queued again: %v\n", dup)
		fmt.Fprintln(e.stdout, dup.ExistingID)
		return nil
	case errors.Is(err, queue.ErrUnknownAgent):
		known, lerr := rosterNames(ctx, s)
		if lerr != nil {
			return fmt.Errorf("send to %q: %w", agent, err)
		}
		return fmt.Errorf("send to %q: %w (the office's agents: %s)", agent, err, nameList(known))
	case err != nil:
		return fmt.Errorf("send to %q: %w", agent, err)
	}
	engine.Poke(dir)
	fmt.Fprintln(e.stdout, id)
	warnExited(ctx, e, dir, agent, id)
	return nil
}

// exitedAsk bounds the status question warnExited asks the running server.
const exitedAsk = time.Second

// warnExited tells the person, on stderr, that the message just queued for
// agent waits for an agent whose process has exited: it is typed only once
// the agent runs again (its restart policy, or a restart from the UI). With
// no office running, or no answer in exitedAsk, it says nothing; a server
// process that is stopped (SIGSTOP) is named, since nothing is typed until
// it runs again.
func warnExited(ctx context.Context, e *env, dir, agent string, id int64) {
	if !engine.Running(dir) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, exitedAsk)
	defer cancel()
	st, err := engine.Do(ctx, dir, wire.OpStatus, "", wire.None{})
	if err != nil {
		if errors.Is(err, engine.ErrStopped) {
			fmt.Fprintf(e.stderr, "office: message %d is queued; %v\n", id, err)
		}
		return
	}
	for _, a := range st {
		if a.Name != agent || a.Status != wire.StatusExited {
			continue
		}
		how := "exited"
		switch {
		case a.Error != "":
			how = "could not start (" + a.Error + ")"
		case a.ExitCode != nil:
			how = fmt.Sprintf("exited with code %d", *a.ExitCode)
		}
		fmt.Fprintf(e.stderr, "office: %s %s: message %d waits until it runs again (its restart policy, or prefix R in the UI)\n", agent, how, id)
	}
}

// checkKeyFlag refuses an --id that was given but cannot be a key (blank,
// too long, controls).
func checkKeyFlag(c *cobra.Command, key string) error {
	if !c.Flags().Changed("id") {
		return nil
	}
	if err := queue.CheckKey(key); err != nil {
		return &inputError{fmt.Errorf("--id: %w", err)}
	}
	return nil
}
