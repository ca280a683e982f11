package e2e

// What the command line refuses at the door (exit 2, nothing stored, the
// log carries no body) and its conventions: help, version, completion,
// global flags before the command, "--", idempotent sends.

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exec runs office with exactly args (nothing appended) and stdin.
func (o *office) exec(stdin io.Reader, args ...string) (string, string, int) {
	o.t.Helper()
	cmd := exec.Command(officeBin, args...)
	cmd.Env = o.env()
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	case err != nil:
		o.t.Fatalf("office %.200q: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), 0
}

// manyArgs is n arguments of size bytes each (one argument may be at most
// 128 KiB on Linux, all of them 2 MiB).
func manyArgs(n, size int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Repeat("y", size)
	}
	return out
}

// filler is n bytes of 'x'.
type filler struct{ n int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > f.n {
		p = p[:f.n]
	}
	for i := range p {
		p[i] = 'x'
	}
	f.n -= int64(len(p))
	return len(p), nil
}

func TestHelpVersionCompletion(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	out, errOut, code := o.exec(nil, "--help")
	if code != 0 {
		t.Fatalf("office --help: exit %d %s", code, errOut)
	}
	for _, c := range []string{"run", "serve", "send", "queue", "pause", "resume", "status", "mail", "inbox", "report", "approve", "team", "hook", "completion"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("office --help does not list %q:\n%s", c, out)
		}
	}
	for _, args := range [][]string{{"send", "--help"}, {"mail", "send", "-h"}, {"team", "add", "--help"}, {"queue", "release", "--help"}} {
		if out, _, code := o.exec(nil, args...); code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "--state") {
			t.Errorf("office %q: exit %d\n%s", args, code, out)
		}
	}
	if out, _, code := o.exec(nil, "--version"); code != 0 || !strings.HasPrefix(out, "office ") {
		t.Errorf("office --version: exit %d %q", code, out)
	}
	for shell, want := range map[string]string{"bash": "__start_office", "zsh": "#compdef office", "fish": "complete -c office"} {
		if out, errOut, code := o.exec(nil, "completion", shell); code != 0 || !strings.Contains(out, want) {
			t.Errorf("office completion %s: exit %d %q, want a script with %q", shell, code, errOut, want)
		}
	}
}

func TestGlobalFlagsAnywhereAndDoubleDash(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	if _, errOut, code := o.exec(nil, "--config", o.config, "--state", o.state, "send", "a", "before"); code != 0 {
		t.Fatalf("global flags before the command: exit %d %s", code, errOut)
	}
	if _, errOut, code := o.exec(nil, "send", "--state", o.state, "a", "--config", o.config, "between"); code != 0 {
		t.Fatalf("global flags between the arguments: exit %d %s", code, errOut)
	}
	if _, errOut, code := o.exec(nil, "--state", o.state, "--config", o.config, "send", "a", "--", "--literal", "text"); code != 0 {
		t.Fatalf("send -- --literal: exit %d %s", code, errOut)
	}
	_, errOut, code := o.run("", "send", "a", "hi", "--bogus")
	if code != 2 || !strings.Contains(errOut, "--bogus") {
		t.Fatalf("an unknown flag: exit %d %q, want 2 naming it", code, errOut)
	}
	var got []string
	for _, q := range o.queue() {
		got = append(got, q.Text)
	}
	if strings.Join(got, "|") != "before|between|--literal text" {
		t.Fatalf("queue = %q", got)
	}
}

func TestUnknownSenderExitsTwoAndWritesNothing(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"}, agentSpec{name: "b"})
	o.must("queue") // registers the config's agents, as a running office would
	for _, args := range [][]string{
		{"mail", "send", "--to", "a", "from nobody"},
		{"mail", "send", "--request", "--to", "person", "from nobody"},
		{"mail", "reply", "01JXXXXXXXXXXXXXXXXXXXXXXX", "answer"},
		{"report", "success", "all done"},
	} {
		_, errOut, code := o.runAs("bogus", args...)
		if code != 2 || !strings.Contains(errOut, "bogus") || !strings.Contains(errOut, "a, b") {
			t.Errorf("%q as bogus: exit %d %q; want 2 naming bogus and the agents a, b", args, code, errOut)
		}
	}
	if out := o.mustAs("", "mail", "ls", "--json"); out != "[]" {
		t.Fatalf("a refused sender wrote mail: %s", out)
	}
	for _, who := range []string{"a", "b"} {
		if out := o.mustAs("", "inbox", who, "--all", "--json"); out != "[]" {
			t.Fatalf("a refused sender wrote to %s's inbox: %s", who, out)
		}
	}
	if id := o.mustAs("a", "mail", "send", "--to", "b", "from a"); id == "" {
		t.Fatal("an agent of the office may send")
	}
}

func TestInvalidUTF8IsRefusedWithItsOffset(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	for _, tc := range []struct {
		args  []string
		stdin string
		at    string
	}{
		{[]string{"send", "a", "bad \xff"}, "", "byte offset 4"},
		{[]string{"send", "a", "-"}, "ok\n\xc3(", "byte offset 3"},
		{[]string{"mail", "send", "--to", "a", "-"}, "中\xe4\xb8", "byte offset 3"},
		{[]string{"mail", "send", "--to", "a", "--title", "t\xfe", "fine text"}, "", "byte offset 1"},
	} {
		_, errOut, code := o.run(tc.stdin, tc.args...)
		if code != 2 || !strings.Contains(errOut, "invalid UTF-8") || !strings.Contains(errOut, tc.at) {
			t.Errorf("%q: exit %d %q; want 2, invalid UTF-8 at %s", tc.args, code, errOut, tc.at)
		}
	}
	if q := o.queue(); len(q) != 0 {
		t.Fatalf("stored %+v", q)
	}
	if out := o.mustAs("", "mail", "ls", "--json"); out != "[]" {
		t.Fatalf("stored mail %s", out)
	}
}

// Bodies that are too large or have nothing to type are refused before
// anything is stored, while the office runs, and the log never sees them;
// an unknown agent in status exits 2; team add takes a real argv.
func TestBodyLimitsAndArgvWithARunningOffice(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	o.startServe()
	const mark = "BODY-MARK-7f3a"
	for _, tc := range []struct {
		name string
		args []string
		in   io.Reader
		want string
	}{
		{"100 MiB on stdin", []string{"send", "a", "-"}, io.MultiReader(strings.NewReader(mark), &filler{100 << 20}), "larger than 1048576 bytes"},
		{"100 MiB mail on stdin", []string{"mail", "send", "--to", "a", "-"}, io.MultiReader(strings.NewReader(mark), &filler{100 << 20}), "larger than 1048576 bytes"},
		{"1.2 MiB of arguments", append([]string{"send", "a", mark}, manyArgs(10, 120<<10)...), nil, "at most 1048576"},
		{"NUL only", []string{"send", "a", "-"}, strings.NewReader("\x00\x00\x00\x00"), "nothing is left to type"},
		{"C1 only", []string{"send", "a", "\u0085\u0090\u009b\u009c"}, nil, "nothing is left to type"},
		{"C1 only mail", []string{"mail", "send", "--to", "a", "\u0085\u009b"}, nil, "nothing is left to type"},
	} {
		if tc.in == nil {
			tc.in = strings.NewReader("")
		}
		start := time.Now()
		_, errOut, code := o.exec(tc.in, append([]string{"--config", o.config, "--state", o.state}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d %q; want 2 and %q", tc.name, code, errOut, tc.want)
		}
		t.Logf("%s: refused in %v", tc.name, time.Since(start).Round(time.Millisecond))
	}
	if q := o.queue(); len(q) != 0 {
		t.Fatalf("refused bodies were stored: %d messages", len(q))
	}
	if out := o.mustAs("", "mail", "ls", "--json"); out != "[]" {
		t.Fatalf("refused mail was stored: %s", out)
	}

	// status of an agent the office does not run: exit 2, like every other
	// unknown agent.
	if _, errOut, code := o.run("", "status", "nobody"); code != 2 || !strings.Contains(errOut, `unknown agent "nobody"`) {
		t.Fatalf("status nobody: exit %d %q", code, errOut)
	}

	// team add: the command after "--" is an argv; a word with spaces stays one.
	spaced := filepath.Join(o.dir, "dir with spaces")
	if err := os.Mkdir(spaced, 0o700); err != nil {
		t.Fatal(err)
	}
	o.logs["helper"] = filepath.Join(spaced, "helper.jsonl")
	if _, errOut, code := o.exec(nil, "--state", o.state, "team", "add", "helper", "--profile", "claude", "--", fakeBin, "--hook-evidence", "--log", o.logs["helper"]); code != 0 {
		t.Fatalf("team add -- argv: exit %d %s", code, errOut)
	}
	o.waitFor(20*time.Second, "helper idle", func() bool {
		st, ok := o.status()
		for _, s := range st {
			if ok && s.Name == "helper" {
				return s.Status == "idle"
			}
		}
		return false
	})
	id := o.send("helper", "hello helper")
	o.waitFor(20*time.Second, "helper got the message", func() bool { return o.promptWith("helper", "hello helper") })
	if id == "" {
		t.Fatal("no id")
	}
	log, err := os.ReadFile(filepath.Join(o.state, "office.log"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(log, []byte(mark)) || len(log) > 1<<20 {
		t.Fatalf("office.log (%d bytes) carries a refused body", len(log))
	}
}

func TestSendWithIDTwiceReturnsTheSameID(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	first, _, code1 := o.run("", "send", "--id", "retry-1", "a", "do it once")
	again, errOut, code2 := o.run("", "send", "--id", "retry-1", "a", "do it once")
	if code1 != 0 || code2 != 0 || first != again || strings.TrimSpace(first) == "" {
		t.Fatalf("send --id twice: %q (exit %d) then %q (exit %d, %q)", first, code1, again, code2, errOut)
	}
	if q := o.queue(); len(q) != 1 {
		t.Fatalf("queue has %d messages, want 1", len(q))
	}
	m1 := o.mustAs("", "mail", "send", "--id", "mail-1", "--to", "a", "once")
	m2 := o.mustAs("", "mail", "send", "--id", "mail-1", "--to", "a", "once")
	if m1 != m2 {
		t.Fatalf("mail send --id twice: %q then %q", m1, m2)
	}
	if out := o.mustAs("", "mail", "ls", "--json"); strings.Count(out, `"id"`) != 1 {
		t.Fatalf("mail ls:\n%s", out)
	}
}

// A stored body can never break the columns of a listing or drive the
// terminal: office queue escapes control characters.
func TestQueueListingEscapesControls(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	o.send("a", "title \x1b]0;pwned\x07 clear \x1b[2J tab\there \u009b31m")
	o.send("a", "second")
	out := o.must("queue")
	if strings.ContainsAny(out, "\x1b\x07\t\u009b") {
		t.Fatalf("office queue printed a control character: %q", out)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("office queue:\n%s", out)
	}
	col := strings.Index(lines[0], "TEXT")
	if !strings.HasPrefix(lines[1][col:], `title \x1b]0;pwned\x07`) || !strings.HasPrefix(lines[2][col:], "second") {
		t.Fatalf("columns out of line:\n%s", out)
	}
}
