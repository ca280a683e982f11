package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"office/engine"
	"office/queue"
)

// testOffice is a config with two agents and a state dir; commands run in
// process through run, with their own stdin, stdout, stderr and environment.
type testOffice struct {
	t      *testing.T
	config string
	state  string
	env    map[string]string
	// bin is the office binary serve names for its agents (OFFICE_BIN):
	// "office" unless a test clears it, so that a fake agent with
	// --hook-evidence writes its hook record itself (no office binary is
	// built for these tests).
	bin string
}

func newTestOffice(t *testing.T) *testOffice {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "office.toml")
	body := "brief = false\n\n[[agent]]\nname = \"a1\"\ncommand = [\"cat\"]\n\n[[agent]]\nname = \"b2\"\ncommand = [\"cat\"]\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return &testOffice{t: t, config: cfg, state: filepath.Join(dir, "state"),
		env: map[string]string{"PATH": "/usr/bin:/bin", "HOME": dir}, bin: "office"}
}

// result is one command's outcome.
type result struct {
	code           int
	stdout, stderr string
}

// exec runs office with args as given (no flags added) and stdin.
func (o *testOffice) exec(stdin io.Reader, args ...string) result {
	o.t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	e := &env{stdin: stdin, stdout: &out, stderr: &errb, getenv: func(k string) string { return o.env[k] }, bin: "office"}
	code := run(context.Background(), e, args)
	return result{code, out.String(), errb.String()}
}

// cmd runs office with args followed by --config and --state.
func (o *testOffice) cmd(stdin string, args ...string) result {
	o.t.Helper()
	return o.exec(strings.NewReader(stdin), append(args, "--config", o.config, "--state", o.state)...)
}

// serve runs `office serve` on the office's config and state in this
// process (real agents in real PTYs) until the test ends, and returns once
// it answers.
func (o *testOffice) serve() {
	t := o.t
	t.Helper()
	g := []string{"--config", o.config, "--state", o.state}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan int, 1)
	var serveErr bytes.Buffer
	go func() {
		e := &env{stdin: strings.NewReader(""), stdout: new(bytes.Buffer), stderr: &serveErr,
			getenv: func(k string) string { return o.env[k] }, bin: o.bin}
		served <- run(ctx, e, append(g, "serve"))
	}()
	t.Cleanup(func() { cancel(); <-served })
	// Ready once it answers (the socket listens after the lock is taken).
	deadline := time.Now().Add(20 * time.Second)
	for o.exec(strings.NewReader(""), append(g, "status")...).code != 0 {
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
}

// messages returns the queued texts.
func (o *testOffice) messages() []string {
	o.t.Helper()
	s, err := queue.Open(filepath.Join(o.state, "office.db"), queue.Options{})
	if err != nil {
		o.t.Fatal(err)
	}
	defer s.Close()
	ms, err := s.List(context.Background(), "")
	if err != nil {
		o.t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"usage", usagef("office send: wants 2 arguments"), 2},
		{"input", &inputError{errors.New("bad")}, 2},
		{"unknown agent, wrapped", fmt.Errorf("send: %w", queue.ErrUnknownAgent), 2},
		{"too large", fmt.Errorf("x: %w", queue.ErrTooLarge), 2},
		{"key conflict", fmt.Errorf("x: %w", queue.ErrKeyConflict), 2},
		{"anything else", errors.New("disk on fire"), 1},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// The command line: help, version, completion, flags anywhere, "--", and
// every refusal with exit 2 and nothing stored.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	g := func(args ...string) []string {
		return append([]string{"--config", o.config, "--state", o.state}, args...)
	}
	for _, tc := range []struct {
		name       string
		args       []string
		stdin      string
		code       int
		out, err   string // substrings of stdout and stderr
		notOut     string
		storedText string // the text stored, if the command stores one
	}{
		{name: "help lists commands", args: []string{"--help"}, out: "Available Commands"},
		{name: "help of a subcommand", args: []string{"mail", "send", "--help"}, out: "--request"},
		{name: "help command", args: []string{"help", "queue"}, out: "release"},
		{name: "version", args: []string{"--version"}, out: "office "},
		{name: "completion bash", args: []string{"completion", "bash"}, out: "bash completion"},
		{name: "completion zsh", args: []string{"completion", "zsh"}, out: "compdef"},
		{name: "completion fish", args: []string{"completion", "fish"}, out: "complete -c office"},
		{name: "completion of agent names", args: []string{"__complete", "--config", o.config, "send", ""}, out: "a1\nb2\n"},
		{name: "completion of --to", args: []string{"__complete", "--config", o.config, "mail", "send", "--to", "b"}, out: "b2\n"},
		{name: "global flags before the command", args: g("send", "a1", "before"), out: "1", storedText: "before"},
		{name: "global flags between arguments", args: []string{"send", "--state", o.state, "a1", "--config", o.config, "between"}, out: "2", storedText: "between"},
		{name: "global flags after", args: []string{"send", "a1", "after", "--config=" + o.config, "--state=" + o.state}, out: "3", storedText: "after"},
		{name: "-- ends flags", args: g("send", "a1", "--", "--literal", "text", "--state", "x"), out: "4", storedText: "--literal text --state x"},
		{name: "unknown flag", args: g("send", "a1", "hi", "--bogus"), code: 2, err: "unknown flag: --bogus"},
		{name: "unknown flag before the command", args: g("--bogus", "send", "a1", "hi"), code: 2, err: "--bogus"},
		{name: "unknown command", args: g("sned", "a1", "hi"), code: 2, err: `unknown command "sned"`},
		{name: "unknown subcommand", args: g("mail", "snd"), code: 2, err: `unknown subcommand "snd"`},
		{name: "group without subcommand", args: g("mail"), code: 2, err: "send"},
		{name: "too few arguments", args: g("send", "a1"), code: 2, err: "usage: office send"},
		{name: "too many arguments", args: g("queue", "a1", "b2"), code: 2, err: "wants 0 to 1 arguments, got 2"},
		{name: "unknown agent", args: g("send", "nobody", "hi"), code: 2, err: "unknown agent"},
		{name: "blank", args: g("send", "a1", " "), code: 2, err: "blank"},
		{name: "invalid UTF-8", args: g("send", "a1", "bad \xff text"), code: 2, err: "invalid UTF-8 at byte offset 4"},
		{name: "invalid UTF-8 on stdin", args: g("send", "a1", "-"), stdin: "中文\xe4\xb8", code: 2, err: "byte offset 6"},
		{name: "NUL only", args: g("send", "a1", "-"), stdin: "\x00\x00\x00", code: 2, err: "nothing is left to type"},
		{name: "C1 only", args: g("send", "a1", "\u0085\u009b\u0090"), code: 2, err: "nothing is left to type"},
		{name: "ESC only", args: g("send", "a1", "\x1b\x1b"), code: 2, err: "nothing is left to type"},
		{name: "escape sequences only", args: g("send", "a1", "\x1b[2J\x1bc"), code: 2, err: "nothing is left to type"},
		{name: "escape sequences only on stdin", args: g("send", "a1", "-"), stdin: "\x1b]0;title\x07\x1b[1;31m\n", code: 2, err: "nothing is left to type"},
		{name: "escape sequences only mail", args: g("mail", "send", "--to", "a1", "\x1b(B\x1b[0m"), code: 2, err: "nothing is left to type"},
		{name: "over the limit", args: g("send", "a1", strings.Repeat("x", queue.MaxBody+1)), code: 2, err: "at most 1048576"},
		{name: "blank key", args: g("send", "--id", "", "a1", "hi"), code: 2, err: "--id"},
		{name: "pause needs AGENT or --all", args: g("pause"), code: 2, err: "--all"},
		{name: "pause both", args: g("pause", "a1", "--all"), code: 2, err: "one of them"},
		{name: "bad prefix", args: g("--prefix", "Ctrl-Alt-x", "queue"), code: 2, err: "--prefix"},
		{name: "queue release needs an id", args: g("queue", "release", "x"), code: 2, err: "not a message id"},
		{name: "report outside an agent", args: g("report", "success"), code: 2, err: "OFFICE_AGENT"},
		{name: "report bad outcome", args: g("report", "great"), code: 2, err: "not an outcome"},
		{name: "team add needs a profile or command", args: g("team", "add", "x"), code: 2, err: "--profile"},
		{name: "team add command twice", args: g("team", "add", "x", "--command", "sh", "--", "sh"), code: 2, err: "not both"},
		{name: "team add stray argument", args: g("team", "add", "x", "sh"), code: 2, err: "unexpected argument"},
		{name: "team add bad env", args: g("team", "add", "x", "--profile", "shell", "--env", "NOEQUALS"), code: 2, err: "KEY=VALUE"},
		{name: "status needs an office", args: g("status"), code: 1, err: "no office is running"},
		{name: "hook never fails its CLI", args: g("hook", "Stop", "extra", "--bogus"), code: 0, err: "ignored"},
		{name: "hook without OFFICE_AGENT", args: g("hook", "Stop"), code: 0, err: "OFFICE_AGENT is not set"},
	} {
		// Not parallel: the stored ids count up in this order.
		r := o.exec(strings.NewReader(tc.stdin), tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.out) || !strings.Contains(r.stderr, tc.err) {
			t.Errorf("%s: office %q: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				tc.name, tc.args, r.code, cut(r.stdout), cut(r.stderr), tc.code, tc.out, tc.err)
		}
		if tc.code == 2 && r.stdout != "" {
			t.Errorf("%s: a refused command printed %q", tc.name, cut(r.stdout))
		}
		if tc.storedText != "" {
			if ms := o.messages(); len(ms) == 0 || ms[len(ms)-1] != tc.storedText {
				t.Errorf("%s: stored %q, want last %q", tc.name, ms, tc.storedText)
			}
		}
	}
	if ms := o.messages(); len(ms) != 4 {
		t.Fatalf("refused commands stored something: %q", ms)
	}
}

func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func TestHelpListsEveryCommand(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	r := o.exec(nil, "--help")
	for _, mk := range subcommands() {
		name := mk(&env{}, &globals{}).Name()
		if !strings.Contains(r.stdout, "\n  "+name+" ") {
			t.Errorf("office --help does not list %q:\n%s", name, r.stdout)
		}
	}
	for _, f := range []string{"--config", "--state", "--prefix", "--version"} {
		if !strings.Contains(r.stdout, f) {
			t.Errorf("office --help does not show %s", f)
		}
	}
}

// endless is stdin that never ends, counting what was read of it.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += len(p)
	return len(p), nil
}

func TestStdinIsReadBounded(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	for _, args := range [][]string{{"send", "a1", "-"}, {"mail", "send", "--to", "a1", "-"}} {
		in := &endless{}
		r := o.exec(in, append(args, "--config", o.config, "--state", o.state)...)
		if r.code != 2 || !strings.Contains(r.stderr, "larger than 1048576 bytes") {
			t.Fatalf("%q with endless stdin: exit %d, %q", args, r.code, r.stderr)
		}
		// io.ReadAll reads in chunks; it must stop right after the limit.
		if in.n > queue.MaxBody+64*1024 {
			t.Fatalf("%q read %d bytes of stdin, the limit is %d", args, in.n, queue.MaxBody)
		}
	}
	if ms := o.messages(); len(ms) != 0 {
		t.Fatalf("stored %d messages", len(ms))
	}
	// Exactly the limit is accepted.
	if r := o.cmd(strings.Repeat("y", queue.MaxBody), "send", "a1", "-"); r.code != 0 {
		t.Fatalf("a body of exactly MaxBody: exit %d %q", r.code, r.stderr)
	}
}

func TestSendWithIDIsIdempotent(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	first := o.cmd("", "send", "--id", "job-1", "a1", "deploy")
	again := o.cmd("", "send", "a1", "deploy", "--id", "job-1")
	if first.code != 0 || again.code != 0 || strings.TrimSpace(first.stdout) != "1" || again.stdout != first.stdout {
		t.Fatalf("send --id twice: %+v then %+v, want the same id", first, again)
	}
	if !strings.Contains(again.stderr, "not queued again") {
		t.Fatalf("the retry does not say it stored nothing: %q", again.stderr)
	}
	if conflict := o.cmd("", "send", "--id", "job-1", "b2", "deploy"); conflict.code != 2 || !strings.Contains(conflict.stderr, "job-1") {
		t.Fatalf("the key with another receiver: %+v", conflict)
	}
	if ms := o.messages(); len(ms) != 1 {
		t.Fatalf("stored %q, want one message", ms)
	}

	m1 := o.cmd("", "mail", "send", "--to", "a1", "--id", "m-1", "hello")
	m2 := o.cmd("", "mail", "send", "--to", "a1", "--id", "m-1", "hello")
	if m1.code != 0 || m2.code != 0 || m1.stdout == "" || m1.stdout != m2.stdout {
		t.Fatalf("mail send --id twice: %+v then %+v", m1, m2)
	}
	ls := o.cmd("", "mail", "ls", "--json")
	if n := strings.Count(ls.stdout, `"id"`); n != 1 {
		t.Fatalf("mail ls after a retried send lists %d mails:\n%s", n, ls.stdout)
	}
	// A key is one send, whatever the command: reusing it for mail conflicts.
	if r := o.cmd("", "mail", "send", "--to", "a1", "--id", "job-1", "deploy"); r.code != 2 {
		t.Fatalf("a send's key reused for mail: %+v", r)
	}
}

func TestSenderMustBeAnAgentOfTheOffice(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	o.env["OFFICE_AGENT"] = "bogus"
	for _, args := range [][]string{
		{"mail", "send", "--to", "a1", "x"},
		{"mail", "reply", "01ABC", "x"},
		{"mail", "cancel", "01ABC"},
		{"report", "success", "done"},
		{"inbox"},
		{"approve", "a1", "1"},
		{"team", "rm", "a1"},
		{"team", "add", "x", "--profile", "shell"},
	} {
		r := o.cmd("", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "OFFICE_AGENT=bogus") || !strings.Contains(r.stderr, "a1, b2") {
			t.Errorf("%q as bogus: exit %d %q; want 2 naming bogus and the agents", args, r.code, r.stderr)
		}
	}
	delete(o.env, "OFFICE_AGENT")
	if ls := o.cmd("", "mail", "ls", "--json"); strings.TrimSpace(ls.stdout) != "[]" {
		t.Fatalf("refused senders wrote mail: %s", ls.stdout)
	}
	// A real agent and the person may send.
	o.env["OFFICE_AGENT"] = "b2"
	if r := o.cmd("", "mail", "send", "--to", "a1", "from b2"); r.code != 0 {
		t.Fatalf("mail from b2: %+v", r)
	}
	delete(o.env, "OFFICE_AGENT")
	if r := o.cmd("", "mail", "send", "--to", "a1", "from the person"); r.code != 0 {
		t.Fatalf("mail from the person: %+v", r)
	}
}

func TestListingsEscapeControls(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	if r := o.cmd("", "send", "a1", "red \x1b[31mtext\x07\ttab\nline \u009b2J"); r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	r := o.cmd("", "queue")
	if strings.ContainsAny(r.stdout, "\x1b\x07\u009b") {
		t.Fatalf("office queue printed a control character: %q", r.stdout)
	}
	for _, want := range []string{`red \x1b[31mtext\x07 tab⏎line \u009b2J`} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("office queue = %q, want it to show %q", r.stdout, want)
		}
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 || strings.Index(lines[0], "TEXT") != strings.Index(lines[1], "red") {
		t.Fatalf("columns out of line:\n%s", r.stdout)
	}
}

func TestCell(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":          "plain",
		"a\nb":           "a⏎b",
		"a\tb":           "a b",
		"\x1b[2J":        `\x1b[2J`,
		"bad\xff":        `bad\xff`,
		"c1\u0085":       `c1\u0085`,
		"中文\u200b":       "中文\u200b",
		"\uFFFD is real": "\uFFFD is real",
	} {
		if got := cell(in, 0); got != want {
			t.Errorf("cell(%q) = %q, want %q", in, got, want)
		}
	}
	if got := cell("abcdef", 4); got != "abc…" {
		t.Errorf("cut: %q", got)
	}
	if got := safeText("line 1\nline\t2\r\n\x1b]0;title\x07"); got != "line 1\nline\t2\n\\x1b]0;title\\x07" {
		t.Errorf("safeText = %q", got)
	}
}

func TestLogPreviewIsBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("长", queue.MaxBody/3)
	if p := logPreview(big); len(p) > 400 || !strings.HasPrefix(big, strings.TrimSuffix(p, "…")) {
		t.Fatalf("logPreview kept %d bytes", len(p))
	}
	if logPreview("short") != "short" {
		t.Fatal("a short text is kept whole")
	}
}

// TestUIWithoutATerminalStartsNoServer: the UI needs a terminal; without one
// office says so before it starts a server for a window that cannot open.
func TestUIWithoutATerminalStartsNoServer(t *testing.T) {
	o := newTestOffice(t)
	for _, args := range [][]string{nil, {"run"}, {"attach"}} {
		r := o.cmd("", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "stdin is not a terminal") {
			t.Fatalf("office %v without a terminal: exit %d, %q", args, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(o.state); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the state dir was made (a server started?): %v", err)
	}
	if r := o.cmd("", "attach", "--start"); r.code != 2 {
		t.Fatalf("attach --start without --stdio: exit %d, want 2", r.code)
	}
}

// TestStartRefusesABadOfficeFile: `office start` (and `serve --background`,
// `attach --stdio --start`, what ssh runs) says what is wrong with the
// office file, at its line, exit 2, before a server is spawned, rather than
// "the server exited at once; see office.log".
func TestStartRefusesABadOfficeFile(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\nrole = \"bad\xffrole\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"start"}, {"serve", "--background"}, {"attach", "--stdio", "--start"}} {
		r := o.exec(nil, append(args, "--config", bad, "--state", o.state)...)
		if r.code != 2 || !strings.Contains(r.stderr, "bad.toml:4: TOML syntax: invalid UTF-8") {
			t.Errorf("office %v with a bad file: exit %d, %q; want 2 naming bad.toml:4", args, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(o.state, "office.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a server was spawned (its log exists): %v", err)
	}
}

// TestStoreCommandsWithoutConfigKeepTheRunningRoster: a store-only command
// run without --config against a running office (a second shell where the
// person forgot --config), or with another office file, does not register
// that file's agents in the running office's store, so a send to one of
// them is refused (exit 2) rather than accepted and held "unknown agent"
// for ever.
func TestStoreCommandsWithoutConfigKeepTheRunningRoster(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	o.serve()
	bare := func(args ...string) result { return o.exec(nil, append([]string{"--state", o.state}, args...)...) }
	if r := bare("send", "a1", "hi"); r.code != 0 {
		t.Fatalf("send a1 without --config: exit %d, %q", r.code, r.stderr)
	}
	if r := bare("queue"); r.code != 0 {
		t.Fatalf("queue without --config: exit %d, %q", r.code, r.stderr)
	}
	// The default office here is the shell fallback (no agent CLI on PATH).
	if r := bare("send", "shell", "hi"); r.code != 2 || !strings.Contains(r.stderr, `unknown agent "shell"`) {
		t.Fatalf("send to the default's agent the running office does not run: exit %d, %q; want 2, unknown agent", r.code, r.stderr)
	}
	// Nor does another office file's agent join it.
	other := filepath.Join(t.TempDir(), "other.toml")
	if err := os.WriteFile(other, []byte("[[agent]]\nname = \"z9\"\ncommand = [\"cat\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := o.exec(nil, "--config", other, "--state", o.state, "send", "z9", "hi"); r.code != 2 || !strings.Contains(r.stderr, `unknown agent "z9"`) {
		t.Fatalf("send to another file's agent the running office does not run: exit %d, %q; want 2, unknown agent", r.code, r.stderr)
	}
}

// TestStoreCommandWaitsForAStartingServersRoster: while a server holds the
// state's lock but has not yet registered its agents (it listens on its
// socket only once it has), a store-only command without --config waits
// for it and registers nothing itself: the embedded default's "shell" must
// not join a roster the starting office is about to write.
func TestStoreCommandWaitsForAStartingServersRoster(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	if err := engine.EnsureStateDir(o.state); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(o.state, engine.LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(lock.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		t.Fatal(err)
	}
	if !engine.Running(o.state) {
		t.Fatal("the test's lock does not look like a running server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return o.env[k] }, bin: "office"}
	if code := run(ctx, e, []string{"--state", o.state, "send", "shell", "hi"}); code == 0 {
		t.Fatalf("send while the server registers its agents: exit 0, %q", out.String())
	}
	s, err := queue.Open(filepath.Join(o.state, engine.StoreFile), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if names, err := rosterNames(context.Background(), s); err != nil || len(names) != 0 {
		t.Fatalf("registered while a server was starting: %v %v", names, err)
	}
	// Once it listens (registered, even if it answers nothing yet), the
	// command goes on at once against the roster it wrote: here none.
	ln, err := net.Listen("unix", filepath.Join(o.state, engine.ClientSocketFile))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	out.Reset()
	errb.Reset()
	if code := run(ctx2, e, []string{"--state", o.state, "send", "shell", "hi"}); code != 2 || !strings.Contains(errb.String(), `unknown agent "shell"`) {
		t.Fatalf("send once the server listens: exit %d, %q; want 2, unknown agent", code, errb.String())
	}
	if names, err := rosterNames(context.Background(), s); err != nil || len(names) != 0 {
		t.Fatalf("registered while a server runs: %v %v", names, err)
	}
}

// TestStopWithNoServerSaysNoStartHint: "start it with 'office start'" follows
// a command that needs a server when none runs, but not `office stop`.
func TestStopWithNoServerSaysNoStartHint(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	if r := o.cmd("", "stop"); r.code != 1 || strings.Contains(r.stderr, "office start") {
		t.Fatalf("stop with no server: exit %d, %q", r.code, r.stderr)
	}
	if r := o.cmd("", "status"); r.code != 1 || !strings.Contains(r.stderr, "start it with 'office start'") {
		t.Fatalf("status with no server: exit %d, %q", r.code, r.stderr)
	}
}
