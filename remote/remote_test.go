package remote_test

// remote_test.go runs a real engine (its server on a real socket, fake
// agents in real PTYs) and looks at it through the remote office, as the UI
// does, with the race detector on both sides.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"office/client"
	"office/configs"
	"office/engine"
	"office/pool"
	"office/remote"
	"office/test/testbin"
	"office/ui"
)

var fakeBin string

func TestMain(m *testing.M) {
	testbin.Main(func(bins map[string]string) int {
		fakeBin = bins["fakeagent"]
		return m.Run()
	}, "office/test/fakeagent")
}

// startEngine runs an engine with the fake agent "a" and "x", a command
// that exits with code 3 once it is told to.
func startEngine(t *testing.T) (*engine.Engine, string) {
	e, state, _ := startEngineDone(t)
	return e, state
}

// startEngineDone is startEngine with Run's result.
func startEngineDone(t *testing.T) (*engine.Engine, string, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	gate := filepath.Join(dir, "gate")
	cfg := fmt.Sprintf("brief = false\n[[agent]]\nname = \"a\"\nprofile = \"claude\"\ncommand = [%q]\n\n"+
		"[[agent]]\nname = \"x\"\ncommand = [\"sh\", \"-c\", \"echo waiting; while [ ! -e %s ]; do sleep 0.05; done; exit 3\"]\n", fakeBin, gate)
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() { cancel(); e.Close() })
	return e, state, done
}

// watcher records what the remote office tells the UI.
type watcher struct {
	mu      sync.Mutex
	kinds   map[ui.ChangeKind]int
	notices []ui.Notice
	ch      chan struct{}
}

func watch(o ui.Office) *watcher {
	w := &watcher{kinds: map[ui.ChangeKind]int{}, ch: make(chan struct{}, 1)}
	o.Watch(func(c ui.Change) {
		w.mu.Lock()
		w.kinds[c.Kind]++
		if c.Kind == ui.ChangeNotice {
			w.notices = append(w.notices, c.Notice)
		}
		w.mu.Unlock()
		select {
		case w.ch <- struct{}{}:
		default:
		}
	})
	return w
}

// until waits for cond, woken by the office's changes (never by polling
// the office: a change that is not pushed fails the test).
func (w *watcher) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-w.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (w *watcher) count(k ui.ChangeKind) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.kinds[k]
}

func info(o ui.Office, name string) ui.AgentInfo {
	for _, a := range o.Agents() {
		if a.Name == name {
			return a
		}
	}
	return ui.AgentInfo{}
}

func open(t *testing.T, tr client.Transport, o remote.Options) (*client.Session, *remote.Office) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := client.Open(ctx, tr, client.Options{Client: "test", Screens: true, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	r := remote.New(s, o)
	t.Cleanup(func() { r.Close(); s.Close() })
	return s, r
}

// TestRemoteShowsTheServersOfficeAndCarriesTheKeys: the roster, statuses,
// screens (by generation), the draft and its hold, an exit notice and the
// view all come from the server; Quit stops it and ends the session.
func TestRemoteShowsTheServersOfficeAndCarriesTheKeys(t *testing.T) {
	e, state := startEngine(t)
	_, r := open(t, client.Local(state), remote.Options{})
	w := watch(r)
	var snap ui.Screen
	w.until(t, "a idle with its prompt", func() bool {
		r.Screen("a", &snap, nil)
		return info(r, "a").Status == "idle" && strings.Contains(snap.Text(), "? for shortcuts")
	})
	if got := r.Agents(); len(got) != 2 || got[0].Name != "a" || got[0].Profile != "claude" || got[0].Started.IsZero() {
		t.Fatalf("roster %+v", got)
	}
	if r.Screen("a", &snap, nil) && info(r, "a").Generation == snap.Generation {
		t.Fatal("Screen copied again with no change")
	}

	if err := r.Input("a", []byte("my words")); err != nil {
		t.Fatal(err)
	}
	w.until(t, "the draft on a's screen and in its info", func() bool {
		r.Screen("a", &snap, nil)
		return info(r, "a").Draft && strings.Contains(snap.Text(), "my words")
	})
	ctx := context.Background()
	id, err := r.Enqueue(ctx, "a", "from the queue")
	if err != nil || id == 0 {
		t.Fatalf("enqueue: %d %v", id, err)
	}
	w.until(t, "held: your draft", func() bool {
		f := r.Floor()
		return f.Counts["a"] == 1 && f.Holds["a"] == "your draft"
	})
	l, err := r.Queue(ctx, "a")
	if err != nil || len(l.Messages) != 1 || l.Messages[0].ID != id || l.Messages[0].Text != "from the queue" {
		t.Fatalf("queue %+v %v", l, err)
	}

	if err := r.StartServer(ctx); err == nil || !strings.Contains(err.Error(), "office start") {
		t.Fatalf("StartServer with no way to start one: %v", err)
	}
	if err := r.SetView("a", map[string]ui.PaneSize{"a": {Cols: 70, Rows: 20}}, true); err != nil {
		t.Fatal(err)
	}
	w.until(t, "a at 70x20", func() bool { r.Screen("a", &snap, nil); return snap.Cols == 70 && snap.Rows == 20 })

	if err := touch(filepath.Join(filepath.Dir(state), "gate")); err != nil {
		t.Fatal(err)
	}
	w.until(t, "x's exit notice", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, n := range w.notices {
			if n.Agent == "x" && n.Kind == "exit" && n.Text == "exited with code 3" {
				return true
			}
		}
		return false
	})
	if a := info(r, "x"); !a.Exited || a.ExitCode != 3 {
		t.Fatalf("x after its exit: %+v", a)
	}

	quit := make(chan error, 1)
	go func() { quit <- r.Quit(ctx) }()
	select {
	case <-e.StopRequested():
	case <-time.After(10 * time.Second):
		t.Fatal("Quit did not ask the server to stop")
	}
	e.Close() // what `office serve` does when a stop was requested
	if err := <-quit; err != nil {
		t.Fatal(err)
	}
	var bye *client.ByeError
	if !errors.As(r.Ended(), &bye) {
		t.Fatalf("ended with %v, want the server's goodbye", r.Ended())
	}
	w.until(t, "the UI told the connection ended", func() bool { _, ended := r.Gone(); return ended })
}

// TestRemoteShowsScreensThatCameBeforeIt: screens the session got before
// the remote office watched it are shown at once (no change needed).
func TestRemoteShowsScreensThatCameBeforeIt(t *testing.T) {
	_, state := startEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := client.Open(ctx, client.Local(state), client.Options{Client: "test", Screens: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for s.Conn().Generation("a") == 0 || s.Conn().Generation("x") == 0 {
		select {
		case <-s.Conn().Changed():
		case <-ctx.Done():
			t.Fatal("no screens")
		}
	}
	r := remote.New(s, remote.Options{})
	defer r.Close()
	var snap ui.Screen
	if !r.Screen("x", &snap, nil) || !strings.Contains(snap.Text(), "waiting") {
		t.Fatalf("x's screen is not shown until it changes: %q", snap.Text())
	}
}

// TestRemoteEndsWithTheServersFailure: a server that stops by itself (its
// store was deleted) says why in its goodbye, which ends the remote office
// with that failure (office then exits non-zero saying it).
func TestRemoteEndsWithTheServersFailure(t *testing.T) {
	e, state, done := startEngineDone(t)
	_, r := open(t, client.Local(state), remote.Options{})
	w := watch(r)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(filepath.Join(state, engine.StoreFile+suffix))
	}
	engine.Poke(state)
	select {
	case err := <-done:
		if !errors.Is(err, engine.ErrStoreLost) {
			t.Fatalf("Run returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the engine did not stop")
	}
	e.Close() // what `office serve` does when Run returns
	w.until(t, "the session over", func() bool { _, ended := r.Gone(); return ended })
	var bye *client.ByeError
	if !errors.As(r.Ended(), &bye) || !strings.Contains(bye.Failure, "deleted") {
		t.Fatalf("ended with %v, want a goodbye saying the store was deleted", r.Ended())
	}
}

// TestRemoteHistoryOverTheConnection: copy mode's read of an agent's
// history comes over the connection, numbered as the server numbers it.
func TestRemoteHistoryOverTheConnection(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte("brief = false\n[[agent]]\nname = \"h\"\n"+
		"command = [\"bash\", \"-c\", \"for i in $(seq 1 300); do echo n $i; done; exec sleep 1000\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	c.Agents[0].History = 50
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}, Cols: 40, Rows: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go e.Run(ctx)
	t.Cleanup(func() { cancel(); e.Close() })
	_, r := open(t, client.Local(state), remote.Options{})
	w := watch(r)
	var snap ui.Screen
	w.until(t, "the last line on screen", func() bool { r.Screen("h", &snap, nil); return strings.Contains(snap.Text(), "n 300") })
	b, rows, err := r.History(ctx, "h", 280, 282, nil)
	if err != nil || b.First != 241 || b.Total != 291 || !b.Live || len(rows) != 2 || rows[1].Seq != 281 ||
		string(pool.AppendText(nil, rows[1].Cells)) != "n 282" {
		t.Fatalf("History: %+v, %+v, %v", b, rows, err)
	}
	// Lines 280-281 are kept from the first read; 282-283 are fetched.
	b, rows, err = r.History(ctx, "h", 279, 284, rows)
	if err != nil || b.First != 241 || len(rows) != 5 || rows[0].Seq != 279 || string(pool.AppendText(nil, rows[4].Cells)) != "n 284" ||
		string(pool.AppendText(nil, rows[1].Cells)) != "n 281" {
		t.Fatalf("History again: %+v, %d rows, %v", b, len(rows), err)
	}
	if _, rows, err := r.History(ctx, "h", 280, 284, nil); err != nil || len(rows) != 4 || string(pool.AppendText(nil, rows[3].Cells)) != "n 284" {
		t.Fatalf("History from the cache: %d rows, %v", len(rows), err)
	}
	if _, _, err := r.History(ctx, "nobody", 0, 10, rows); err == nil {
		t.Fatal("the history of an unknown agent is no error")
	}
}

// TestRemoteHistoryOfAnExitedAgentIsNotLive: once an agent's output ended,
// its last screen's rows are in the history and History says the screen is
// no longer live (what copy mode needs to show them once).
func TestRemoteHistoryOfAnExitedAgentIsNotLive(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte("brief = false\n[[agent]]\nname = \"h\"\n"+
		"command = [\"bash\", \"-c\", \"for i in $(seq 1 30); do echo n $i; done\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}, Cols: 40, Rows: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go e.Run(ctx)
	t.Cleanup(func() { cancel(); e.Close() })
	_, r := open(t, client.Local(state), remote.Options{})
	w := watch(r)
	w.until(t, "h exited", func() bool {
		for _, a := range r.Agents() {
			if a.Name == "h" && a.Exited {
				return true
			}
		}
		return false
	})
	// The screen moves into the history when the PTY's stream ends, which
	// may come just after the exit is reported and sends no change of its
	// own: ask again, a bounded number of times.
	var b ui.HistoryBounds
	var rows []pool.HistoryLine
	for try := 0; ; try++ {
		b, rows, err = r.History(ctx, "h", 0, 100, rows)
		if err != nil {
			t.Fatal(err)
		}
		if !b.Live || try == 500 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b.Live || b.Total != 30 || len(rows) != 30 {
		t.Fatalf("History of the exited agent: %+v, %d rows; want not live, 30 lines", b, len(rows))
	}
	for i, l := range rows {
		if got, want := string(pool.AppendText(nil, l.Cells)), fmt.Sprintf("n %d", i+1); got != want {
			t.Fatalf("line %d is %q, want %q", i, got, want)
		}
	}
}

// cuttable is the local transport with a switch: off, it closes the
// connection it made and refuses to dial (a server that died).
type cuttable struct {
	client.Transport
	mu   sync.Mutex
	off  bool
	last io.Closer
}

func (c *cuttable) Dial(ctx context.Context) (io.ReadWriteCloser, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off {
		return nil, client.ErrNoServer
	}
	rw, err := c.Transport.Dial(ctx)
	c.last = rw
	return rw, err
}

func (c *cuttable) set(off bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off = off
	if off && c.last != nil {
		c.last.Close()
	}
}

// TestRemoteSaysTheServerIsGoneAndStartsIt: a connection that stays lost is
// reported; StartServer runs the start function and the session is back at
// once (not after its back-off), with the screens again.
func TestRemoteSaysTheServerIsGoneAndStartsIt(t *testing.T) {
	_, state := startEngine(t)
	tr := &cuttable{Transport: client.Local(state)}
	started := 0
	_, r := open(t, tr, remote.Options{Where: "the test server", Start: func(context.Context) error {
		started++
		tr.set(false)
		return nil
	}})
	w := watch(r)
	var snap ui.Screen
	w.until(t, "a's prompt", func() bool { r.Screen("a", &snap, nil); return strings.Contains(snap.Text(), "? for shortcuts") })
	tr.set(true)
	w.until(t, "the server said gone", func() bool { reason, _ := r.Gone(); return reason != "" })
	if reason, ended := r.Gone(); !strings.HasPrefix(reason, "the test server is gone") || ended {
		t.Fatalf("gone = %q, %v", reason, ended)
	}
	if err := r.StartServer(context.Background()); err != nil || started != 1 {
		t.Fatalf("StartServer: %v (%d starts)", err, started)
	}
	w.until(t, "connected again", func() bool { reason, _ := r.Gone(); return reason == "" })
	snap.Generation = 0
	w.until(t, "a's screen again", func() bool { return r.Screen("a", &snap, nil) && strings.Contains(snap.Text(), "? for shortcuts") })
	if w.count(ui.ChangeConnection) < 2 {
		t.Fatalf("%d connection changes, want gone and back", w.count(ui.ChangeConnection))
	}
}

func touch(path string) error { return os.WriteFile(path, nil, 0o600) }

// TestRemoteAddAgentRefusalSaysTheReason: a team add the server refuses
// (from the UI's add form) reads, for the person, as what was wrong,
// without the server's package prefixes; the whole error stays its text.
func TestRemoteAddAgentRefusalSaysTheReason(t *testing.T) {
	_, state := startEngine(t)
	_, r := open(t, client.Local(state), remote.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		spec ui.AgentSpec
		want string
	}{
		{ui.AgentSpec{Name: "x1", Profile: "shell", Cwd: "rel"}, `cwd "rel" is not absolute`},
		{ui.AgentSpec{Name: "a", Profile: "shell"}, `the name "a" is already in use`},
		{ui.AgentSpec{Name: "x2", Profile: "nope"}, `agent "x2": unknown profile "nope"`},
	} {
		err := r.AddAgent(ctx, tc.spec)
		var p interface{ PersonMessage() string }
		if err == nil || !errors.As(err, &p) {
			t.Fatalf("add %+v: %v, want a refusal with a person's message", tc.spec, err)
		}
		if got := p.PersonMessage(); !strings.HasPrefix(got, tc.want) || strings.Contains(got, "engine:") || strings.Contains(got, "bad input") {
			t.Errorf("add %+v: the person reads %q, want %q without prefixes", tc.spec, got, tc.want)
		}
		if !strings.HasPrefix(err.Error(), "engine: team add") {
			t.Errorf("add %+v: the error %q lost its context", tc.spec, err)
		}
	}
}
