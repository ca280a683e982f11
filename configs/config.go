package configs

// The office file: top-level settings, agents and profile tables, parsed
// into a Config, and the questions the engine asks of a Config about one
// agent (its profile, its argv, its environment).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// DefaultPrefix is the UI prefix key when the file sets no prefix.
const DefaultPrefix = "C-]"

// Bounds of what an office file may ask for. They are protection against a
// file (or an agent running `office team add` in a loop) that would take the
// machine down, not policy, so they are named constants here and not rows of
// the settings table (see settings.go). Both are far above what a person
// writes by hand or a demanding office runs:
const (
	// MaxFileBytes is the largest office file read: 1 MiB. An [[agent]]
	// table with a role, a command, a cwd and a few env entries is about
	// 300 bytes, so MaxAgents of them take about 150 KB; a file past 1 MiB
	// is a mistake (a log or a binary given as --config), and it is read
	// only up to this bound.
	MaxFileBytes = 1 << 20
	// MaxAgents is the most agents one office runs: those of its file and
	// those `office team add` added, together. The server's own memory is
	// about 245 KiB per agent and an attached client's about 75 KiB (docs/performance.md:
	// 100 agents measured), so 500 agents cost the server about
	// 120 MiB and each window 37 MiB, and the CLIs themselves (a Node process
	// of 100-300 MB each for Claude Code, Codex and Gemini CLI) far more:
	// five times the 100 the benchmarks run, which no office reaches by
	// accident, while 5000 would be gigabytes before one agent did anything.
	MaxAgents = 500
	// MaxNesting is the deepest a key may sit: the parts of its table's
	// header, of its own dotted key and of every key whose inline table it
	// is in, plus one per enclosing array (nesting.go). The TOML decoder's
	// cost grows with the square of the depth (4,000 nested inline tables,
	// 16 KB of file, took 708 MB; 50,000 took all of 24 GB), so the depth
	// is bounded before decoding. The deepest key an office file has is
	// four (`[profile.claude]`, then `env = { NAME = "v" }`); at 16 a whole
	// MaxFileBytes file of keys that deep decodes with about four times the
	// allocation of a file of top-level keys (under 100 MB in use either
	// way), where 32 would double that again for no file a person writes.
	MaxNesting = 16
)

// ParsePrefix reads a prefix key as the person writes it: "C-]", "C-a",
// "Ctrl-B", "^A" (any control key), or one printable ASCII character. It
// is the one reading of the key, for the office file's prefix, --prefix
// and OFFICE_PREFIX, so a key the UI cannot take is refused at its line
// before anything starts.
func ParsePrefix(s string) (byte, error) {
	for _, p := range []string{"C-", "c-", "Ctrl-", "ctrl-", "CTRL-", "^"} {
		if len(s) > len(p) && s[:len(p)] == p {
			rest := s[len(p):]
			if len(rest) != 1 {
				break
			}
			c := rest[0]
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			if c <= '@' || c > '_' {
				// C-@ is NUL, which the UI takes for "no prefix set".
				break
			}
			return c - '@', nil
		}
	}
	if len(s) == 1 && s[0] > 0x20 && s[0] < 0x7f {
		return s[0], nil
	}
	return 0, fmt.Errorf("%q: want a control key such as C-] or C-a, or one printable character", s)
}

// Config is a parsed, validated office. In TOML the top level has the keys
// prefix, brief, ssh_agent, every key of the settings table (see Table),
// [[agent]] tables, [profile.NAME] tables, [cluster], [hosts.NAME] and
// [notify] (configs/notify.go).
// A Config is a plain value: methods only read it, and it is safe for
// concurrent reads; a caller that changes it owns the synchronization.
type Config struct {
	// Path is the file the config came from (as given to Load or Parse), or
	// "(embedded default)" for Default.
	Path string
	// Prefix is the UI prefix key, "C-]" unless the file says otherwise.
	Prefix string
	// Settings holds the office's tunables: the settings table's defaults
	// with the file's top-level keys applied. An agent's own keys are
	// applied by SettingsFor.
	Settings Settings
	// setAt maps each setting key the file sets at the top level to its line.
	setAt map[string]int
	// Brief turns the opening brief on for agents that do not say; true
	// unless the file says otherwise.
	Brief bool
	// SSHAgent passes the person's SSH_AUTH_SOCK to agents that do not say;
	// true unless the file says otherwise (`ssh_agent = false`).
	SSHAgent bool
	// Agents are the office's agents in file order.
	Agents []Agent
	// Profiles holds the built-in profiles (claude, codex, gemini, shell,
	// custom) merged with the file's [profile.NAME] tables: a table for an
	// existing name overrides only the keys it sets (env merges variable by
	// variable); a new name adds a profile.
	Profiles map[string]Profile
	// profileSetAt maps a profile name to the keys the file's
	// [profile.NAME] table sets, each to its line.
	profileSetAt map[string]map[string]int
	// Cluster is the [cluster] table (configs/cluster.go); nil for a
	// one-host office.
	Cluster *Cluster
	// Hosts are the [hosts.NAME] tables: servers `office attach --host`
	// shows in one view (configs/cluster.go).
	Hosts map[string]Host
	// Notify is the [notify] table, DefaultNotify() without one
	// (configs/notify.go).
	Notify Notify
	// Web is the [web] table (configs/web.go): the server runs the web
	// server; nil without one.
	Web *Web
}

// Load reads and parses the office file at path, like Parse with name path,
// except that relative agent cwds are joined to the file's absolute
// directory, a cwd starting with "~/" is taken from the home directory, and
// the file is checked against the machine as it will run: it must list at
// least one agent, every agent's cwd must be an existing directory, and a
// file holding a route_password must be readable by its owner only. A
// read failure is returned wrapped (errors.Is works with fs.ErrNotExist); a
// content problem is an *Error naming path and line.
func Load(path string) (*Config, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	c, err := parse(path, filepath.Dir(abs), data)
	if err != nil {
		return nil, err
	}
	if err := c.checkRunnable(data, os.UserHomeDir, os.Stat); err != nil {
		return nil, err
	}
	if err := c.checkSecret(data, os.Stat); err != nil {
		return nil, err
	}
	return c, nil
}

// readBounded reads the file at path, at most MaxFileBytes of it: a larger
// file is refused (an *Error naming path and the bound) without reading the
// rest.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge(path)
	}
	return data, nil
}

// tooLarge is the error for an office file past MaxFileBytes.
func tooLarge(name string) error {
	return &Error{File: name, Err: fmt.Errorf("the file is larger than %d bytes (1 MiB, the most an office file may hold): is it the office file?", MaxFileBytes)}
}

// checkRunnable expands "~/" cwds with home and reports an office with no
// agent and cwds that stat does not find as directories, each at its line
// of data (the file c was parsed from).
func (c *Config) checkRunnable(data []byte, home func() (string, error), stat func(string) (os.FileInfo, error)) error {
	probs := &problems{file: c.Path}
	if len(c.Agents) == 0 {
		probs.add(1, "no agents: add an [[agent]] table with a name and a profile or command (see README, \"Configuring an office\")")
		return probs.err()
	}
	ix := indexSource(string(data))
	for i := range c.Agents {
		a := &c.Agents[i]
		if a.Cwd == "" {
			continue
		}
		at := ix.elem("agent", i, "cwd")
		if a.Cwd == "~" || strings.HasPrefix(a.Cwd, "~/") {
			h, err := home()
			if err != nil {
				probs.add(at, "agent %q: cwd %q: no home directory: %v", a.Name, a.Cwd, err)
				continue
			}
			a.Cwd = filepath.Join(h, strings.TrimPrefix(a.Cwd, "~"))
		}
		switch fi, err := stat(a.Cwd); {
		case errors.Is(err, os.ErrNotExist):
			probs.add(at, "agent %q: cwd %q does not exist", a.Name, a.Cwd)
		case err != nil:
			probs.add(at, "agent %q: cwd: %v", a.Name, err)
		case !fi.IsDir():
			probs.add(at, "agent %q: cwd %q is not a directory", a.Name, a.Cwd)
		}
	}
	return probs.err()
}

// Parse parses data, the text of an office file called name, and validates
// it. Relative agent cwds are joined to filepath.Dir(name). On failure it
// returns every problem found, each an *Error naming the file and line
// (several are joined with errors.Join, in line order), and no Config.
func Parse(name string, data []byte) (*Config, error) {
	return parse(name, filepath.Dir(name), data)
}

// parse is Parse with the directory for relative cwds given ("" leaves
// them relative).
func parse(name, dir string, data []byte) (*Config, error) {
	if len(data) > MaxFileBytes {
		return nil, tooLarge(name)
	}
	doc, err := decodeTOML(name, data)
	if err != nil {
		return nil, err
	}
	profiles, err := BuiltinProfiles()
	if err != nil {
		return nil, err
	}
	c := &Config{
		Path:         name,
		Prefix:       DefaultPrefix,
		Settings:     Defaults(),
		setAt:        map[string]int{},
		Brief:        true,
		profileSetAt: map[string]map[string]int{},
		SSHAgent:     true,
		Profiles:     profiles,
		Notify:       DefaultNotify(),
	}
	ix := indexSource(string(data))
	probs := &problems{file: name}
	if v, ok := doc["profile"]; ok {
		decodeProfiles(v, c.Profiles, ix, probs, c.profileSetAt)
	}
	for _, key := range slices.Sorted(maps.Keys(doc)) {
		v := doc[key]
		switch key {
		case "prefix":
			s, err := asString(v)
			if err == nil && strings.TrimSpace(s) == "" {
				err = errors.New("is blank")
			} else if err == nil {
				_, err = ParsePrefix(s)
			}
			if err != nil {
				probs.add(ix.line(key), "prefix: %v", err)
				continue
			}
			c.Prefix = s
		case "brief":
			b, err := asBool(v)
			if err != nil {
				probs.add(ix.line(key), "brief: %v", err)
				continue
			}
			c.Brief = b
		case "ssh_agent":
			b, err := asBool(v)
			if err != nil {
				probs.add(ix.line(key), "ssh_agent: %v", err)
				continue
			}
			c.SSHAgent = b
		case "cluster":
			c.Cluster = decodeCluster(v, dir, ix, probs)
		case "hosts":
			c.Hosts = decodeHosts(v, dir, ix, probs)
		case "notify":
			c.Notify = decodeNotify(v, ix, probs)
		case "web":
			c.Web = decodeWeb(v, dir, ix, probs)
		case "agent", "profile":
		default:
			row, ok := Lookup(key)
			if !ok {
				probs.add(ix.line(key), "unknown key %q", key)
				continue
			}
			n, err := row.parseValue(v)
			if err != nil {
				probs.add(ix.line(key), "%s: %v", key, err)
				continue
			}
			row.set(&c.Settings, n)
			c.setAt[key] = ix.line(key)
		}
	}
	checkSettings(c.Settings, func(key string) int { return c.setAt[key] }, "", probs)
	if v, ok := doc["agent"]; ok {
		decodeAgents(c, v, dir, ix, probs)
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	return c, nil
}

// syntaxError is a TOML syntax error; it unwraps to the toml.ParseError.
type syntaxError struct{ pe toml.ParseError }

func (e syntaxError) Error() string { return "TOML syntax: " + e.pe.Message }
func (e syntaxError) Unwrap() error { return e.pe }

// decodeTOML decodes data into generic maps; a syntax error is an *Error
// at its line.
func decodeTOML(name string, data []byte) (map[string]any, error) {
	// A UTF-8 byte-order mark is skipped by the decoder: skip it for the
	// nesting check too (it changes no line). An office file is UTF-8.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return nil, &Error{File: name, Line: 1, Err: errors.New("the file is UTF-16; save it as UTF-8")}
	}
	nerr := checkNesting(name, data)
	var unread errUnread
	if nerr != nil && !errors.As(nerr, &unread) {
		return nil, nerr
	}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: name, Line: pe.Position.Line, Err: syntaxError{pe}}
		}
		return nil, &Error{File: name, Err: fmt.Errorf("TOML: %w", err)}
	}
	if nerr != nil {
		// The decoder read what the nesting check could not: its depth was
		// never bounded, so the file is refused rather than trusted.
		return nil, &Error{File: name, Line: unread.line, Err: fmt.Errorf("this TOML is written in a form the nesting check (at most %d levels) cannot read; write it plainly", MaxNesting)}
	}
	return doc, nil
}

// Agent returns a copy of the agent called name, and whether there is one.
func (c *Config) Agent(name string) (Agent, bool) {
	for _, a := range c.Agents {
		if a.Name == name {
			return a.clone(), true
		}
	}
	return Agent{}, false
}

// ProfileOf returns a copy of a's profile. An empty a.Profile means "custom"
// when a has a command (agents added outside a file, such as `office team
// add --command`); with neither, or with an unknown profile, it fails.
func (c *Config) ProfileOf(a Agent) (Profile, error) {
	name := a.Profile
	if name == "" {
		if len(a.Command) == 0 {
			return Profile{}, fmt.Errorf("configs: agent %q: no profile and no command", a.Name)
		}
		name = ProfileCustom
	}
	p, ok := c.Profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("configs: agent %q: unknown profile %q (known: %s)", a.Name, name, strings.Join(c.profileNames(), ", "))
	}
	return p.clone(), nil
}

// Argv returns the command line that starts a: a.Command if set, else the
// profile's Command, then the profile's Args. It is a fresh slice with at
// least one element (the program, looked up on PATH by the caller when it
// has no slash). For the shell profile that is ["bash"]: a shell in a PTY is
// interactive without -i, and the engine sets SHELL in its environment. It
// fails when ProfileOf fails or when neither a nor its profile has a command.
func (c *Config) Argv(a Agent) ([]string, error) {
	return c.argv(a, false)
}

// ResumeArgv is Argv with the profile's Resume arguments between the program
// and Args: the command line that continues a's most recent session. When
// the profile has no Resume it equals Argv.
func (c *Config) ResumeArgv(a Agent) ([]string, error) {
	return c.argv(a, true)
}

// argv builds Argv, with the Resume arguments when resume is true.
func (c *Config) argv(a Agent, resume bool) ([]string, error) {
	p, err := c.ProfileOf(a)
	if err != nil {
		return nil, err
	}
	prog := a.Command
	if len(prog) == 0 {
		prog = p.Command
	}
	if len(prog) == 0 {
		return nil, fmt.Errorf("configs: agent %q: profile %q has no command and the agent gives none", a.Name, p.Name)
	}
	out := slices.Clone(prog)
	if resume {
		out = append(out, p.Resume...)
	}
	return append(out, p.Args...), nil
}

// Env returns the variables office sets for a: its profile's Env overlaid
// with a.Env, as a fresh map. Host variables (the profile's PassEnv) and
// office's own (OFFICE_AGENT, ...) are the engine's to add.
func (c *Config) Env(a Agent) (map[string]string, error) {
	p, err := c.ProfileOf(a)
	if err != nil {
		return nil, err
	}
	env := maps.Clone(p.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, a.Env)
	return env, nil
}

// SSHAgentFor reports whether a gets the person's SSH_AUTH_SOCK:
// *a.SSHAgent when set, else c.SSHAgent.
func (c *Config) SSHAgentFor(a Agent) bool {
	if a.SSHAgent != nil {
		return *a.SSHAgent
	}
	return c.SSHAgent
}

// BriefFor reports whether a gets the opening brief: *a.Brief when set,
// else c.Brief.
func (c *Config) BriefFor(a Agent) bool {
	if a.Brief != nil {
		return *a.Brief
	}
	return c.Brief
}

// profileNames returns the names of c's profiles, sorted.
func (c *Config) profileNames() []string {
	return slices.Sorted(maps.Keys(c.Profiles))
}

// clone returns a deep copy of c.
func (c *Config) clone() *Config {
	out := *c
	out.Agents = make([]Agent, len(c.Agents))
	for i, a := range c.Agents {
		out.Agents[i] = a.clone()
	}
	if c.Cluster != nil {
		cl := *c.Cluster
		cl.Peers = slices.Clone(cl.Peers)
		out.Cluster = &cl
	}
	out.Hosts = maps.Clone(c.Hosts)
	if c.Web != nil {
		w := *c.Web
		w.AllowHost = slices.Clone(w.AllowHost)
		out.Web = &w
	}
	out.Notify.On, out.Notify.Sinks, out.Notify.Command = slices.Clone(c.Notify.On), slices.Clone(c.Notify.Sinks), slices.Clone(c.Notify.Command)
	out.Profiles = make(map[string]Profile, len(c.Profiles))
	for n, p := range c.Profiles {
		out.Profiles[n] = p.clone()
	}
	return &out
}
