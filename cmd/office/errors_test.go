package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// prefixRE finds the "word: " prefixes of an error line.
var prefixRE = regexp.MustCompile(`\b([a-z]+): `)

// doubledPrefix returns a prefix that stands twice in line ("queue: queue:",
// "engine: team add: engine: ..."), or "".
func doubledPrefix(line string) string {
	seen := map[string]bool{}
	for _, m := range prefixRE.FindAllStringSubmatch(line, -1) {
		if seen[m[1]] {
			return m[1]
		}
		seen[m[1]] = true
	}
	return ""
}

func TestDoubledPrefixFindsOne(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		`office: queue: queue: enqueue: unknown agent "x"`:                     "queue",
		`office: team add a1: engine: engine: team add "a1": name in use`:      "engine",
		`office: send to "x": queue: enqueue: unknown agent "x"`:               "",
		`office: approve a1: engine: approve "a1": no dialog is waiting`:       "",
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
	}
	check := func(cases []errCase) {
		t.Helper()
		for _, tc := range cases {
			r := o.exec(strings.NewReader(""), tc.args...)
			msg := strings.TrimSpace(r.stderr)
			if r.code == 0 || !strings.Contains(msg, tc.err) {
				t.Errorf("office %q: exit %d, stderr %q; want a failure saying %q", tc.args, r.code, msg, tc.err)
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
		{g("send", "nobody", "hi"), "unknown agent"},
		{g("send", "a1", " "), "blank"},
		{g("queue", "release", "999"), "not found"},
		{g("queue", "rm", "999"), "not found"},
		{g("queue", "clear", "nobody"), "unknown agent"},
		{g("queue", "nobody"), "unknown agent"},
		{g("pause", "nobody"), "unknown agent"},
		{g("resume", "nobody"), "unknown agent"},
		{g("mail", "send", "--to", "nobody", "hi"), "unknown receiver"},
		{g("history", "nobody"), "unknown agent"},
		{g("status"), "no office is running"},
		{g("stop"), "no office is running"},
		{g("team", "add", "c3", "--profile", "shell"), "no office is running"},
		{g("approve", "a1", "1"), "no office is running"},
		{[]string{"--config", bad, "--state", o.state, "send", "x", "hi"}, "no profile and no command"},
		{[]string{"--config", filepath.Join(dir, "none.toml"), "--state", o.state, "send", "a1", "hi"}, "no such file"},
		{[]string{"--config", o.config, "--state", notDir, "send", "a1", "hi"}, "not a directory"},
	})

	// Against a running office.
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan int, 1)
	var serveErr bytes.Buffer
	go func() {
		e := &env{stdin: strings.NewReader(""), stdout: new(bytes.Buffer), stderr: &serveErr,
			getenv: func(k string) string { return o.env[k] }, bin: "office"}
		served <- run(ctx, e, g("serve"))
	}()
	t.Cleanup(func() { cancel(); <-served })
	// Ready once it answers (the socket listens after the lock is taken).
	deadline := time.Now().Add(20 * time.Second)
	for o.exec(strings.NewReader(""), g("status")...).code != 0 {
		select {
		case code := <-served:
			t.Fatalf("office serve ended with %d: %s", code, serveErr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("office serve did not answer within 20 s: %s", serveErr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	check([]errCase{
		{g("send", "nobody", "hi"), "unknown agent"},
		{g("team", "add", "a1", "--profile", "shell"), "already in use"},
		{g("team", "add", "bad name", "--profile", "shell"), "not a valid agent name"},
		{g("team", "add", "c3", "--profile", "nosuch"), "unknown profile"},
		{g("team", "rm", "nobody"), "unknown agent"},
		{g("status", "nobody"), "unknown agent"},
		{g("history", "nobody"), "unknown agent"},
		{g("approve", "a1", "1"), "no dialog is waiting"},
		{g("approve", "nobody", "1"), "unknown agent"},
		{g("wait", "a1", "--until", "delivered:999", "--timeout", "1s"), "no message 999"},
		{g("serve"), "another office"},
	})
}
