package realcli

// The harness of the real-CLI tests: one in-process office engine (the same
// engine `office serve` runs: engine.Open + Run, the real SQLite store, the
// real drain and socket) with one agent whose profile is the real built-in
// one and whose command is the pinned CLI binary, a fake model server and a
// sandbox. The person's keystrokes go through pool.Terminal.Input, exactly
// what the UI forwards; queued messages go through the store as `office send`
// does.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/configs"
	"office/engine"
	"office/queue"
	"office/test/fakemodel"
)

// officeBin is the office binary built by TestMain (OFFICE_BIN for agents:
// the hooks run `office hook`, and `office status` is run against the
// engine's socket).
var officeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "office-realcli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	officeBin = filepath.Join(dir, "office")
	if out, err := exec.Command("go", "build", "-o", officeBin, "office/cmd/office").CombinedOutput(); err != nil {
		// The engine runs in-process; only the hooks and `office status`
		// need the binary, and those tests skip without it.
		fmt.Fprintf(os.Stderr, "realcli: office binary not built (hook and status tests will skip): %v\n%s", err, out)
		officeBin = ""
	}
	if os.Getenv(LatestEnv) == "1" {
		// The same suite on the newest releases, in their own cache.
		ldir, versions, err := InstallLatest()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "realcli: the latest lane: %v in %s\n", versions, ldir)
		os.Setenv(DirEnv, ldir)
		ClaudeVersion = versions["claude"]
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needCLI returns the CLI's binary or skips the test with a clear message.
func needCLI(t *testing.T, cli string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real-CLI tests skipped in -short mode")
	}
	bin, err := Binary(Dir(), cli)
	if err != nil {
		t.Skipf("%v", err)
	}
	if cli == "gemini" {
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("gemini needs node >= 20 on PATH; node not found")
		}
	}
	return bin
}

// rig is one office with one real agent named after its CLI.
type rig struct {
	t     *testing.T
	cli   string
	bin   string
	root  string
	state string
	sb    *Sandbox
	srv   *fakemodel.Server
	top   string            // TOML lines before the agent table (settings)
	extra string            // extra TOML lines for the agent table
	args  []string          // arguments after the binary in the agent's command (the profile's args follow)
	env   map[string]string // extra variables for the agent (beside AgentEnv's)

	eng    *engine.Engine
	cancel context.CancelFunc
	ran    chan struct{}
}

// newRig makes the sandbox and the fake server (delay 1 s); start starts office.
func newRig(t *testing.T, cli string) *rig {
	t.Helper()
	bin := needCLI(t, cli)
	root := t.TempDir()
	srv, err := fakemodel.New(fakemodel.Options{Delay: time.Second, Reply: "Fake reply done."})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	sb, err := NewSandbox(root, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, cli: cli, bin: bin, root: root, state: filepath.Join(root, "state"), sb: sb, srv: srv}
	t.Cleanup(r.stop)
	return r
}

func (r *rig) config() string {
	var b strings.Builder
	b.WriteString("brief = false\n" + r.top + "\n[[agent]]\n")
	fmt.Fprintf(&b, "name = %s\nprofile = %s\ncommand = %s\ncwd = %s\n", TOMLString(r.cli), TOMLString(r.cli),
		TOMLStrings(append([]string{r.bin}, r.args...)), TOMLString(r.sb.Project))
	env := map[string]string{}
	for k, v := range AgentEnv(r.cli) {
		env[k] = v
	}
	for k, v := range r.env {
		env[k] = v
	}
	if len(env) > 0 {
		b.WriteString("env = {")
		first := true
		for k, v := range env {
			if !first {
				b.WriteString(",")
			}
			first = false
			fmt.Fprintf(&b, " %s = %s", k, TOMLString(v))
		}
		b.WriteString(" }\n")
	}
	b.WriteString(r.extra)
	return b.String()
}

// start opens the engine and runs it, then waits until the agent is ready
// and idle.
func (r *rig) start() {
	r.t.Helper()
	r.startUntil(40*time.Second, "agent ready and idle", func() bool { return r.statusIs("idle") })
}

// startUntil opens the engine and runs it, then waits up to d for cond.
func (r *rig) startUntil(d time.Duration, what string, cond func() bool) {
	r.t.Helper()
	path := filepath.Join(r.root, "office.toml")
	if err := os.WriteFile(path, []byte(r.config()), 0o600); err != nil {
		r.t.Fatal(err)
	}
	cfg, err := configs.Load(path)
	if err != nil {
		r.t.Fatal(err)
	}
	logf, err := os.OpenFile(filepath.Join(r.root, "office.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { logf.Close() })
	var w io.Writer = logf
	eng, err := engine.Open(engine.Options{
		Config:   cfg,
		StateDir: r.state,
		Bin:      officeBin,
		HostEnv:  r.sb.HostEnv(),
		Logger:   slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.eng, r.cancel, r.ran = eng, cancel, make(chan struct{})
	go func() {
		defer close(r.ran)
		eng.Run(ctx)
	}()
	r.waitFor(d, what, cond)
}

// stop closes the engine (the agent's process group is hung up).
func (r *rig) stop() {
	if r.eng == nil {
		return
	}
	r.cancel()
	<-r.ran
	r.eng.Close()
	r.eng = nil
}

func (r *rig) agent() *engine.Agent {
	a, ok := r.eng.Agent(r.cli)
	if !ok || a.Term == nil {
		r.t.Fatalf("agent %s not running: %+v", r.cli, a)
	}
	return a
}

// status returns the engine's view of the agent.
func (r *rig) status() engine.AgentStatus {
	for _, s := range r.eng.Status() {
		if s.Name == r.cli {
			return s
		}
	}
	return engine.AgentStatus{}
}

func (r *rig) statusIs(s string) bool { return r.status().Status == s }

// hold returns the drain's current hold reason for the agent.
func (r *rig) hold() string { return r.eng.Holds()[r.cli] }

// send queues text as `office send` does.
func (r *rig) send(text string) int64 {
	r.t.Helper()
	id, err := r.eng.Store().Enqueue(context.Background(), r.cli, text, queue.EnqueueOptions{Source: "send"})
	if err != nil {
		r.t.Fatal(err)
	}
	r.eng.Wake()
	return id
}

// queued returns the agent's pending messages.
func (r *rig) queued() []queue.Message {
	r.t.Helper()
	q, err := r.eng.Store().List(context.Background(), r.cli)
	if err != nil {
		r.t.Fatal(err)
	}
	return q
}

// input sends the person's keystrokes.
func (r *rig) input(s string) {
	r.t.Helper()
	if err := r.agent().Term.Input([]byte(s)); err != nil {
		r.t.Fatal(err)
	}
}

// typeAndSubmit types text as the person, a human moment after the test
// saw what it waited for, then, once the text shows on the prompt row, Enter
// alone after a human gap: a person presses Enter after seeing what they
// typed, never in the same read. On a loaded machine Gemini CLI lost the
// person's Enter when it came a fixed 300 ms after the text: its event loop
// had not drawn the text yet and read text and Enter in one batch (the text
// stayed on the prompt, and "/model" never opened its picker). Office waits
// for the echo before its own Enter for the same reason (the profile's
// enter_after_echo).
func (r *rig) typeAndSubmit(text string) {
	r.t.Helper()
	time.Sleep(500 * time.Millisecond)
	r.input(text)
	r.waitFor(10*time.Second, "the typed text on the prompt row", func() bool {
		txt, ok := r.agent().Term.Prompt()
		return ok && strings.Contains(txt, text)
	})
	time.Sleep(300 * time.Millisecond)
	r.input("\r")
}

// officeCmd runs the office binary against the rig's state dir and returns
// its output (stdout and stderr).
func (r *rig) officeCmd(args ...string) string {
	r.t.Helper()
	cmd := exec.Command(officeBin, append(args, "--state", r.state)...)
	cmd.Env = r.sb.HostEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("office %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen returns the agent's screen text.
func (r *rig) screen() string { return r.agent().Term.Text() }

// prompts returns the prompts the model server received, in order.
func (r *rig) prompts() []string { return r.srv.Prompts() }

// countPrompts counts received prompts containing s.
func (r *rig) countPrompts(s string) int {
	n := 0
	for _, p := range r.prompts() {
		if strings.Contains(p, s) {
			n++
		}
	}
	return n
}

// waitFor polls cond every 50 ms until it holds or d passes.
func (r *rig) waitFor(d time.Duration, what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: timed out after %v waiting for %s\n%s", r.cli, d, what, r.diagnose())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// holdsFor checks cond stays true for d.
func (r *rig) holdsFor(d time.Duration, what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !cond() {
			r.t.Fatalf("%s: %s stopped holding\n%s", r.cli, what, r.diagnose())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (r *rig) diagnose() string {
	var b strings.Builder
	if r.eng != nil {
		s := r.status()
		fmt.Fprintf(&b, "--- status: %s (%s) draft=%v hold=%q\n", s.Status, s.Signal, s.Draft, r.hold())
		if a, ok := r.eng.Agent(r.cli); ok && a.Term != nil {
			txt, ok := a.Term.Prompt()
			fmt.Fprintf(&b, "--- prompt row: %q ok=%v; line model draft %q\n--- screen:\n%s\n", txt, ok, a.Term.Draft(), a.Term.Text())
		}
		for _, m := range r.queuedNoFail() {
			fmt.Fprintf(&b, "--- queued #%d %q attempts=%d err=%q\n", m.ID, m.Text, m.Attempts, m.LastError)
		}
	}
	for i, p := range r.prompts() {
		fmt.Fprintf(&b, "--- prompt %d: %q\n", i, truncate(p, 300))
	}
	if log, err := os.ReadFile(filepath.Join(r.root, "office.log")); err == nil {
		lines := strings.Split(strings.TrimSpace(string(log)), "\n")
		if len(lines) > 25 {
			lines = lines[len(lines)-25:]
		}
		fmt.Fprintf(&b, "--- office.log (last lines):\n%s\n", strings.Join(lines, "\n"))
	}
	return b.String()
}

func (r *rig) queuedNoFail() []queue.Message {
	q, _ := r.eng.Store().List(context.Background(), r.cli)
	return q
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// lastPromptWith returns the last received prompt containing s.
func (r *rig) lastPromptWith(s string) string {
	ps := r.prompts()
	for i := len(ps) - 1; i >= 0; i-- {
		if strings.Contains(ps[i], s) {
			return ps[i]
		}
	}
	return ""
}

// indexOf returns the index of the first prompt containing s, or -1.
func (r *rig) indexOf(s string) int {
	for i, p := range r.prompts() {
		if strings.Contains(p, s) {
			return i
		}
	}
	return -1
}
