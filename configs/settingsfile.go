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

// SourceDefault is the source `office config show` prints for the table's
// default (others are FILE:LINE).
const SourceDefault = "default"

// override is one setting an [[agent]] table sets.
type override struct {
	value int64
	line  int
}

// setAgentSetting applies an [[agent]] table's key that names a row of the
// table. known is false for a key that is not a setting.
func setAgentSetting(a *Agent, key string, v any, line int) (known bool, err error) {
	row, ok := Lookup(key)
	if !ok {
		return false, nil
	}
	if !row.PerAgent {
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

// SettingsFor returns the settings agent a runs on: c.Settings with each
// per-agent row (cooldown, quiet, boot_grace, stall, history) resolved for
// a by AgentValue.
func (c *Config) SettingsFor(a Agent) Settings {
	s := c.Settings
	for _, row := range table {
		if row.PerAgent {
			v, _ := c.AgentValue(row, a)
			row.set(&s, v)
		}
	}
	return s
}

// AgentValue returns the value agent a runs on for a per-agent row, and
// where it came from (as Source says it). The first that sets it wins:
//
//  1. a's own [[agent]] key;
//  2. a's profile, when the office file's [profile.NAME] table sets it;
//  3. the office file's top-level key;
//  4. a's profile, when the built-in profile sets it (a built-in value is
//     a default for that kind of agent, not an override: source
//     "profile:NAME");
//  5. the table's default.
//
// Only quiet is also a profile key. A row that is not per agent is c's
// top-level value.
func (c *Config) AgentValue(row Setting, a Agent) (int64, string) {
	top, topSrc := row.Get(c.Settings), c.Source(row)
	if !row.PerAgent {
		return top, topSrc
	}
	if o, ok := a.overrides[row.Key]; ok {
		return o.value, c.Path + ":" + strconv.Itoa(o.line)
	}
	name := c.profileName(a)
	v, inProfile := profileValue(c.Profiles[name], row.Key)
	line, userSet := c.profileSetAt[name][row.Key]
	switch {
	case inProfile && userSet:
		return v, c.Path + ":" + strconv.Itoa(line)
	case topSrc != SourceDefault:
		return top, topSrc
	case inProfile:
		return v, "profile:" + name
	}
	return top, topSrc
}

// profileName is the name of a's profile as ProfileOf resolves it ("" for
// none).
func (c *Config) profileName(a Agent) string {
	if a.Profile == "" && len(a.Command) > 0 {
		return ProfileCustom
	}
	return a.Profile
}

// profileValue returns the value profile p gives the setting key: the
// profile keys that are also settings (quiet).
func profileValue(p Profile, key string) (int64, bool) {
	if key == "quiet" && p.Quiet.Duration > 0 {
		return int64(p.Quiet.Duration), true
	}
	return 0, false
}

// Source says where c's top-level value of the row came from: "default"
// or "FILE:LINE".
func (c *Config) Source(row Setting) string {
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
	// Source is "default", FILE:LINE, or for an agent's value from a
	// built-in profile "profile:NAME".
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
// agents' values of it (in agent order) where an agent runs on another
// source than the office's: its own key or its profile's (AgentValue).
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
		if !row.PerAgent {
			continue
		}
		for _, a := range c.Agents {
			v, src := c.AgentValue(row, a)
			if src == base.Source {
				continue
			}
			s := base
			s.Name, s.Agent = row.Key+"@"+a.Name, a.Name
			s.Value, s.Source = row.Format(v), src
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
