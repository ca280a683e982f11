package configs

// The [notify] table: which changes of the needs-you list (and which of the
// agents' own notifications) reach the person, and where (docs/needs.md).
// An agent's `notify = [...]` key replaces `on` for that agent.

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Notify is the [notify] table.
type Notify struct {
	// Line is the line of the [notify] header (0: no table, the defaults).
	Line int
	// On are the transitions that notify (NotifyTransitions' words).
	On []string
	// Sinks are where a notification goes (NotifySinks' words).
	Sinks []string
	// Command, when set, is run for each notification (no shell): its
	// elements with {agent}, {host}, {reason}, {title} and {body} replaced.
	Command []string
	// URL, when set, gets an HTTP POST of a small JSON document for each
	// notification.
	URL string
}

// The transitions that may notify: a needs-you reason coming onto the
// list, or an agent's own notification.
var NotifyTransitions = []string{"dialog", "usage limit", "unknown screen", "request", "failed", "exited", "stalled", "turn done", "held message", "refused", "notification"}

// DefaultNotifyOn are the transitions that notify when the file says
// nothing.
var DefaultNotifyOn = []string{"dialog", "usage limit", "unknown screen", "request", "failed", "stalled", "turn done", "notification"}

// The sinks: every attached client's terminal, the command, the URL.
const (
	SinkTerminal = "terminal"
	SinkCommand  = "command"
	SinkURL      = "url"
)

// NotifySinks are the sinks' words.
var NotifySinks = []string{SinkTerminal, SinkCommand, SinkURL}

// notifyKeys are the keys of [notify].
var notifyKeys = []string{"on", "sinks", "command", "url"}

// DefaultNotify is the rule set of a file with no [notify] table: the
// default transitions, to the clients' terminals.
func DefaultNotify() Notify {
	return Notify{On: slices.Clone(DefaultNotifyOn), Sinks: []string{SinkTerminal}}
}

// decodeNotify reads the value of the top-level "notify" key.
func decodeNotify(v any, ix *srcIndex, probs *problems) Notify {
	n := DefaultNotify()
	t, ok := v.(map[string]any)
	if !ok {
		probs.add(ix.line("notify"), "notify: want a [notify] table, got %s", tomlType(v))
		return n
	}
	n.Line = ix.line("notify")
	at := func(key string) int { return ix.line("notify", key) }
	for _, key := range slices.Sorted(maps.Keys(t)) {
		if !slices.Contains(notifyKeys, key) {
			probs.add(at(key), "notify: unknown key %q (known: %s)", key, strings.Join(notifyKeys, ", "))
		}
	}
	if v, ok := t["on"]; ok {
		on, err := asTransitions(v)
		if err != nil {
			probs.add(at("on"), "notify: on: %v", err)
		} else {
			n.On = on
		}
	}
	if v, ok := t["command"]; ok {
		cmd, err := asCommand(v)
		if err != nil {
			probs.add(at("command"), "notify: command: %v", err)
		} else {
			n.Command = cmd
		}
	}
	if v, ok := t["url"]; ok {
		s, err := asString(v)
		if err == nil {
			err = checkNotifyURL(s)
		}
		if err != nil {
			probs.add(at("url"), "notify: url: %v", err)
		} else {
			n.URL = s
		}
	}
	// Without sinks: the terminals, and the command and URL the table gives.
	n.Sinks = []string{SinkTerminal}
	if n.Command != nil {
		n.Sinks = append(n.Sinks, SinkCommand)
	}
	if n.URL != "" {
		n.Sinks = append(n.Sinks, SinkURL)
	}
	if v, ok := t["sinks"]; ok {
		sinks, err := asStrings(v, false)
		for i, s := range sinks {
			if err == nil && !slices.Contains(NotifySinks, s) {
				err = fmt.Errorf("element %d: unknown sink %q (known: %s)", i, s, strings.Join(NotifySinks, ", "))
			}
		}
		if err == nil && slices.Contains(sinks, SinkCommand) && n.Command == nil {
			err = fmt.Errorf("sink %q without a command", SinkCommand)
		}
		if err == nil && slices.Contains(sinks, SinkURL) && n.URL == "" {
			err = fmt.Errorf("sink %q without a url", SinkURL)
		}
		if err != nil {
			probs.add(at("sinks"), "notify: sinks: %v", err)
		} else {
			n.Sinks = sinks
		}
	}
	return n
}

// asTransitions wants an array of NotifyTransitions' words (none twice).
func asTransitions(v any) ([]string, error) {
	on, err := asStrings(v, false)
	if err != nil {
		return nil, err
	}
	for i, s := range on {
		if !slices.Contains(NotifyTransitions, s) {
			return nil, fmt.Errorf("element %d: unknown transition %q (known: %s)", i, s, strings.Join(NotifyTransitions, ", "))
		}
		if slices.Index(on, s) != i {
			return nil, fmt.Errorf("element %d: %q is given twice", i, s)
		}
	}
	return on, nil
}

// maxNotifyURL bounds the URL's length.
const maxNotifyURL = 2048

// checkNotifyURL wants an absolute http or https URL with a host.
func checkNotifyURL(s string) error {
	if len(s) > maxNotifyURL {
		return fmt.Errorf("longer than %d bytes", maxNotifyURL)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: want an http:// or https:// URL", s)
	}
	if u.Host == "" {
		return fmt.Errorf("%q: no host", s)
	}
	return nil
}

// NotifyOn returns the transitions that notify for a: its own notify key,
// else the [notify] table's on.
func (c *Config) NotifyOn(a Agent) []string {
	if a.Notify != nil {
		return slices.Clone(*a.Notify)
	}
	return slices.Clone(c.Notify.On)
}
