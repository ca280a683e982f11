package main

// store.go holds the commands that only touch the durable store: send, queue,
// pause and resume. They work whether or not an office is running, and poke
// its socket afterwards so a running drain looks at once.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"office/engine"
	"office/queue"
)

// openStore opens the state dir's store and registers the config's agents, so
// a name from the config is known even before the office first ran.
func openStore(ctx context.Context, e *env, g *globals) (*queue.Store, string, error) {
	cfg, _, err := loadConfig(g, e)
	if err != nil {
		return nil, "", err
	}
	dir, err := stateDir(g, e)
	if err != nil {
		return nil, "", err
	}
	if err := engine.EnsureStateDir(dir); err != nil {
		return nil, "", err
	}
	s, err := queue.Open(filepath.Join(dir, engine.StoreFile), queue.Options{})
	if err != nil {
		return nil, "", err
	}
	if err := s.EnsureAgents(ctx, agentNames(cfg)); err != nil {
		s.Close()
		return nil, "", err
	}
	return s, dir, nil
}

func runSend(ctx context.Context, e *env, g *globals, args []string) error {
	if len(args) < 2 {
		return usagef("usage: office send AGENT TEXT... (or - to read the text from stdin)")
	}
	agent := args[0]
	var text string
	if len(args) == 2 && args[1] == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return fmt.Errorf("send: read stdin: %w", err)
		}
		text = string(b)
	} else {
		text = strings.Join(args[1:], " ")
	}
	s, dir, err := openStore(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	id, err := s.Enqueue(ctx, agent, text, queue.EnqueueOptions{Source: "send"})
	var dup *queue.DuplicateError
	if errors.As(err, &dup) {
		fmt.Fprintf(e.stderr, "office: not queued again: %v\n", dup)
		fmt.Fprintln(e.stdout, dup.ExistingID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("send to %q: %w", agent, err)
	}
	engine.Poke(dir)
	fmt.Fprintln(e.stdout, id)
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

func runQueue(ctx context.Context, e *env, g *globals, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "release", "rm":
			if len(args) != 2 {
				return usagef("usage: office queue %s ID", args[0])
			}
			id, err := strconv.ParseInt(args[1], 10, 64)
			if err != nil {
				return usagef("office queue %s: %q is not a message id", args[0], args[1])
			}
			s, dir, err := openStore(ctx, e, g)
			if err != nil {
				return err
			}
			defer s.Close()
			if args[0] == "release" {
				err = s.Release(ctx, id)
			} else {
				err = s.Remove(ctx, id, "removed by the person")
			}
			if err != nil {
				return fmt.Errorf("queue %s %d: %w", args[0], id, err)
			}
			engine.Poke(dir)
			return nil
		case "clear":
			if len(args) != 2 {
				return usagef("usage: office queue clear AGENT")
			}
			s, dir, err := openStore(ctx, e, g)
			if err != nil {
				return err
			}
			defer s.Close()
			if _, err := s.Agent(ctx, args[1]); err != nil {
				return fmt.Errorf("queue clear: %w", err)
			}
			n, err := s.Clear(ctx, args[1])
			if err != nil {
				return fmt.Errorf("queue clear %s: %w", args[1], err)
			}
			engine.Poke(dir)
			fmt.Fprintf(e.stdout, "cleared %d message(s) for %s\n", n, args[1])
			return nil
		}
	}
	args, asJSON := takeFlag(args, "--json")
	if err := rejectFlags("queue", args); err != nil {
		return err
	}
	if len(args) > 1 {
		return usagef("usage: office queue [AGENT] [--json]")
	}
	agent := ""
	if len(args) == 1 {
		agent = args[0]
	}
	s, dir, err := openStore(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	if agent != "" {
		if _, err := s.Agent(ctx, agent); err != nil {
			return fmt.Errorf("queue: %w", err)
		}
	}
	rows, err := queueRows(ctx, s, dir, agent)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "no queued messages")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAGENT\tAGE\tATTEMPTS\tHELD\tTEXT")
	for _, r := range rows {
		held := r.Held
		if r.Evidence != "" {
			held += " (" + r.Evidence + ")"
		}
		if r.LastError != "" {
			held += " (last error: " + r.LastError + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Agent, age(time.Duration(r.AgeSeconds*float64(time.Second))), r.Attempts, held, oneLine(r.Text, 60))
	}
	return tw.Flush()
}

// queueRows lists messages with the reason each is held: the running engine's
// recorded hold for the head, "queued" behind it, "paused" or "office not
// running" when no engine runs.
func queueRows(ctx context.Context, s *queue.Store, dir, agent string) ([]queueRow, error) {
	msgs, err := s.List(ctx, agent)
	if err != nil {
		return nil, err
	}
	holds, err := s.Holds(ctx)
	if err != nil {
		return nil, err
	}
	running := engine.Running(dir)
	now := time.Now()
	rows := make([]queueRow, 0, len(msgs))
	heads := map[string]bool{}
	for _, m := range msgs {
		r := queueRow{ID: m.ID, Agent: m.Agent, Text: m.Text, Created: m.Created, AgeSeconds: now.Sub(m.Created).Seconds(),
			Attempts: m.Attempts, LastError: m.LastError, Manual: m.Manual, Evidence: m.Evidence}
		agentPaused, floorPaused, err := s.Paused(ctx, m.Agent)
		if err != nil {
			return nil, err
		}
		head := !heads[m.Agent] && !m.SetAside
		heads[m.Agent] = heads[m.Agent] || !m.SetAside
		switch {
		case m.SetAside:
			r.Held = "set aside"
		case m.Interrupted:
			r.Held = "interrupted"
		case running && head && holds[m.Agent].Reason != "":
			r.Held = holds[m.Agent].Reason
		case (agentPaused || floorPaused) && !m.Manual:
			r.Held = "paused"
		case !running:
			r.Held = "office not running"
		case head:
			r.Held = "delivering"
		default:
			r.Held = "queued"
		}
		rows = append(rows, r)
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

func oneLine(s string, max int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	r := []rune(s)
	if len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func runPause(ctx context.Context, e *env, g *globals, args []string) error {
	return setPause(ctx, e, g, args, true)
}

func runResume(ctx context.Context, e *env, g *globals, args []string) error {
	return setPause(ctx, e, g, args, false)
}

func setPause(ctx context.Context, e *env, g *globals, args []string, paused bool) error {
	verb := "resume"
	if paused {
		verb = "pause"
	}
	if len(args) != 1 {
		return usagef("usage: office %s AGENT | --all", verb)
	}
	s, dir, err := openStore(ctx, e, g)
	if err != nil {
		return err
	}
	defer s.Close()
	switch {
	case args[0] == "--all" && paused:
		err = s.SetFloorPaused(ctx, true)
	case args[0] == "--all":
		err = s.ResumeAll(ctx)
	case strings.HasPrefix(args[0], "-"):
		return usagef("office %s: unknown flag %s", verb, args[0])
	default:
		err = s.SetPaused(ctx, args[0], paused)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", verb, args[0], err)
	}
	engine.Poke(dir)
	return nil
}

// lookPathIn returns a PATH lookup over path (not the process's PATH variable,
// so tests can pass their own).
func lookPathIn(path string) func(string) (string, error) {
	return func(prog string) (string, error) {
		if strings.Contains(prog, "/") {
			if st, err := os.Stat(prog); err == nil && !st.IsDir() {
				return prog, nil
			}
			return "", fmt.Errorf("%s: not found", prog)
		}
		for _, dir := range filepath.SplitList(path) {
			if dir == "" {
				continue
			}
			p := filepath.Join(dir, prog)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s: not found on PATH", prog)
	}
}
