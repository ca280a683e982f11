package engine

// notify_sinks.go delivers an Alert to the sinks the [notify] table names:
// every attached client's terminal (a live "alert" event each client turns
// into its own terminal's notification), a command (run with a timeout,
// never through a shell) and a URL (an HTTP POST of a small JSON document,
// retried a few times). The command and the URL each have one worker and a
// bounded queue: an alert that finds the queue full is dropped with a log
// line, so a hanging sink never holds runNotify, the drain or the server.
// A failing sink is logged once per outage (and once when it works again).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"time"

	"office/configs"
	"office/wire"
)

// Bounds of the sinks.
const (
	// sinkQueue bounds the alerts waiting for one sink.
	sinkQueue = 16
	// commandTimeout bounds one run of the notify command.
	commandTimeout = 10 * time.Second
	// webhookTimeout bounds one POST; webhookTries and webhookRetry are how
	// often and how soon (doubling) a failed POST is tried again.
	webhookTimeout = 5 * time.Second
	webhookTries   = 3
	webhookRetry   = 500 * time.Millisecond
	// maxAlertText bounds an alert's title and text in what leaves office.
	maxAlertText = 1024
	// maxSinkOutput bounds what is read of a command's output or an HTTP
	// answer (for the log).
	maxSinkOutput = 512
)

// sinks are the ways out of one office.
type sinks struct {
	e        *Engine
	terminal bool
	command  chan Alert // nil: no command sink
	url      chan Alert // nil: no URL sink
}

// newSinks starts the workers of the sinks the config names; they stop
// with ctx.
func (e *Engine) newSinks(ctx context.Context) *sinks {
	n := e.opts.Config.Notify
	s := &sinks{e: e, terminal: slices.Contains(n.Sinks, configs.SinkTerminal)}
	if slices.Contains(n.Sinks, configs.SinkCommand) && len(n.Command) > 0 {
		s.command = make(chan Alert, sinkQueue)
		w := &sinkHealth{log: e.log.With("sink", "command"), what: "the notify command"}
		go runWorker(ctx, s.command, func(a Alert) error { return runCommand(ctx, n.Command, e.opts.HostEnv, a) }, w)
	}
	if slices.Contains(n.Sinks, configs.SinkURL) && n.URL != "" {
		s.url = make(chan Alert, sinkQueue)
		w := &sinkHealth{log: e.log.With("sink", "url"), what: "the notify url"}
		hc := &http.Client{Timeout: webhookTimeout}
		clock := e.clock()
		go runWorker(ctx, s.url, func(a Alert) error { return postAlert(ctx, hc, n.URL, a, clock.After) }, w)
	}
	return s
}

// send hands a to every sink without waiting for any.
func (s *sinks) send(a Alert) {
	a.Title, a.Text = boundText(a.Title), boundText(a.Text)
	srv := s.e.serve.srv.Load()
	if srv != nil && srv.Watched(a.Agent) {
		// The person is looking at it: no sink. (Each client's terminal
		// judges for itself too, for its own focus and pane.)
		s.e.log.Info("notification not sent: its pane is watched", "agent", a.Agent, "reason", a.Reason)
		return
	}
	s.e.log.Info("notification", "agent", a.Agent, "reason", a.Reason, "folded", a.Folded)
	if s.terminal && srv != nil {
		srv.AddLive(wire.Event{At: a.At, Type: wire.EventAlert, Agent: a.Agent, Kind: a.Reason, Detail: a.Title, Text: a.Text})
	}
	for _, q := range []chan Alert{s.command, s.url} {
		if q == nil {
			continue
		}
		select {
		case q <- a:
		default:
			s.e.log.Warn("a notification sink is behind; notification dropped", "agent", a.Agent, "reason", a.Reason)
		}
	}
}

// boundText cuts s to maxAlertText bytes on a rune boundary.
func boundText(s string) string {
	if len(s) <= maxAlertText {
		return s
	}
	cut := maxAlertText
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// sinkHealth logs a sink's outage once, and its return.
type sinkHealth struct {
	log  *slog.Logger
	what string
	down bool
}

func (h *sinkHealth) result(err error) {
	switch {
	case err != nil && !h.down:
		h.down = true
		h.log.Warn(h.what+" fails; notifications through it are lost until it works again (logged once)", "err", err)
	case err == nil && h.down:
		h.down = false
		h.log.Info(h.what + " works again")
	}
}

// runWorker delivers q's alerts with do, one at a time, until ctx ends.
func runWorker(ctx context.Context, q <-chan Alert, do func(Alert) error, h *sinkHealth) {
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-q:
			h.result(do(a))
		}
	}
}

// runCommand runs argv with a's fields in place of {agent}, {host},
// {reason}, {title} and {body}, in env, for at most commandTimeout.
func runCommand(ctx context.Context, argv, env []string, a Alert) error {
	r := strings.NewReplacer("{agent}", a.Agent, "{host}", a.Host, "{reason}", a.Reason, "{title}", a.Title, "{body}", a.Text)
	args := make([]string, len(argv))
	for i, s := range argv {
		args[i] = r.Replace(s)
	}
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = env
	cmd.WaitDelay = time.Second // a child holding the pipes does not hold us
	out := &boundedBuffer{max: maxSinkOutput}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %s", args[0], err, strings.TrimSpace(out.String()))
	}
	return nil
}

// webhookBody is what the URL receives.
type webhookBody struct {
	Agent  string    `json:"agent"`
	Host   string    `json:"host,omitempty"`
	Reason string    `json:"reason"`
	Text   string    `json:"text"`
	At     time.Time `json:"at"`
}

// postAlert POSTs a to url as JSON, trying webhookTries times (waiting
// webhookRetry, doubled each time, on after) before it gives up.
func postAlert(ctx context.Context, hc *http.Client, url string, a Alert, after func(time.Duration) <-chan time.Time) error {
	text := a.Text
	if a.Title != "" {
		text = a.Title + ": " + a.Text
	}
	body, err := json.Marshal(webhookBody{Agent: a.Agent, Host: a.Host, Reason: a.Reason, Text: boundText(text), At: a.At.UTC()})
	if err != nil {
		return err
	}
	wait := webhookRetry
	for try := 1; ; try++ {
		err = postOnce(ctx, hc, url, body)
		if err == nil || try == webhookTries || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-after(wait):
		}
		wait *= 2
	}
}

func postOnce(ctx context.Context, hc *http.Client, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxSinkOutput))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s: %s", url, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// boundedBuffer keeps the first max bytes written to it.
type boundedBuffer struct {
	b   bytes.Buffer
	max int
}

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if room := w.max - w.b.Len(); room > 0 {
		w.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (w *boundedBuffer) String() string { return w.b.String() }
