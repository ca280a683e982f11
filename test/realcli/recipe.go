// Package realcli runs the real agent CLIs (Claude Code, Codex, Gemini CLI)
// under office, offline, against the loopback fake model server
// (office/test/fakemodel). This file is the seeded-config recipe of
// real-clis.md §3 and §8: where the pinned binaries are, the throwaway HOME
// with each CLI's config seeded, and an environment built from scratch that
// disarms every trap (auto-updater, daemon, network extras).
package realcli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Pinned versions: the ones the profiles and fixtures were checked against.
// .ci/run installs exactly these. ClaudeVersion, which the seeded config
// names as the last onboarding, is the latest lane's version in that lane
// (latest.go).
var ClaudeVersion = "2.1.332"

const (
	CodexVersion  = "0.171.0"
	GeminiVersion = "0.61.0"
)

// DirEnv names the variable that points at the npm prefix holding the pinned
// CLIs; unset, the default is $HOME/.cache/office-realcli (.ci/run installs
// there).
const DirEnv = "OFFICE_REALCLI_DIR"

// Dir returns the npm prefix the pinned CLIs are installed in.
func Dir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "office-realcli")
}

// Binary returns the absolute path of a CLI's executable ("claude", "codex"
// or "gemini") under dir, or an error saying how to install it. The native
// binaries are exec'd directly (real-clis.md §2): no Node shim for Claude or
// Codex, and Claude's works even when npm skipped its postinstall.
func Binary(dir, cli string) (string, error) {
	nm := filepath.Join(dir, "node_modules")
	var p string
	switch cli {
	case "claude":
		p = filepath.Join(nm, "@anthropic-ai", "claude-code-linux-x64", "claude")
	case "codex":
		p = filepath.Join(nm, "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
	case "gemini":
		p = filepath.Join(nm, "@google", "gemini-cli", "bundle", "gemini.js")
	default:
		return "", fmt.Errorf("realcli: unknown CLI %q", cli)
	}
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return "", fmt.Errorf("realcli: %s not installed at %s (install: npm install --prefix %s --no-audit --no-fund @anthropic-ai/claude-code@%s @openai/codex@%s @google/gemini-cli@%s; or set %s)",
			cli, p, dir, ClaudeVersion, CodexVersion, GeminiVersion, DirEnv)
	}
	return p, nil
}

// Sandbox is one throwaway machine for a CLI: HOME, TMPDIR, an npm prefix
// trap and a tiny project directory.
type Sandbox struct {
	Home    string
	Tmp     string
	NPMTrap string // NPM_CONFIG_PREFIX: a global npm install lands here, not on the machine
	Project string
	URL     string // the fake model server
	// OfferAutoMode: Claude's config does not say the auto-mode offer was
	// answered, so 2.1.332 shows it at start.
	OfferAutoMode bool
}

// NewSandbox makes the directories under root (a test's TempDir) and seeds
// every CLI's config for project trust, the dummy keys and the fake server at
// url. Seeding all three is cheap (three small files) and lets one office run
// any of them.
func NewSandbox(root, url string) (*Sandbox, error) {
	s := &Sandbox{
		Home:    filepath.Join(root, "home"),
		Tmp:     filepath.Join(root, "home", "tmp"),
		NPMTrap: filepath.Join(root, "home", ".npm-trap"),
		Project: filepath.Join(root, "proj"),
		URL:     url,
	}
	for _, d := range []string{s.Home, s.Tmp, s.NPMTrap, s.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(s.Project, "README.md"), []byte("# proj\n"), 0o644); err != nil {
		return nil, err
	}
	// A real (empty) git repository when git exists: the CLIs look for a
	// project root, and worktrees need one.
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "init", "-q", "-b", "main", s.Project)
		cmd.Env = append(s.HostEnv(), "GIT_CONFIG_NOSYSTEM=1")
		_ = cmd.Run()
	}
	if err := s.seedClaude(); err != nil {
		return nil, err
	}
	if err := s.seedCodex(); err != nil {
		return nil, err
	}
	if err := s.seedGemini(); err != nil {
		return nil, err
	}
	return s, nil
}

// Distrust removes the project trust NewSandbox seeded for every CLI, so
// each shows its first-run folder trust dialog.
func (s *Sandbox) Distrust() error {
	if err := s.writeClaude(false); err != nil {
		return err
	}
	if err := s.writeCodex(false); err != nil {
		return err
	}
	return os.Remove(filepath.Join(s.Home, ".gemini", "trustedFolders.json"))
}

// ClaudeKey is the dummy Anthropic key; Claude approves it by its last 20
// characters in ~/.claude.json.
const ClaudeKey = "sk-ant-api03-dummy-office-realcli-0123456789abcdefghij"

func (s *Sandbox) seedClaude() error { return s.writeClaude(true) }

func (s *Sandbox) writeClaude(trusted bool) error {
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"lastOnboardingVersion":  ClaudeVersion,
		"theme":                  "dark",
		"customApiKeyResponses":  map[string]any{"approved": []string{ClaudeKey[len(ClaudeKey)-20:]}, "rejected": []string{}},
	}
	if trusted {
		cfg["projects"] = map[string]any{s.Project: map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []string{}}}
	}
	if !s.OfferAutoMode {
		// A person who answered "No, keep manual mode" once (2.1.332,
		// checked: the answer sets only this key).
		cfg["hasSeenAutoDefaultNudge"] = true
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(s.Home, ".claude.json"), b, 0o600); err != nil {
		return err
	}
	// Manual permission mode (2.1.332's default is auto mode, which runs
	// tool calls with no dialog): the suite's permission dialog needs it.
	// With it and no nudge seen, 2.1.332 offers "Make auto mode your
	// default permission mode?" at start.
	if err := os.MkdirAll(filepath.Join(s.Home, ".claude"), 0o700); err != nil {
		return err
	}
	return os.WriteFile(s.ClaudeSettings(), []byte(ClaudeManualSettings), 0o600)
}

// ClaudeManualSettings is the person's ~/.claude/settings.json the sandbox
// seeds: manual permission mode.
const ClaudeManualSettings = `{"permissions": {"defaultMode": "default"}}` + "\n"

// ClaudeSettings is the person's own Claude settings file in the sandbox.
func (s *Sandbox) ClaudeSettings() string {
	return filepath.Join(s.Home, ".claude", "settings.json")
}

// OfferClaudeAutoMode rewrites the Claude config so that 2.1.332 shows its
// first-run offer "Make auto mode your default permission mode?".
func (s *Sandbox) OfferClaudeAutoMode() error {
	s.OfferAutoMode = true
	return s.writeClaude(true)
}

func (s *Sandbox) seedCodex() error { return s.writeCodex(true) }

func (s *Sandbox) writeCodex(trusted bool) error {
	dir := filepath.Join(s.Home, ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	cfg := fmt.Sprintf(`check_for_update_on_startup = false
model_provider = "fake"
model = "gpt-fake"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"

[features]
daemon_auto_start = false

[tui]
screen_reader_detection_done = true
`, s.URL)
	if trusted {
		cfg += fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", s.Project)
	}
	return os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600)
}

func (s *Sandbox) seedGemini() error {
	dir := filepath.Join(s.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	trust, _ := json.Marshal(map[string]string{s.Project: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(dir, "trustedFolders.json"), trust, 0o600); err != nil {
		return err
	}
	settings := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"general":  map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"model":    map[string]any{"name": "gemini-2.5-flash"},
		"ui":       map[string]any{"hideTips": true},
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	return os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o600)
}

// HostEnv is the environment office runs with in a test (never
// os.Environ()): the throwaway HOME and TMPDIR, the npm trap, and every key,
// base URL and trap-disarming variable of the three CLIs. office passes an
// agent only its allowlist plus the profile's pass_env, and the profiles set
// the trap-disarming variables themselves; they are repeated here so a CLI
// run outside office (the recorder) gets them too.
func (s *Sandbox) HostEnv() []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"HOME=" + s.Home,
		"TMPDIR=" + s.Tmp,
		"NPM_CONFIG_PREFIX=" + s.NPMTrap,
		// Claude Code
		"ANTHROPIC_API_KEY=" + ClaudeKey,
		"ANTHROPIC_BASE_URL=" + s.URL,
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
		// Codex (the provider's env_key; daemon_auto_start=false is in config.toml and the profile's args)
		"FAKE_API_KEY=dummy",
		"CODEX_TUI_DISABLE_KEYBOARD_ENHANCEMENT=1",
		// Gemini CLI
		"GEMINI_API_KEY=dummy",
		"GOOGLE_GEMINI_BASE_URL=" + s.URL,
		"COLORTERM=truecolor",
		"GEMINI_CLI_NO_RELAUNCH=true",
	}
}

// AgentEnv is what the test office's agent config adds for a CLI: variables
// the profile does not pass from the host (Codex's custom provider key).
func AgentEnv(cli string) map[string]string {
	switch cli {
	case "codex":
		return map[string]string{"FAKE_API_KEY": "dummy"}
	}
	return nil
}

// TOMLString quotes s for a TOML file.
func TOMLString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TOMLStrings quotes a list for a TOML file.
func TOMLStrings(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = TOMLString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
