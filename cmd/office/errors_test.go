package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// prefixRE finds the "word: " prefixes of an error line.
var prefixRE = regexp.MustCompile(`\b([a-z]+): `)

// doubledPrefix returns a prefix that stands twice in line ("queue: queue:",
// "engine: team add: engine: ..."), or a part between ": " said twice,
// quotes aside ("team add zz: engine: team add \"zz\": ..."), or "".
func doubledPrefix(line string) string {
	seen := map[string]bool{}
	for _, m := range prefixRE.FindAllStringSubmatch(line, -1) {
		if seen[m[1]] {
			return m[1]
		}
		seen[m[1]] = true
	}
	parts := map[string]bool{}
	for _, p := range strings.Split(line, ": ") {
		p = strings.ReplaceAll(p, `"`, "")
		if parts[p] {
			return p
		}
		parts[p] = true
	}
	return ""
}

func TestDoubledPrefixFindsOne(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		`office: queue: queue: enqueue: unknown agent "x"`:                     "queue",
		`office: team add a1: engine: engine: team add "a1": name in use`:      "engine",
		`office: send to "x": queue: enqueue: unknown agent "x"`:               "",
		`office: approve a1: engine: approve "a1": no dialog is waiting`:       "approve a1",
		`office: team add zz: engine: team add "zz": name in use`:              "team add zz",
		`office: approve "a1": no dialog is waiting`:                           "",
		`office: queue release 5: queue: release message 5: not found`:         "",
		`office: configs: open /nonexistent/x.toml: no such file or directory`: "",
	} {
		if got := doubledPrefix(line); got != want {
			t.Errorf("doubledPrefix(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestErrorsSayEachPrefixOnce runs the main error paths of the commands,
// without an office and against a running one (`office serve` in this
// process, real agents in real PTYs): each fails with a message that names
// what went wrong, and no part of it is said twice ("queue: queue: ...",
// "engine: engine: ...").
func TestErrorsSayEachPrefixOnce(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	g := func(args ...string) []string {
		return append([]string{"--config", o.config, "--state", o.state}, args...)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[[agent]]\nname = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	type errCase struct {
		args []string
		err  string // a substring of stderr
		code int    // the exit code, when it is checked (not 0)
	}
	check := func(cases []errCase) {
		t.Helper()
		for _, tc := range cases {
			r := o.exec(strings.NewReader(""), tc.args...)
			msg := strings.TrimSpace(r.stderr)
			if r.code == 0 || !strings.Contains(msg, tc.err) {
				t.Errorf("office %q: exit %d, stderr %q; want a failure saying %q", tc.args, r.code, msg, tc.err)
			}
			if tc.code != 0 && r.code != tc.code {
				t.Errorf("office %q: exit %d (%q), want %d", tc.args, r.code, msg, tc.code)
			}
			for _, line := range strings.Split(msg, "\n") {
				if p := doubledPrefix(line); p != "" {
					t.Errorf("office %q: %q says %q twice", tc.args, line, p+":")
				}
			}
		}
	}
	// Without an office.
	check([]errCase{
		{g("send", "nobody", "hi"), `unknown agent "nobody" (the office's agents: a1, b2)`, 2},
		{g("send", "a1", " "), "blank", 0},
		{g("queue", "release", "999"), "not found", 0},
		{g("queue", "rm", "999"), "not found", 0},
		{g("queue", "clear", "nobody"), "unknown agent", 0},
		{g("queue", "nobody"), "unknown agent", 0},
		{g("pause", "nobody"), "unknown agent", 0},
		{g("resume", "nobody"), "unknown agent", 0},
		{g("mail", "send", "--to", "nobody", "hi"), "unknown receiver", 0},
		{g("history", "nobody"), "unknown agent", 0},
		{g("status"), "no office is running", 0},
		{g("team"), "start it with 'office start'", 1},
		{g("stop"), "no office is running", 0},
		{g("team", "add", "c3", "--profile", "shell"), "no office is running", 0},
		{g("approve", "a1", "1"), "no office is running", 0},
		{[]string{"--config", bad, "--state", o.state, "send", "x", "hi"}, "no profile and no command", 0},
		{[]string{"--config", filepath.Join(dir, "none.toml"), "--state", o.state, "send", "a1", "hi"}, "no such file", 0},
		{[]string{"--config", o.config, "--state", notDir, "send", "a1", "hi"}, "not a directory", 0},
	})

	// Against a running office.
	o.serve()
	check([]errCase{
		// Bad input refused by the engine exits 2 as it does when refused
		// here: the socket's answer says it was the request's fault.
		{g("send", "nobody", "hi"), "unknown agent", 2},
		{g("team", "add", "a1", "--profile", "shell"), "already in use", 2},
		{g("team", "add", "bad name", "--profile", "shell"), "not a valid agent name", 2},
		{g("team", "add", "c3", "--profile", "nosuch"), "unknown profile", 2},
		{g("team", "add", "c3", "--profile", "shell", "--parent", "nobody"), "is not an agent", 2},
		{g("team", "add", "c3", "--profile", "shell", "--cwd", filepath.Join(dir, "nowhere")), "does not exist", 2},
		{g("team", "add", "c3", "--profile", "shell", "--cwd", notDir), "is not a directory", 2},
		{g("team", "rm", "nobody"), "unknown agent", 2},
		{g("team", "rm", "a1"), "config file", 2},
		{g("team", "add", "zz", "--profile", "shell", "--parent", "nobody"), `team add "zz": bad input: parent "nobody" is not an agent`, 2},
		{g("status", "nobody"), "unknown agent", 2},
		{g("history", "nobody"), "unknown agent", 2},
		{g("approve", "a1", "1"), "no dialog is waiting", 1},
		{g("approve", "nobody", "1"), "unknown agent", 2},
		{g("wait", "a1", "--until", "delivered:999", "--timeout", "1s"), "no message 999", 0},
		{g("serve"), "a server already runs on", 1},
	})
}
