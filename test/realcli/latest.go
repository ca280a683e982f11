package realcli

// The lane for the newest releases: with OFFICE_REALCLI_LATEST=1 the tests
// run against the newest release of each CLI on the npm registry, installed
// into its own cache (never the pinned one, never globally), so moving a pin
// is one command: run the lane, fix what fails, then move the pins.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// LatestEnv names the variable that switches the tests to the newest
// releases; LatestDirEnv the cache they are installed in (default
// $HOME/.cache/office-realcli-latest).
const (
	LatestEnv    = "OFFICE_REALCLI_LATEST"
	LatestDirEnv = "OFFICE_REALCLI_LATEST_DIR"
)

// Packages are the npm packages of the three CLIs.
var Packages = map[string]string{
	"claude": "@anthropic-ai/claude-code",
	"codex":  "@openai/codex",
	"gemini": "@google/gemini-cli",
}

// latestTimeout bounds the registry look-ups and the install.
const latestTimeout = 10 * time.Minute

// InstallLatest asks the registry for each CLI's newest version and installs
// those into the latest lane's cache unless it holds them already (a stamp
// file names what it holds). It returns the cache dir and the versions.
func InstallLatest() (dir string, versions map[string]string, err error) {
	dir = os.Getenv(LatestDirEnv)
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "office-realcli-latest")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", nil, fmt.Errorf("realcli: the latest lane needs npm: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), latestTimeout)
	defer cancel()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	// NPM_CONFIG_PREFIX only matters for -g installs: pinned into the
	// cache, nothing here can touch the machine's global prefix.
	env := append(os.Environ(), "NPM_CONFIG_PREFIX="+filepath.Join(dir, ".npm-prefix"), "DISABLE_AUTOUPDATER=1")
	versions = map[string]string{}
	var specs []string
	for _, cli := range []string{"claude", "codex", "gemini"} {
		cmd := exec.CommandContext(ctx, npm, "view", Packages[cli], "version")
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			return "", nil, fmt.Errorf("realcli: npm view %s version: %w", Packages[cli], err)
		}
		versions[cli] = strings.TrimSpace(string(out))
		specs = append(specs, Packages[cli]+"@"+versions[cli])
	}
	stamp := filepath.Join(dir, ".office-pins")
	want := strings.Join(specs, " ")
	if b, _ := os.ReadFile(stamp); strings.TrimSpace(string(b)) == want {
		return dir, versions, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"office-realcli-latest","private":true}`+"\n"), 0o644); err != nil {
			return "", nil, err
		}
	}
	cmd := exec.CommandContext(ctx, npm, append([]string{"install", "--prefix", dir, "--no-audit", "--no-fund"}, specs...)...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("realcli: npm install %s: %w\n%s", want, err, out)
	}
	return dir, versions, os.WriteFile(stamp, []byte(want+"\n"), 0o644)
}
