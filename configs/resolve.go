package configs

// Resolving an office against the machine: optional agents whose program is
// not installed are left out, and fallback agents stand in when nothing else
// is left.

import (
	"fmt"
	"slices"
	"strings"
)

// Resolve returns a copy of c holding the agents that should run, a one-line
// notice for the person ("" when there is nothing to say), or an error.
//
//   - An Optional agent whose program (the first element of Argv) lookPath
//     cannot find is dropped. Other agents are kept even when their program
//     is missing: starting them fails loudly later, as it should.
//   - Fallback agents are kept only when no other agent remains; then the
//     notice says which CLIs were missing and what runs instead, e.g.
//     "no agent CLI (claude, codex, gemini) found on PATH: running your
//     shell; add agents with --config FILE (see README)".
//   - When some agents were dropped and others remain, the notice names the
//     dropped ones: "not on PATH, skipped: codex (codex), gemini (gemini)".
//   - An agent whose parent was dropped gets Parent "" (the person).
//   - With no agent left at all (none configured, or all optional and
//     missing with no fallback) it fails.
//
// lookPath is exec.LookPath in production; tests pass a fake.
func (c *Config) Resolve(lookPath func(string) (string, error)) (*Config, string, error) {
	var kept, fallbacks, dropped []Agent
	var missing []string // programs of dropped agents, in order, without repeats
	for _, a := range c.Agents {
		if a.Optional {
			argv, err := c.Argv(a)
			if err != nil {
				return nil, "", err
			}
			if _, err := lookPath(argv[0]); err != nil {
				dropped = append(dropped, a)
				if !slices.Contains(missing, argv[0]) {
					missing = append(missing, argv[0])
				}
				continue
			}
		}
		if a.Fallback {
			fallbacks = append(fallbacks, a)
		} else {
			kept = append(kept, a)
		}
	}

	var notice string
	switch {
	case len(kept) > 0:
		if len(dropped) > 0 {
			notice = "not on PATH, skipped: " + describe(c, dropped)
		}
	case len(fallbacks) > 0:
		kept = fallbacks
		if len(dropped) > 0 {
			notice = fmt.Sprintf("no agent CLI (%s) found on PATH: running %s; add agents with --config FILE (see README)",
				strings.Join(missing, ", "), fallbackName(fallbacks))
		}
	case len(dropped) > 0:
		return nil, "", fmt.Errorf("configs: %s: no agent can run: %s not found on PATH and no fallback agent is configured",
			c.Path, strings.Join(missing, ", "))
	default:
		return nil, "", fmt.Errorf("configs: %s: no agents: add an [[agent]] table", c.Path)
	}

	out := c.clone()
	out.Agents = make([]Agent, 0, len(kept))
	names := map[string]bool{}
	for _, a := range kept {
		names[a.Name] = true
	}
	for _, a := range kept {
		a = a.clone()
		if !names[a.Parent] {
			a.Parent = ""
		}
		out.Agents = append(out.Agents, a)
	}
	return out, notice, nil
}

// describe lists agents as "NAME (PROGRAM)", comma-separated.
func describe(c *Config, agents []Agent) string {
	parts := make([]string, len(agents))
	for i, a := range agents {
		parts[i] = a.Name
		if argv, err := c.Argv(a); err == nil {
			parts[i] = fmt.Sprintf("%s (%s)", a.Name, argv[0])
		}
	}
	return strings.Join(parts, ", ")
}

// fallbackName says what runs instead: "your shell" for a lone shell agent,
// else the agents' names.
func fallbackName(agents []Agent) string {
	if len(agents) == 1 && agents[0].Profile == ProfileShell {
		return "your shell"
	}
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = fmt.Sprintf("%q", a.Name)
	}
	return "fallback " + strings.Join(names, ", ")
}
