package configs

// The settings table in an office file: top-level keys, per-agent keys,
// where each value came from, and `office config show`.

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strconv"
	"text/tabwriter"
)

// Sources of a value, as `office config show` prints them besides FILE:LINE.
const (
	// SourceDefault: the table's default.
	SourceDefault = "default"
	// SourceFixed: a rule of package automation the file may not set.
	SourceFixed = "fixed"
)

// override is one setting an [[agent]] table sets.
type override struct {
	value int64
	line  int
}

// parseTop reads a value for the row from the file; a fixed row is refused.
func (row Setting) parseTop(v any) (int64, error) {
	if row.Fixed {
		return 0, fmt.Errorf("is fixed at %s (%s, a rule of the status and draft logic); it cannot be set", row.Format(row.Default), row.Use)
	}
	return row.parseValue(v)
}

// setAgentSetting applies an [[agent]] table's key that names a row of the
// table. known is false for a key that is not a setting.
func setAgentSetting(a *Agent, key string, v any, line int) (known bool, err error) {
	row, ok := Lookup(key)
	if !ok {
		return false, nil
	}
	if !row.PerAgent {
		if row.Fixed {
			_, err := row.parseTop(v)
			return true, err
		}
		return true, fmt.Errorf("is set for the whole office, not per agent: move it above the first [[agent]] (per-agent settings: %s)", perAgentKeys())
	}
	n, err := row.parseValue(v)
	if err != nil {
		return true, err
	}
	if a.overrides == nil {
		a.overrides = map[string]override{}
	}
	a.overrides[key] = override{value: n, line: line}
	return true, nil
}

// perAgentKeys lists the rows an agent may set, comma-separated.
func perAgentKeys() string {
	out := ""
	for _, row := range table {
		if row.PerAgent {
			if out != "" {
				out += ", "
			}
			out += row.Key
		}
	}
	return out
}

// checkSettings reports values that are each in range but do not fit
// together. line gives a key's line (0: not in the file).
func checkSettings(s Settings, line func(string) int, label string, probs *problems) {
	if s.RestartBackoff > s.RestartBackoffMax {
		at := line("restart_backoff")
		if at == 0 {
			at = line("restart_backoff_max")
		}
		probs.add(at, "%srestart_backoff %s is more than restart_backoff_max %s", label,
			FormatDuration(s.RestartBackoff), FormatDuration(s.RestartBackoffMax))
	}
}

// SettingsFor returns the settings agent a runs on: c.Settings with the
// keys a's own [[agent]] table sets (the rows marked PerAgent: cooldown,
// quiet, boot_grace, stall, history).
func (c *Config) SettingsFor(a Agent) Settings {
	s := c.Settings
	for key, o := range a.overrides {
		if row, ok := Lookup(key); ok {
			row.set(&s, o.value)
		}
	}
	return s
}

// SetsOwn reports whether a's own [[agent]] table sets the setting key.
func (a Agent) SetsOwn(key string) bool {
	_, ok := a.overrides[key]
	return ok
}

// Source says where c's top-level value of the row came from: "default",
// "fixed", or "FILE:LINE".
func (c *Config) Source(row Setting) string {
	if row.Fixed {
		return SourceFixed
	}
	if line, ok := c.setAt[row.Key]; ok {
		return c.Path + ":" + strconv.Itoa(line)
	}
	return SourceDefault
}

// ShownSetting is one line of `office config show`.
type ShownSetting struct {
	// Name is the office-file key; for an agent's own value it is
	// "KEY@AGENT".
	Name string `json:"name"`
	// Key is the office-file key.
	Key string `json:"key"`
	// Agent names the agent whose own value this is, "" for the office's.
	Agent string `json:"agent,omitempty"`
	// Value is written as the office file takes it ("200ms", "6s", "3").
	Value string `json:"value"`
	// Source is "default", "fixed" or FILE:LINE.
	Source string `json:"source"`
	// Kind is "duration", "count" or "bytes".
	Kind string `json:"kind"`
	// Default, Min and Max are written like Value.
	Default string `json:"default"`
	Min     string `json:"min"`
	Max     string `json:"max"`
	// PerAgent: an [[agent]] table may set it.
	PerAgent bool `json:"per_agent"`
	// Help says what it does and the rule it comes from.
	Help string `json:"help"`
}

// Shown returns every setting of c in table order, each followed by the
// agents' own values of it (in agent order).
func (c *Config) Shown() []ShownSetting {
	var out []ShownSetting
	for _, row := range table {
		base := ShownSetting{
			Name: row.Key, Key: row.Key,
			Value: row.Format(row.Get(c.Settings)), Source: c.Source(row),
			Kind: row.Kind.String(), Default: row.Format(row.Default),
			Min: row.Format(row.Min), Max: row.Format(row.Max),
			PerAgent: row.PerAgent, Help: row.Help,
		}
		out = append(out, base)
		for _, a := range c.Agents {
			o, ok := a.overrides[row.Key]
			if !ok {
				continue
			}
			s := base
			s.Name, s.Agent = row.Key+"@"+a.Name, a.Name
			s.Value = row.Format(o.value)
			s.Source = c.Path + ":" + strconv.Itoa(o.line)
			out = append(out, s)
		}
	}
	return out
}

// FormatSettings writes `office config show`: one line per setting, NAME
// VALUE SOURCE and the help text, columns aligned; or, with asJSON, a JSON
// array of ShownSetting.
func FormatSettings(w io.Writer, c *Config, asJSON bool) error {
	shown := c.Shown()
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(shown)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for _, s := range shown {
		fmt.Fprintf(tw, "%s\t%s\t%s\t %s\n", s.Name, s.Value, s.Source, s.Help)
	}
	return tw.Flush()
}

// cloneOverrides copies an agent's setting overrides.
func cloneOverrides(m map[string]override) map[string]override {
	return maps.Clone(m)
}
