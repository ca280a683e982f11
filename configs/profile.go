package configs

// Profiles: how to start one kind of agent CLI and how to read its screen.
// The built-ins are data in profiles.toml; an office file's [profile.NAME]
// tables adjust them key by key or add new ones, through the same decoder.

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"office/records"
)

// Profile describes one kind of agent CLI. All fields are data from TOML
// ([profile.NAME] tables, keys in snake_case: command, args, env, pass_env,
// resume, session_id, session_file, hooks, channel, delivery, records, ready_markers, ready_settle, prompt_marker, prompt_column,
// prompt_placeholders, prompt_between_rules, title_busy, title_idle, title_braille, busy, idle,
// waiting, quiet, interactive, compact, clear, enter_delay,
// paste_enter_delay, enter_retries, enter_after_echo, enter_while_busy, shell_idle, line_by_line,
// unverifiable, checked_version, version_args). A zero field means "none" or "the engine's default", as
// each field says.
type Profile struct {
	// Name is the profile's name (the NAME of [profile.NAME]).
	Name string
	// Command is the program and any fixed leading arguments. An agent's
	// own command replaces only this; Args still follow it. Empty: every
	// agent of this profile must give a command (the custom profile).
	Command []string
	// Args are appended after the program, whichever program it is.
	Args []string
	// Resume are arguments that make the CLI continue a conversation;
	// ResumeArgv puts them between the program and Args. An argument "{id}"
	// is replaced by the conversation id office chose at the first start
	// (SessionID); without "{id}" they continue the CLI's most recent
	// conversation in the working directory. Empty: the CLI cannot resume.
	Resume []string
	// SessionID are arguments that start a new conversation under an id
	// office chooses (a UUIDv4 replaces "{id}"), so a restart can resume
	// exactly that conversation. Empty: the CLI picks its own ids.
	SessionID []string
	// SessionFile is where the CLI stores a conversation: a glob, "~/" is
	// the agent's HOME, "{id}" its conversation id and "{id8}" the id's
	// first 8 characters. When set, office
	// resumes only once the file exists (a conversation without a turn is
	// not stored; resuming it would fail) and otherwise starts again under
	// the same id.
	SessionFile string
	// Hooks names the hook protocol office wires up: "claude" writes a
	// per-agent Claude Code settings file whose hooks run `office hook
	// EVENT` and passes it with --settings. "": none.
	Hooks string
	// Channel names the channel the CLI takes a message by at a turn's
	// end without typing (docs/channels.md): ChannelStopHook, its Stop
	// hook answering {"decision":"block","reason":TEXT}, which office
	// installs with Hooks. "": none; every message is typed.
	Channel string
	// Delivery is DeliveryAuto (the channel where Channel declares one
	// office installs, else typing) or DeliveryType (always typed); "" is
	// auto. An agent's own delivery key wins (Agent.Delivery).
	Delivery string
	// Records names the kind of record the CLI keeps of its conversation
	// (package records: "claude", "codex", "gemini"), which office reads as
	// the evidence that a delivery arrived and for the agent's last reply.
	// "": none (the screen check alone decides).
	Records string
	// Env is set in the environment of every agent of this profile (the
	// agent's own env wins on a clash). It disarms auto-updaters, daemons
	// and network extras that have no place in a test or an office.
	Env map[string]string
	// EnvFiles are variables whose value is a file office writes for each
	// agent: the map's value is the file's content, and the variable is set
	// to the file's path (e.g. Gemini's GEMINI_CLI_SYSTEM_DEFAULTS_PATH with
	// settings that turn its auto-updater off). An agent whose own env sets
	// the variable keeps its value.
	EnvFiles map[string]string
	// PassEnv names host variables each agent of this profile receives when
	// they are set on the host (API keys, base URLs, config dirs).
	PassEnv []string

	// ReadyMarkers must all be on screen for the CLI to count as ready (after
	// ReadySettle). Empty: ready after the first output and 2 s of quiet.
	// Either way the 35 s boot grace ends the wait.
	ReadyMarkers []string
	// ReadySettle is how long the ready markers must stay on screen before
	// the first write. Zero: no settle.
	ReadySettle Duration

	// PromptMarker is the character(s) that start the input row, at
	// PromptColumn (0-based cells). Empty: the input row cannot be located.
	PromptMarker string
	// PromptColumn is the cell column PromptMarker starts at.
	PromptColumn int
	// PromptPlaceholders are texts the CLI shows on an empty input row (dim
	// on a real terminal; the screen keeps no dim attribute): a prompt row
	// reading exactly one of them is empty.
	PromptPlaceholders []string
	// PromptBetweenRules: the input row is the one whose neighbours above and
	// below are horizontal rules (U+2500). Other rows starting with the
	// marker (past messages, picker pointers) are not the input row.
	PromptBetweenRules bool

	// TitleBusy is a set of runes: a window title whose first non-space rune
	// is one of them means busy.
	TitleBusy string
	// TitleIdle is a set of runes: a title starting with one of them means
	// idle (a rune in both sets means busy).
	TitleIdle string
	// TitleBraille: a title starting with a braille rune (U+2800–U+28FF, a
	// spinner frame) means busy.
	TitleBraille bool

	// Busy, Idle and Waiting are screen substrings. Waiting means a dialog
	// asks a human (a permission or trust prompt): delivery is held whatever
	// else says idle, because Enter would answer the dialog. Pickers the
	// person opened are not listed: the picker latch covers them.
	Busy    []string
	Idle    []string
	Waiting []string
	// Quiet is how long without output turns busy into idle when no stronger
	// signal decides. Zero: the office file's quiet (12 s by default). A
	// built-in profile's quiet is a default: the office file's top-level
	// quiet replaces it; a [profile.NAME] quiet the office file writes wins
	// over the top-level one (Config.SettingsFor).
	Quiet Duration

	// Interactive lists bare commands that open a picker in this CLI, in
	// addition to the built-in 15 (/model, /permissions, ...). Entries hold
	// no whitespace: a command with arguments never opens a picker.
	Interactive []string
	// Compact lists the CLI's compaction commands ("/compact", "/compress").
	Compact []string
	// Clear lists the commands that clear the conversation ("/clear").
	Clear []string

	// EnterDelay is the gap between writing the text and writing Enter alone.
	// Zero: the office file's enter_gap (140 ms by default).
	EnterDelay Duration
	// PasteEnterDelay is the gap between a bracketed paste and Enter. Zero:
	// EnterDelay.
	PasteEnterDelay Duration
	// EnterRetries is how many more Enters the submit check may send while
	// the text still sits on the prompt of an idle agent with nothing open
	// (a CLI that loses Enters for a while after it draws its input box).
	// Zero: one.
	EnterRetries int
	// EnterAfterEcho: the Enter waits for the text to show on the prompt
	// row, then the Enter gap again (a CLI that reads text and Enter in one
	// batch takes the Enter as a newline).
	EnterAfterEcho bool
	// CheckedVersion is the CLI version this profile's screens were checked
	// on; VersionArgs make the CLI print its version without running a
	// turn (`claude --version`). At start office reads the installed one
	// and says once when it is newer (its screens may have changed; an
	// unknown screen holds delivery). Empty: not checked.
	CheckedVersion string
	VersionArgs    []string
	// EnterWhileBusy is what Enter does while the CLI is busy: "queue" (it
	// holds the message for after the turn), "steer" (it interrupts the turn
	// with the message) or "" (unknown, or not applicable).
	EnterWhileBusy string

	// ShellIdle: the agent is idle exactly when the shell is the PTY's
	// foreground process group (no job running), busy otherwise.
	ShellIdle bool
	// LineByLine: multi-line text, when the program has not enabled bracketed
	// paste, is typed one line at a time (a shell expects lines). Otherwise
	// such text is held ("no paste mode").
	LineByLine bool
	// Unverifiable: the input row cannot be read, so the submit check (did
	// the prompt empty or the agent turn busy?) is skipped.
	Unverifiable bool

	// Limits are the CLI's usage-limit and API-error texts (the table
	// [profile.NAME.limits]; limits.go, docs/limits.md).
	Limits LimitPatterns
}

// Profile names known to office whatever the file says.
const (
	// ProfileClaude is Claude Code.
	ProfileClaude = "claude"
	// ProfileCodex is OpenAI Codex CLI.
	ProfileCodex = "codex"
	// ProfileGemini is Gemini CLI.
	ProfileGemini = "gemini"
	// ProfileShell is an interactive shell.
	ProfileShell = "shell"
	// ProfileCustom is any other command; agents that give only a command
	// get it.
	ProfileCustom = "custom"
)

// HooksClaude is Profile.Hooks for Claude Code's hooks (a settings file
// passed with --settings).
const HooksClaude = "claude"

// HooksCodex is Profile.Hooks for Codex's: office's Stop hook passed as
// `-c hooks.Stop=[…]` (a definition that never changes between starts, so
// the person's one review in /hooks holds), only while the agent takes its
// channel (UsesChannel): Codex asks the person to review a new hook.
const HooksCodex = "codex"

// ChannelStopHook is Profile.Channel for a CLI whose Stop hook office
// installs (Hooks) and whose block answer continues the turn with a
// message (Claude Code).
const ChannelStopHook = "stop_hook"

// Values of Profile.Delivery and Agent.Delivery.
const (
	// DeliveryAuto: the profile's channel where it declares a working
	// one, else typed.
	DeliveryAuto = "auto"
	// DeliveryType: every message is typed.
	DeliveryType = "type"
)

// asDelivery reads a delivery key's value.
func asDelivery(v any) (string, error) {
	s, err := asString(v)
	if err != nil {
		return "", err
	}
	if s != DeliveryAuto && s != DeliveryType {
		return "", fmt.Errorf("%q is not one of %q or %q", s, DeliveryAuto, DeliveryType)
	}
	return s, nil
}

// UsesChannel reports whether an agent of profile p whose own delivery
// key is agentDelivery ("" for none) takes messages by p's channel:
// delivery auto (the agent's, else the profile's, else the default) and a
// channel office installs (ChannelStopHook with Claude's or Codex's
// hooks).
func UsesChannel(p Profile, agentDelivery string) bool {
	d := agentDelivery
	if d == "" {
		d = p.Delivery
	}
	if d == DeliveryType {
		return false
	}
	return p.Channel == ChannelStopHook && (p.Hooks == HooksClaude || p.Hooks == HooksCodex)
}

// Values of Profile.EnterWhileBusy.
const (
	// EnterQueues: Enter while busy queues the message for after the turn.
	EnterQueues = "queue"
	// EnterSteers: Enter while busy interrupts the turn with the message.
	EnterSteers = "steer"
)

//go:embed profiles.toml
var profilesTOML []byte

// profilesFile is the name built-in profile errors are reported under.
const profilesFile = "profiles.toml"

// BuiltinProfiles returns the built-in profiles (claude, codex, gemini,
// shell, custom) from the embedded profiles.toml, keyed by name. The map and
// its values are fresh copies. An error means the embedded file is broken,
// which the package's tests rule out.
func BuiltinProfiles() (map[string]Profile, error) {
	doc, err := decodeTOML(profilesFile, profilesTOML)
	if err != nil {
		return nil, fmt.Errorf("configs: built-in profiles: %w", err)
	}
	ix := indexSource(string(profilesTOML))
	probs := &problems{file: profilesFile}
	out := map[string]Profile{}
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		if k != "profile" {
			probs.add(ix.line(k), "unknown key %q", k)
		}
	}
	if v, ok := doc["profile"]; ok {
		decodeProfiles(v, out, ix, probs, nil)
	}
	if err := probs.err(); err != nil {
		return nil, fmt.Errorf("configs: built-in profiles: %w", err)
	}
	return out, nil
}

// checkName refuses agent and profile names that do not match
// ^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$ (ASCII only).
func checkName(name string) error {
	ok := len(name) >= 1 && len(name) <= 32
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		alnum := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		ok = alnum || i > 0 && (c == '_' || c == '.' || c == '-')
	}
	if !ok {
		return fmt.Errorf("bad name %q: use 1 to 32 letters, digits, '_', '.' or '-', starting with a letter or digit", name)
	}
	return nil
}

// decodeProfiles applies the value of a top-level "profile" key (a table of
// tables) to profiles: a table for an existing name overrides only the keys
// it sets; a new name adds a profile. setAt, when not nil, records the line
// of each key set, by profile name (the office file's tables, for
// Config.AgentValue).
func decodeProfiles(v any, profiles map[string]Profile, ix *srcIndex, probs *problems, setAt map[string]map[string]int) {
	tables, ok := v.(map[string]any)
	if !ok {
		probs.add(ix.line("profile"), "profile: want tables like [profile.NAME], got %s", tomlType(v))
		return
	}
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		at := func(key ...string) int { return ix.line(append([]string{"profile", name}, key...)...) }
		if err := checkName(name); err != nil {
			probs.add(at(), "profile %q: %v", name, err)
			continue
		}
		t, ok := tables[name].(map[string]any)
		if !ok {
			probs.add(at(), "profile %q: want a table, got %s", name, tomlType(tables[name]))
			continue
		}
		p, ok := profiles[name]
		if ok {
			p = p.clone()
		} else {
			p = Profile{Name: name}
		}
		for _, key := range slices.Sorted(maps.Keys(t)) {
			known, err := setProfileKey(&p, key, t[key])
			switch {
			case !known:
				probs.add(at(key), "profile %q: unknown key %q", name, key)
			case err != nil:
				probs.add(at(key), "profile %q: %s: %v", name, key, err)
			case setAt != nil:
				if setAt[name] == nil {
					setAt[name] = map[string]int{}
				}
				setAt[name][key] = at(key)
			}
		}
		profiles[name] = p
	}
}

// setProfileKey sets the field named by a TOML key from its value. known is
// false for a key Profile does not have. Env merges into the existing map
// variable by variable (so adding one keeps the built-in ones); every other
// key replaces the field.
func setProfileKey(p *Profile, key string, v any) (known bool, err error) {
	switch key {
	case "command":
		p.Command, err = asCommand(v)
	case "args":
		p.Args, err = asStrings(v, true)
	case "resume":
		p.Resume, err = asStrings(v, true)
	case "session_id":
		p.SessionID, err = asStrings(v, true)
	case "session_file":
		p.SessionFile, err = asString(v)
	case "hooks":
		var s string
		if s, err = asString(v); err == nil {
			if s != "" && s != HooksClaude && s != HooksCodex {
				err = fmt.Errorf("%q is not one of %q, %q or \"\"", s, HooksClaude, HooksCodex)
			} else {
				p.Hooks = s
			}
		}
	case "channel":
		var s string
		if s, err = asString(v); err == nil {
			if s != "" && s != ChannelStopHook {
				err = fmt.Errorf("%q is not one of %q or \"\"", s, ChannelStopHook)
			} else {
				p.Channel = s
			}
		}
	case "delivery":
		p.Delivery, err = asDelivery(v)
	case "records":
		var s string
		if s, err = asString(v); err == nil {
			if s != "" && !slices.Contains(records.Kinds(), s) {
				err = fmt.Errorf("%q is not one of %q or \"\"", s, records.Kinds())
			} else {
				p.Records = s
			}
		}
	case "env":
		var env map[string]string
		if env, err = asEnv(v); err == nil {
			if p.Env == nil {
				p.Env = map[string]string{}
			}
			maps.Copy(p.Env, env)
		}
	case "env_files":
		var env map[string]string
		if env, err = asEnv(v); err == nil {
			if p.EnvFiles == nil {
				p.EnvFiles = map[string]string{}
			}
			maps.Copy(p.EnvFiles, env)
		}
	case "pass_env":
		p.PassEnv, err = asEnvNames(v)
	case "ready_markers":
		p.ReadyMarkers, err = asStrings(v, false)
	case "ready_settle":
		p.ReadySettle, err = asDuration(v)
	case "prompt_marker":
		p.PromptMarker, err = asString(v)
	case "prompt_column":
		p.PromptColumn, err = asCount(v)
	case "prompt_placeholders":
		p.PromptPlaceholders, err = asStrings(v, false)
	case "prompt_between_rules":
		p.PromptBetweenRules, err = asBool(v)
	case "title_busy":
		p.TitleBusy, err = asString(v)
	case "title_idle":
		p.TitleIdle, err = asString(v)
	case "title_braille":
		p.TitleBraille, err = asBool(v)
	case "busy":
		p.Busy, err = asStrings(v, false)
	case "idle":
		p.Idle, err = asStrings(v, false)
	case "waiting":
		p.Waiting, err = asStrings(v, false)
	case "quiet":
		// A setting too (quiet): the same range as the office file's.
		row, _ := Lookup("quiet")
		var n int64
		if n, err = row.parseValue(v); err == nil {
			p.Quiet = Duration{time.Duration(n)}
		}
	case "interactive":
		p.Interactive, err = asCommands(v)
	case "compact":
		p.Compact, err = asCommands(v)
	case "clear":
		p.Clear, err = asCommands(v)
	case "enter_delay":
		p.EnterDelay, err = asDuration(v)
	case "paste_enter_delay":
		p.PasteEnterDelay, err = asDuration(v)
	case "enter_retries":
		p.EnterRetries, err = asCount(v)
	case "enter_after_echo":
		p.EnterAfterEcho, err = asBool(v)
	case "checked_version":
		p.CheckedVersion, err = asString(v)
	case "version_args":
		p.VersionArgs, err = asStrings(v, false)
	case "enter_while_busy":
		var s string
		if s, err = asString(v); err == nil {
			if s != "" && s != EnterQueues && s != EnterSteers {
				err = fmt.Errorf("%q is not one of %q, %q or \"\"", s, EnterQueues, EnterSteers)
			} else {
				p.EnterWhileBusy = s
			}
		}
	case "shell_idle":
		p.ShellIdle, err = asBool(v)
	case "line_by_line":
		p.LineByLine, err = asBool(v)
	case "unverifiable":
		p.Unverifiable, err = asBool(v)
	default:
		return setProfileLimits(p, key, v)
	}
	return true, err
}

// asCommands wants an array of slash commands: non-blank, no whitespace.
func asCommands(v any) ([]string, error) {
	cmds, err := asStrings(v, false)
	if err != nil {
		return nil, err
	}
	for _, c := range cmds {
		if strings.ContainsAny(c, " \t\r\n") {
			return nil, fmt.Errorf("%q: a command here has no arguments (no whitespace)", c)
		}
	}
	return cmds, nil
}

// clone returns a deep copy of p.
func (p Profile) clone() Profile {
	p.Command = slices.Clone(p.Command)
	p.Args = slices.Clone(p.Args)
	p.Resume = slices.Clone(p.Resume)
	p.SessionID = slices.Clone(p.SessionID)
	p.Env = maps.Clone(p.Env)
	p.EnvFiles = maps.Clone(p.EnvFiles)
	p.PassEnv = slices.Clone(p.PassEnv)
	p.ReadyMarkers = slices.Clone(p.ReadyMarkers)
	p.PromptPlaceholders = slices.Clone(p.PromptPlaceholders)
	p.Busy = slices.Clone(p.Busy)
	p.Idle = slices.Clone(p.Idle)
	p.Waiting = slices.Clone(p.Waiting)
	p.Interactive = slices.Clone(p.Interactive)
	p.Compact = slices.Clone(p.Compact)
	p.Clear = slices.Clone(p.Clear)
	p.Limits = p.Limits.clone()
	p.VersionArgs = slices.Clone(p.VersionArgs)
	return p
}
