package configs

// Agents: the [[agent]] tables of an office file, decoded key by key and
// checked against each other (names, profiles, commands, parents).

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Agent is one agent of an office: a named CLI process in a PTY. In TOML it
// is an [[agent]] table with the keys name, profile, command, cwd, env, role,
// parent, task, restart, brief, optional, fallback, compact_every, worktree,
// read_only, ssh_agent, notify and delivery, and the settings the table marks per agent
// (cooldown, quiet, boot_grace, stall, history; see SettingsFor).
type Agent struct {
	// Name identifies the agent everywhere (mail, queue, UI). Required;
	// ^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$, unique, and not "person" or
	// "system" (those name the person and office itself as senders).
	Name string
	// Profile names the agent's profile. Parse sets "custom" when the file
	// gives only a command; an unknown name is an error.
	Profile string
	// Command, when set, replaces the profile's Command (the program and its
	// fixed leading arguments); the profile's Args still follow.
	Command []string
	// Cwd is the working directory. Parse joins a relative path to the
	// config file's directory and leaves "~" and "~/..." as written; Load
	// takes those from the home directory and refuses a cwd that is not an
	// existing directory. "" means the office's own working directory.
	Cwd string
	// Env is added to the agent's environment, over the profile's Env.
	Env map[string]string
	// Role is a short description ("reviewer"); it names the agent in
	// notices to its parent.
	Role string
	// Parent names the agent that receives this one's notices; "" means the
	// person. Parse refuses unknown parents and parent cycles.
	Parent string
	// Task names the task the agent is bound to (its progress journal).
	Task string
	// Restart is "never", "on-failure" or "always". Parse sets "never" when
	// the file says nothing; "" (an agent not from a file) also means never.
	Restart string
	// Brief turns the opening brief on or off for this agent; nil means the
	// config's Brief.
	Brief *bool
	// Optional: Resolve drops the agent when its program is not on PATH.
	Optional bool
	// Fallback: Resolve keeps the agent only when no other agent remains.
	Fallback bool
	// CompactEvery schedules a compaction this often; zero means never.
	CompactEvery Duration
	// Worktree asks for a git worktree of its own.
	Worktree bool
	// ReadOnly marks an agent that does not write files (no progress
	// journal is asked of it).
	ReadOnly bool
	// SSHAgent passes the person's SSH_AUTH_SOCK (their ssh keys) to the
	// agent (true) or drops it (false); nil means the config's SSHAgent.
	SSHAgent *bool
	// History is how many lines of pane history office keeps for the agent:
	// its own history key, else the file's top-level one, else 10000. Parse
	// resolves it; an agent not from a file takes Config.Settings.History.
	History int
	// Line is the line of the agent's [[agent]] header in its file, 0 for an
	// agent not from a file.
	Line int
	// Notify, when set (the agent's notify key), replaces the [notify]
	// table's on for this agent (Config.NotifyOn); an empty list silences it.
	Notify *[]string
	// Delivery is DeliveryAuto or DeliveryType (Profile.Delivery); ""
	// leaves it to the profile.
	Delivery string

	// overrides holds the settings the agent's table sets (see SettingsFor).
	overrides map[string]override
}

// Values of Agent.Restart.
const (
	// RestartNever: an exited agent stays exited (the default).
	RestartNever = "never"
	// RestartOnFailure: restart after a non-zero exit or a signal.
	RestartOnFailure = "on-failure"
	// RestartAlways: restart after any exit.
	RestartAlways = "always"
)

// reservedName reports whether name is a sender name that is not an agent:
// "person" (the person at the keyboard) or "system" (office itself).
func reservedName(name string) bool {
	return name == "person" || name == "system"
}

// decodeAgents decodes the value of the top-level "agent" key into
// c.Agents and checks them; c.Profiles must be complete. Relative cwds are
// joined to dir unless dir is "".
func decodeAgents(c *Config, v any, dir string, ix *srcIndex, probs *problems) {
	var tables []map[string]any
	switch t := v.(type) {
	case []map[string]any:
		tables = t
	case []any:
		if len(t) > 0 {
			probs.add(ix.line("agent"), "agent: want [[agent]] tables, got an array of %s", tomlType(t[0]))
			return
		}
	default:
		probs.add(ix.line("agent"), "agent: want [[agent]] tables (note the double brackets), got %s", tomlType(v))
		return
	}
	if len(tables) > MaxAgents {
		probs.add(ix.elem("agent", MaxAgents), "agent #%d: more than %d agents (the most one office runs, its file's and team-added ones together)", MaxAgents+1, MaxAgents)
		return
	}
	labels := make([]string, len(tables))
	for i, t := range tables {
		a := Agent{Line: ix.elem("agent", i)}
		labels[i] = fmt.Sprintf("agent #%d", i+1)
		if n, ok := t["name"].(string); ok && checkName(n) == nil {
			labels[i] = fmt.Sprintf("agent %q", n)
		}
		for _, key := range slices.Sorted(maps.Keys(t)) {
			known, err := setAgentKey(&a, key, t[key])
			if !known {
				known, err = setAgentSetting(&a, key, t[key], ix.elem("agent", i, key))
			}
			switch {
			case !known:
				probs.add(ix.elem("agent", i, key), "%s: unknown key %q", labels[i], key)
			case err != nil:
				probs.add(ix.elem("agent", i, key), "%s: %s: %v", labels[i], key, err)
			}
		}
		if a.Restart == "" {
			a.Restart = RestartNever
		}
		if _, given := t["command"]; given && a.Profile == "" {
			a.Profile = ProfileCustom // even when the command was refused
		}
		if a.Cwd != "" && dir != "" && !filepath.IsAbs(a.Cwd) && a.Cwd != "~" && !strings.HasPrefix(a.Cwd, "~/") {
			a.Cwd = filepath.Join(dir, a.Cwd)
		}
		a.History = c.SettingsFor(a).History
		c.Agents = append(c.Agents, a)
	}

	first := map[string]int{} // name -> index of its first agent
	for i, a := range c.Agents {
		at := func(key ...string) int { return ix.elem("agent", i, key...) }
		switch _, named := tables[i]["name"]; {
		case !named:
			probs.add(at(), "%s: missing name (add name = \"...\")", labels[i])
		case a.Name == "":
			// Set but invalid: reported by setAgentKey.
		case reservedName(a.Name):
			probs.add(at("name"), "%s: the name %q is reserved", labels[i], a.Name)
		default:
			if j, dup := first[a.Name]; dup {
				probs.add(at("name"), "%s: duplicate name (first used at line %d)", labels[i], c.Agents[j].Line)
			} else {
				first[a.Name] = i
			}
		}
		_, commandGiven := tables[i]["command"]
		checkAgentProfile(c, a, commandGiven, labels[i], at, probs)
	}
	for i, a := range c.Agents {
		if a.Parent == "" {
			continue
		}
		at := func(key ...string) int { return ix.elem("agent", i, key...) }
		switch _, ok := first[a.Parent]; {
		case a.Parent == a.Name:
			probs.add(at("parent"), "%s: parent %q is the agent itself", labels[i], a.Parent)
		case !ok:
			probs.add(at("parent"), "%s: parent %q is not an agent (agents: %s)", labels[i], a.Parent, strings.Join(slices.Sorted(maps.Keys(first)), ", "))
		}
	}
	checkParentCycles(c.Agents, first, labels, ix, probs)
}

// checkAgentProfile reports an unknown profile, or a profile with no command
// for an agent whose file gives none (commandGiven: the key is there, even if
// its value was refused).
func checkAgentProfile(c *Config, a Agent, commandGiven bool, label string, at func(...string) int, probs *problems) {
	if a.Profile == "" {
		probs.add(at(), "%s: no profile and no command (set profile = %q, %q, %q or %q, or command = [\"program\", ...])",
			label, ProfileClaude, ProfileCodex, ProfileGemini, ProfileShell)
		return
	}
	p, ok := c.Profiles[a.Profile]
	if !ok {
		probs.add(at("profile"), "%s: unknown profile %q (known: %s)", label, a.Profile, strings.Join(c.profileNames(), ", "))
		return
	}
	if !commandGiven && len(p.Command) == 0 {
		probs.add(at("profile"), "%s: profile %q has no command of its own: set command = [\"program\", ...]", label, a.Profile)
	}
}

// checkParentCycles reports each cycle of parents once, at the parent key of
// its first member in file order. first maps names to their agent's index.
func checkParentCycles(agents []Agent, first map[string]int, labels []string, ix *srcIndex, probs *problems) {
	reported := map[string]bool{}
	for i, a := range agents {
		if a.Parent == "" || a.Parent == a.Name || reported[a.Name] {
			continue
		}
		chain := []string{a.Name}
		for cur := a.Parent; ; {
			j, ok := first[cur]
			if !ok || slices.Contains(chain[1:], cur) {
				break // ends at the person, an unknown name, or a cycle a is not on
			}
			chain = append(chain, cur)
			if cur == a.Name {
				for _, n := range chain {
					reported[n] = true
				}
				probs.add(ix.elem("agent", i, "parent"), "%s: parent cycle: %s", labels[i], strings.Join(chain, " -> "))
				break
			}
			cur = agents[j].Parent
		}
	}
}

// setAgentKey sets the field named by a TOML key from its value. known is
// false for a key Agent does not have.
func setAgentKey(a *Agent, key string, v any) (known bool, err error) {
	switch key {
	case "name":
		var s string
		if s, err = asString(v); err == nil {
			if err = checkName(s); err == nil {
				a.Name = s
			}
		}
	case "profile":
		a.Profile, err = asString(v)
	case "command":
		a.Command, err = asCommand(v)
	case "cwd":
		a.Cwd, err = asString(v)
	case "env":
		a.Env, err = asEnv(v)
	case "role":
		a.Role, err = asString(v)
	case "parent":
		a.Parent, err = asString(v)
	case "task":
		a.Task, err = asString(v)
	case "restart":
		var s string
		if s, err = asString(v); err == nil {
			switch s {
			case RestartNever, RestartOnFailure, RestartAlways:
				a.Restart = s
			default:
				err = fmt.Errorf("%q is not one of %q, %q or %q", s, RestartNever, RestartOnFailure, RestartAlways)
			}
		}
	case "brief":
		var b bool
		if b, err = asBool(v); err == nil {
			a.Brief = &b
		}
	case "optional":
		a.Optional, err = asBool(v)
	case "fallback":
		a.Fallback, err = asBool(v)
	case "compact_every":
		a.CompactEvery, err = asDuration(v)
	case "worktree":
		a.Worktree, err = asBool(v)
	case "read_only":
		a.ReadOnly, err = asBool(v)
	case "ssh_agent":
		var b bool
		if b, err = asBool(v); err == nil {
			a.SSHAgent = &b
		}
	case "delivery":
		a.Delivery, err = asDelivery(v)
	case "notify":
		var on []string
		if on, err = asTransitions(v); err == nil {
			a.Notify = &on
		}
	default:
		return false, nil
	}
	return true, err
}

// clone returns a deep copy of a.
func (a Agent) clone() Agent {
	a.Command = slices.Clone(a.Command)
	a.Env = maps.Clone(a.Env)
	a.overrides = cloneOverrides(a.overrides)
	if a.Brief != nil {
		b := *a.Brief
		a.Brief = &b
	}
	if a.SSHAgent != nil {
		b := *a.SSHAgent
		a.SSHAgent = &b
	}
	if a.Notify != nil {
		on := slices.Clone(*a.Notify)
		a.Notify = &on
	}
	return a
}
