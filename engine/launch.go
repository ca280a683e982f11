package engine

// launch.go adapts an agent's command line and environment to its CLI just
// before it starts: the conversation id (so a restart of office resumes the
// same conversation), the per-agent hook settings (Claude Code), and the
// agent's git worktree.
//
// Per-agent state lives in STATE/agents/NAME/: launch.json (the conversation
// id and whether the agent was started before) and claude-settings.json.
// Worktrees live in STATE/worktrees/NAME on the branch office/NAME.

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"office/configs"
)

// launchMu serializes the read-modify-write of launch records: a start
// writes one, and so does a hook that names a new session (followSession).
var launchMu sync.Mutex

// followSession records session, the conversation a's CLI reports it is in
// (its hooks' session_id), as the one to resume, when it is not the one
// launch.json names: Claude Code 2.1.332 may start a new session after a
// first-run offer, and a restart resumed the old, empty one. Only for a
// profile that starts under an id office chooses (session_id).
func (e *Engine) followSession(a *Agent, session string) {
	if session == "" || len(a.Profile.SessionID) == 0 || !validSessionID(session) {
		return
	}
	adir := e.agentDir(a.Config.Name)
	launchMu.Lock()
	defer launchMu.Unlock()
	rec := readLaunchRecord(adir)
	if !rec.Launched || rec.SessionID == session {
		return
	}
	old := rec.SessionID
	rec.SessionID = session
	if err := writeLaunchRecord(adir, rec); err != nil {
		e.log.Error("recording the agent's new session", "agent", a.Config.Name, "err", err)
		return
	}
	e.log.Info("the agent's CLI moved to another session; it is the one resumed from now on", "agent", a.Config.Name, "from", old, "to", session)
}

// validSessionID reports whether id can stand in a CLI's argv and a file
// name: a bounded run of letters, digits, '-' and '_' (a UUID).
func validSessionID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// launchRecord is what office remembers about an agent's last start.
type launchRecord struct {
	// SessionID is the conversation id office chose (profile session_id).
	SessionID string `json:"session_id,omitempty"`
	// Launched is true once the agent has been started.
	Launched bool `json:"launched"`
	// LastStart is when it was last started.
	LastStart time.Time `json:"last_start"`
	// Dir is the working directory it ran in.
	Dir string `json:"dir,omitempty"`
	// Resumed is true when the last start resumed an earlier conversation
	// (which then already had its opening brief).
	Resumed bool `json:"resumed,omitempty"`
}

// agentDir is the agent's own folder in the state directory.
func (e *Engine) agentDir(name string) string {
	return AgentDir(e.opts.StateDir, name)
}

// launch returns the argv, extra environment (KEY=VALUE, appended last) and
// working directory to start a with.
func (e *Engine) launch(a *Agent, argv []string, dir string) ([]string, []string, string, error) {
	p := a.Profile
	if a.Config.Worktree {
		wt, err := e.worktree(a.Config.Name, dir)
		if err != nil {
			return nil, nil, "", err
		}
		dir = wt
	}
	adir := e.agentDir(a.Config.Name)
	if err := os.MkdirAll(adir, 0o700); err != nil {
		return nil, nil, "", fmt.Errorf("engine: agent state: %w", err)
	}
	launchMu.Lock()
	defer launchMu.Unlock()
	rec := readLaunchRecord(adir)
	// The program ends where the profile's Args begin.
	prog := len(argv) - len(p.Args)
	if prog < 1 || !slices.Equal(argv[prog:], p.Args) {
		prog = len(argv)
	}
	var insert []string
	home := agentHome(e.opts.HostEnv, a)
	rec.Resumed = false
	switch {
	case rec.Launched && len(p.Resume) > 0 && !hasIDArg(p.Resume):
		insert, rec.Resumed = p.Resume, true
	case rec.Launched && len(p.Resume) > 0 && rec.SessionID != "" && sessionStored(p.SessionFile, home, rec.SessionID):
		insert, rec.Resumed = withID(p.Resume, rec.SessionID), true
	case len(p.SessionID) > 0:
		if rec.SessionID == "" {
			rec.SessionID = newUUID()
		}
		insert = withID(p.SessionID, rec.SessionID)
	}
	if len(insert) > 0 {
		out := make([]string, 0, len(argv)+len(insert))
		out = append(out, argv[:prog]...)
		out = append(out, insert...)
		argv = append(out, argv[prog:]...)
	}
	if p.Hooks == configs.HooksClaude && e.opts.Bin != "" {
		file, err := writeClaudeHooks(adir, e.opts.Bin)
		if err != nil {
			return nil, nil, "", err
		}
		argv = append(argv, "--settings", file)
	}
	if p.Hooks == configs.HooksCodex && e.opts.Bin != "" && configs.UsesChannel(p, a.Config.Delivery) {
		argv = append(argv, "-c", codexStopHook(e.opts.Bin))
	}
	var env []string
	for _, k := range slices.Sorted(maps.Keys(p.EnvFiles)) {
		if _, own := a.Config.Env[k]; own {
			continue
		}
		file := filepath.Join(adir, "env-"+k)
		if err := os.WriteFile(file, []byte(p.EnvFiles[k]), 0o600); err != nil {
			return nil, nil, "", fmt.Errorf("engine: %s: %w", k, err)
		}
		env = append(env, k+"="+file)
	}
	rec.Launched, rec.LastStart, rec.Dir = true, time.Now().UTC(), dir
	if err := writeLaunchRecord(adir, rec); err != nil {
		return nil, nil, "", err
	}
	return argv, env, dir, nil
}

func readLaunchRecord(dir string) launchRecord {
	var rec launchRecord
	if b, err := os.ReadFile(filepath.Join(dir, "launch.json")); err == nil {
		_ = json.Unmarshal(b, &rec)
	}
	return rec
}

func writeLaunchRecord(dir string, rec launchRecord) error {
	b, _ := json.MarshalIndent(rec, "", "  ")
	tmp := filepath.Join(dir, "launch.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("engine: agent state: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "launch.json")); err != nil {
		return fmt.Errorf("engine: agent state: %w", err)
	}
	return nil
}

func hasIDArg(args []string) bool {
	for _, s := range args {
		if strings.Contains(s, "{id}") {
			return true
		}
	}
	return false
}

func withID(args []string, id string) []string {
	out := make([]string, len(args))
	for i, s := range args {
		out[i] = strings.ReplaceAll(s, "{id}", id)
	}
	return out
}

// sessionStored reports whether the conversation id is stored where the
// profile's session_file glob says; no glob means "assume it is".
func sessionStored(glob, home, id string) bool {
	if glob == "" {
		return true
	}
	if strings.HasPrefix(glob, "~/") {
		if home == "" {
			return true
		}
		glob = filepath.Join(home, glob[2:])
	}
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	glob = strings.ReplaceAll(strings.ReplaceAll(glob, "{id}", id), "{id8}", short)
	m, _ := filepath.Glob(glob)
	return len(m) > 0
}

// agentHome is the HOME the agent runs with (its own env, else the host's).
func agentHome(host []string, a *Agent) string {
	if h, ok := a.Config.Env["HOME"]; ok {
		return h
	}
	if h, ok := a.Profile.Env["HOME"]; ok {
		return h
	}
	for _, kv := range host {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	return ""
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// claudeHookEvents maps Claude Code hook events (and Notification matchers)
// to the `office hook` event names they run.
var claudeHookEvents = []struct{ event, matcher, arg string }{
	{"SessionStart", "", "SessionStart"},
	{"UserPromptSubmit", "", "UserPromptSubmit"},
	{"PreToolUse", "", "PreToolUse"},
	{"PostToolUse", "", "PostToolUse"},
	{"PreCompact", "", "PreCompact"},
	{"Stop", "", "Stop"},
	{"StopFailure", "", "StopFailure"},
	{"Notification", "permission_prompt", "Notification:permission"},
	{"Notification", "idle_prompt", "Notification:idle"},
}

// writeClaudeHooks writes the agent's Claude Code settings file: each hook
// runs `BIN hook EVENT` (which reads the hook's JSON on stdin and reports to
// the running office; it never fails the CLI). It returns the file's path.
func writeClaudeHooks(adir, bin string) (string, error) {
	hooks := map[string][]any{}
	for _, h := range claudeHookEvents {
		entry := map[string]any{
			"hooks": []any{map[string]any{
				"type":    "command",
				"command": shellQuote(bin) + " hook " + h.arg,
				"timeout": 5,
			}},
		}
		if h.matcher != "" {
			entry["matcher"] = h.matcher
		}
		hooks[h.event] = append(hooks[h.event], entry)
	}
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		return "", err
	}
	file := filepath.Join(adir, "claude-settings.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		return "", fmt.Errorf("engine: hook settings: %w", err)
	}
	return file, nil
}

// codexStopHook is the -c override that gives Codex office's Stop hook
// (docs/channels.md): `BIN hook Stop`, the agent named by OFFICE_AGENT, so
// the definition, and the trust the person gives it in /hooks (keyed by a
// hash of it), is the same at every start of every agent of this office
// binary. office never passes --dangerously-bypass-hook-trust and never
// writes the person's config.toml: until the person trusts it, Codex shows
// "Hooks need review" (a waiting pattern) and runs no hook.
func codexStopHook(bin string) string {
	return `hooks.Stop=[{hooks=[{type="command",command=` + tomlBasic(shellQuote(bin)+" hook Stop") + `}]}]`
}

// tomlBasic is s as a TOML basic string.
func tomlBasic(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s) + `"`
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// worktree returns the agent's git worktree, STATE/worktrees/NAME on the
// branch office/NAME, creating it from dir's repository the first time and
// reusing it afterwards. It is never removed by office (its work is kept).
func (e *Engine) worktree(name, dir string) (string, error) {
	wt := filepath.Join(e.opts.StateDir, "worktrees", name)
	git, err := exec.LookPath("git")
	if err != nil {
		return "", errors.New("engine: worktree = true needs git on PATH")
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	top, err := exec.Command(git, "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("engine: worktree: %s is not in a git repository", dir)
	}
	repo := strings.TrimSpace(string(top))
	// The agent works in the same subfolder of its worktree.
	sub := ""
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		if rel, err := filepath.Rel(repo, real); err == nil && !strings.HasPrefix(rel, "..") {
			sub = rel
		}
	}
	if _, err := os.Stat(filepath.Join(wt, ".git")); err == nil {
		return filepath.Join(wt, sub), nil
	}
	if err := os.MkdirAll(filepath.Dir(wt), 0o700); err != nil {
		return "", fmt.Errorf("engine: worktree: %w", err)
	}
	branch := "office/" + name
	args := []string{"-C", repo, "worktree", "add", "-b", branch, wt}
	if exec.Command(git, "-C", repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch).Run() == nil {
		args = []string{"-C", repo, "worktree", "add", wt, branch}
	}
	if out, err := exec.Command(git, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("engine: worktree: git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return filepath.Join(wt, sub), nil
}

// pruneWorktree removes agent name's worktree and its branch office/NAME
// when they hold no work: no uncommitted or untracked change, and no commit
// that no other branch has. A worktree with work is kept for the next start
// (and for the person). It reports whether it removed anything. Errors only
// mean the worktree is kept.
func (e *Engine) pruneWorktree(name string) bool {
	wt := filepath.Join(e.opts.StateDir, "worktrees", name)
	if _, err := os.Stat(filepath.Join(wt, ".git")); err != nil {
		return false
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return false
	}
	status, err := exec.Command(git, "-C", wt, "status", "--porcelain").Output()
	if err != nil || len(strings.TrimSpace(string(status))) > 0 {
		return false
	}
	branch := "refs/heads/office/" + name
	own, err := exec.Command(git, "-C", wt, "rev-list", "--count", branch, "--not", "--exclude=office/"+name, "--branches").Output()
	if err != nil || strings.TrimSpace(string(own)) != "0" {
		return false
	}
	common, err := exec.Command(git, "-C", wt, "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if err != nil {
		return false
	}
	if out, err := exec.Command(git, "-C", wt, "worktree", "remove", wt).CombinedOutput(); err != nil {
		e.log.Warn("worktree kept: git worktree remove failed", "agent", name, "err", err, "out", strings.TrimSpace(string(out)))
		return false
	}
	gitDir := strings.TrimSpace(string(common))
	if out, err := exec.Command(git, "--git-dir", gitDir, "branch", "-D", "office/"+name).CombinedOutput(); err != nil {
		e.log.Warn("worktree removed, its branch kept", "agent", name, "err", err, "out", strings.TrimSpace(string(out)))
	}
	e.log.Info("empty worktree removed", "agent", name)
	return true
}
