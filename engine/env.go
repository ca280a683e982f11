package engine

// env.go builds an agent's environment from scratch (README, "What reaches
// an agent", lists every variable). Where each variable comes from, later
// sources winning:
//   1. the host, for a short allowlist only (hostAllow) — never the whole
//      environment; SSH_AUTH_SOCK among them unless the agent's SSHAgent is
//      false (`ssh_agent = false`, for the office or per agent);
//   2. TERM=xterm-256color and COLORTERM=truecolor (what office's screen emulates);
//   3. the profile's PassEnv names, copied from the host when set (API keys);
//   4. the profile's Env (e.g. DISABLE_AUTOUPDATER=1), then the agent's own env;
//   5. OFFICE_AGENT, OFFICE_STATE, OFFICE_BIN, and the office binary's folder
//      put first on PATH so an agent can run `office mail …` itself.

import (
	"path/filepath"
	"sort"
	"strings"

	"office/configs"
)

// sshAuthSock is the variable that lends an agent the person's ssh keys.
const sshAuthSock = "SSH_AUTH_SOCK"

// hostAllow lists the host variables every agent inherits when set.
var hostAllow = [...]string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE",
	"LC_MESSAGES", "TZ", "TMPDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
	"XDG_RUNTIME_DIR", sshAuthSock, "EDITOR", "VISUAL", "NPM_CONFIG_PREFIX",
}

// AgentEnv returns the environment for agent a with profile p, as a sorted
// KEY=VALUE list. host is the office's own environment (os.Environ()).
// a.SSHAgent false drops SSH_AUTH_SOCK (nil keeps it: the engine resolves the
// config's own setting into it).
func AgentEnv(host []string, p configs.Profile, a configs.Agent, stateDir, bin string) []string {
	hostMap := make(map[string]string, len(host))
	for _, kv := range host {
		if k, v, ok := strings.Cut(kv, "="); ok {
			hostMap[k] = v
		}
	}
	env := map[string]string{}
	for _, k := range hostAllow {
		if v, ok := hostMap[k]; ok {
			env[k] = v
		}
	}
	if a.SSHAgent != nil && !*a.SSHAgent {
		delete(env, sshAuthSock)
	}
	env["TERM"] = "xterm-256color"
	env["COLORTERM"] = "truecolor"
	for _, k := range p.PassEnv {
		if v, ok := hostMap[k]; ok {
			env[k] = v
		}
	}
	for k, v := range p.Env {
		env[k] = v
	}
	for k, v := range a.Env {
		env[k] = v
	}
	env["OFFICE_AGENT"] = a.Name
	env["OFFICE_STATE"] = stateDir
	if bin != "" {
		env["OFFICE_BIN"] = bin
		dir := filepath.Dir(bin)
		if path, ok := env["PATH"]; ok && path != "" {
			env["PATH"] = dir + string(filepath.ListSeparator) + path
		} else {
			env["PATH"] = dir + string(filepath.ListSeparator) + "/usr/local/bin:/usr/bin:/bin"
		}
	} else if _, ok := env["PATH"]; !ok {
		env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
