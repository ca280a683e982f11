package engine

// Say when an agent's CLI is newer than its profile: each built-in profile
// names the version its screens were checked on (checked_version); at the
// first start of an agent of that profile, office runs the CLI's version
// command (version_args, no turn, bounded in time and output) and, when the
// installed version is newer, says so once per CLI (a notice and a log
// line): its screens may have changed, and a screen office does not know
// holds delivery.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"office/drain"
)

// NoticeCLINewer is the kind of the notice that an agent's CLI is newer than
// the version its profile was checked on.
const NoticeCLINewer = "cli_newer"

// versionTimeout bounds the version command; versionOutput its output read.
const (
	versionTimeout = 5 * time.Second
	versionOutput  = 4 << 10
)

// versionChecks remembers the CLIs checked by this engine (program and
// profile), so each is read and told once.
type versionChecks struct {
	mu   sync.Mutex
	done map[string]bool
}

// first reports whether key was not checked yet, and marks it.
func (v *versionChecks) first(key string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done == nil {
		v.done = map[string]bool{}
	}
	if v.done[key] {
		return false
	}
	v.done[key] = true
	return true
}

// checkVersion reads the version of program (the agent's CLI) in the
// background and tells when it is newer than the profile's checked one.
func (e *Engine) checkVersion(a *Agent, program string, env []string, dir string) {
	p := a.Profile
	if p.CheckedVersion == "" || len(p.VersionArgs) == 0 || !e.terms.versions.first(p.Name+"\x00"+program) {
		return
	}
	name := a.Config.Name
	go func() {
		got, err := readVersion(program, p.VersionArgs, env, dir)
		if err != nil {
			e.log.Debug("reading the CLI's version", "agent", name, "program", program, "err", err)
			return
		}
		if !VersionNewer(got, p.CheckedVersion) {
			return
		}
		msg := fmt.Sprintf("%s runs %s %s, newer than %s, the version office's %q profile was checked on: its screens may have changed; a screen office does not know holds delivery (office status --explain %s)",
			name, program, got, p.CheckedVersion, p.Name, name)
		e.log.Warn("the agent's CLI is newer than its profile", "agent", name, "installed", got, "checked", p.CheckedVersion)
		e.notice(drain.Notice{Agent: name, Kind: NoticeCLINewer, Text: msg})
	}()
}

// readVersion runs program with args and returns the first version number
// it prints.
func readVersion(program string, args, env []string, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Env, cmd.Dir = env, dir
	var out bytes.Buffer
	cmd.Stdout = &limited{w: &out, n: versionOutput}
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return "", err
	}
	v := versionIn(out.String())
	if v == "" {
		return "", fmt.Errorf("no version in %q", strings.TrimSpace(out.String()))
	}
	return v, nil
}

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	k := min(len(p), l.n)
	if k > 0 {
		if _, err := l.w.Write(p[:k]); err != nil {
			return 0, err
		}
		l.n -= k
	}
	return len(p), nil
}

var versionRE = regexp.MustCompile(`\d+(?:\.\d+)+`)

// versionIn returns the first dotted version number in s ("2.1.332 (Claude
// Code)", "codex-cli 0.171.0", "0.61.0").
func versionIn(s string) string { return versionRE.FindString(s) }

// VersionNewer reports whether version a is newer than b, comparing their
// dotted numbers part by part (a missing part counts as 0); false when
// either has none.
func VersionNewer(a, b string) bool {
	pa, pb := strings.Split(versionIn(a), "."), strings.Split(versionIn(b), ".")
	if pa[0] == "" || pb[0] == "" {
		return false
	}
	for i := 0; i < max(len(pa), len(pb)); i++ {
		x, y := part(pa, i), part(pb, i)
		if x != y {
			return x > y
		}
	}
	return false
}

func part(p []string, i int) int {
	if i >= len(p) {
		return 0
	}
	n, _ := strconv.Atoi(p[i])
	return n
}
