package remote_test

// multi_test.go: two real engines (two state directories, two sockets)
// seen in one view through remote.Multi.

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"office/client"
	"office/remote"
	"office/ui"
)

var viewClient = client.Options{Client: "view test", Screens: true, Events: true}

// openSession opens a session on tr.
func openSession(t *testing.T, tr client.Transport) *client.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := client.Open(ctx, tr, viewClient)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func names(o ui.Office) []string {
	var out []string
	for _, a := range o.Agents() {
		out = append(out, a.Name)
	}
	return out
}

// TestMultiMergesTwoServersAndRoutesToTheOwner: the roster of both servers
// under AGENT@HOST, keys, views, queue intents going to the owner only;
// one server cut leaves the other working and marks its own agents
// unreachable (keys to them refused), and it comes back.
func TestMultiMergesTwoServersAndRoutesToTheOwner(t *testing.T) {
	t.Parallel()
	_, stateA := startEngine(t)
	_, stateB := startEngine(t)
	trB := &cuttable{Transport: client.Local(stateB)}
	starts := 0
	m, err := remote.NewMulti([]remote.Host{
		{Name: "a", Transport: client.Local(stateA), Session: openSession(t, client.Local(stateA))},
		{Name: "b", Transport: trB, Session: openSession(t, trB), Start: func(context.Context) error {
			starts++
			trB.set(false)
			return nil
		}},
	}, viewClient)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	w := watch(m)
	var sa, sb ui.Screen
	w.until(t, "both a's prompts", func() bool {
		m.Screen("a@a", &sa, nil)
		m.Screen("a@b", &sb, nil)
		return strings.Contains(sa.Text(), "? for shortcuts") && strings.Contains(sb.Text(), "? for shortcuts") &&
			info(m, "a@a").Status == "idle" && info(m, "a@b").Status == "idle"
	})
	if got, want := names(m), []string{"a@a", "x@a", "a@b", "x@b"}; !slices.Equal(got, want) {
		t.Fatalf("roster %v, want %v", got, want)
	}
	if a := info(m, "x@b"); a.Host != "b" || a.Profile == "" {
		t.Fatalf("x@b = %+v, want host b", a)
	}

	// Keys to a@b reach b's a only.
	if err := m.Input("a@b", []byte("typed for b")); err != nil {
		t.Fatal(err)
	}
	w.until(t, "the draft on b's a", func() bool {
		m.Screen("a@b", &sb, nil)
		return info(m, "a@b").Draft && strings.Contains(sb.Text(), "typed for b")
	})
	m.Screen("a@a", &sa, nil)
	if info(m, "a@a").Draft || strings.Contains(sa.Text(), "typed for b") {
		t.Fatalf("a's a got b's keys:\n%s", sa.Text())
	}

	// A queued message: its depth and hold under a@b, listed and removed there.
	ctx := context.Background()
	id, err := m.Enqueue(ctx, "a@b", "queued on b")
	if err != nil {
		t.Fatal(err)
	}
	w.until(t, "held on b", func() bool {
		f := m.Floor()
		return f.Counts["a@b"] == 1 && f.Holds["a@b"] == "your draft" && f.Counts["a@a"] == 0
	})
	l, err := m.Queue(ctx, "a@b")
	if err != nil || l.Agent != "a@b" || len(l.Messages) != 1 || l.Messages[0].ID != id {
		t.Fatalf("queue of a@b: %+v %v", l, err)
	}
	if err := m.Remove(ctx, id); err != nil {
		t.Fatal(err)
	}
	w.until(t, "b's queue empty", func() bool { return m.Floor().Counts["a@b"] == 0 })
	if err := m.Remove(ctx, 999999); err == nil {
		t.Fatal("removing an id no listing showed is no error")
	}

	// The view goes to each owner: b's a at 70x20, a's a at 50x15.
	if err := m.SetView("a@b", map[string]ui.PaneSize{"a@b": {Cols: 70, Rows: 20}, "a@a": {Cols: 50, Rows: 15}}, true); err != nil {
		t.Fatal(err)
	}
	w.until(t, "both sizes", func() bool {
		m.Screen("a@a", &sa, nil)
		m.Screen("a@b", &sb, nil)
		return sb.Cols == 70 && sb.Rows == 20 && sa.Cols == 50 && sa.Rows == 15
	})

	// Names that are not AGENT@HOST of this view.
	for _, bad := range []string{"a", "a@c"} {
		if err := m.Input(bad, []byte("x")); err == nil || !strings.Contains(err.Error(), "AGENT@HOST") {
			t.Errorf("Input(%q): %v, want an error naming AGENT@HOST", bad, err)
		}
	}
	if err := m.AddAgent(ctx, ui.AgentSpec{Name: "new", Command: []string{"cat"}}); err == nil {
		t.Error("AddAgent without a host is no error")
	}

	// b's server goes away: its agents are unreachable, a keeps working.
	trB.set(true)
	w.until(t, "b unreachable", func() bool {
		reason, ended := m.Gone()
		return !ended && strings.Contains(reason, "host b unreachable, retrying") && info(m, "a@b").Status == remote.StatusUnreachable
	})
	if st := info(m, "a@a").Status; st == remote.StatusUnreachable {
		t.Fatalf("a's a is %s with b down", st)
	}
	if err := m.Input("a@b", []byte("lost")); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("keys to an unreachable host: %v, want them refused", err)
	}
	if err := m.Input("a@a", []byte(" still here")); err != nil {
		t.Fatal(err)
	}
	w.until(t, "a's a takes keys with b down", func() bool {
		m.Screen("a@a", &sa, nil)
		return strings.Contains(sa.Text(), "still here")
	})
	if f := m.Floor(); f.Paused {
		t.Fatal("paused with b down")
	}
	if err := m.StartServer(ctx); err != nil || starts != 1 {
		t.Fatalf("StartServer: %v (%d starts)", err, starts)
	}
	w.until(t, "b back", func() bool {
		reason, _ := m.Gone()
		return reason == "" && info(m, "a@b").Status == "idle"
	})
	sb.Generation = 0
	w.until(t, "b's screen again, with the draft", func() bool {
		return m.Screen("a@b", &sb, nil) && strings.Contains(sb.Text(), "typed for b")
	})

	// Pausing pauses every host.
	if err := m.SetFloorPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	w.until(t, "the floor paused on both", func() bool { return m.Floor().Paused })
}

// TestMultiDialsAHostThatWasDownAtTheStart: a host whose first dial failed
// is dialled in the background; the view says it is unreachable, and its
// agents join once it answers.
func TestMultiDialsAHostThatWasDownAtTheStart(t *testing.T) {
	t.Parallel()
	_, stateA := startEngine(t)
	_, stateB := startEngine(t)
	trB := &cuttable{Transport: client.Local(stateB), off: true}
	m, err := remote.NewMulti([]remote.Host{
		{Name: "a", Transport: client.Local(stateA), Session: openSession(t, client.Local(stateA))},
		{Name: "b", Transport: trB, DialErr: client.ErrNoServer, Start: func(context.Context) error { trB.set(false); return nil }},
	}, viewClient)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	w := watch(m)
	if reason, ended := m.Gone(); ended || !strings.Contains(reason, "host b unreachable") {
		t.Fatalf("gone = %q %v, want b unreachable", reason, ended)
	}
	w.until(t, "a's agents", func() bool { return len(m.Agents()) == 2 })
	if err := m.Input("a@b", []byte("x")); err == nil {
		t.Fatal("keys to a host never reached are no error")
	}
	if err := m.StartServer(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.until(t, "b's agents joined", func() bool {
		reason, _ := m.Gone()
		return reason == "" && slices.Equal(names(m), []string{"a@a", "x@a", "a@b", "x@b"})
	})
}

func TestMultiRefusesBadHosts(t *testing.T) {
	t.Parallel()
	tr := client.Local(t.TempDir())
	for _, hs := range [][]remote.Host{
		{{Name: "a", Transport: tr}},
		{{Name: "a", Transport: tr}, {Name: "a", Transport: tr}},
		{{Name: "a", Transport: tr}, {Name: "b@c", Transport: tr}},
		{{Name: "a", Transport: tr}, {Name: "", Transport: tr}},
	} {
		if m, err := remote.NewMulti(hs, viewClient); err == nil {
			m.Close()
			t.Errorf("NewMulti(%v) is no error", hs)
		}
	}
}

// TestMultiSubscribesEachHostToItsOwnPanes: one subscription of the view
// reaches each host as the names of its own agents; a host's agents not
// named get no screen (their roster entries and states still come), and
// naming others moves the screens.
func TestMultiSubscribesEachHostToItsOwnPanes(t *testing.T) {
	t.Parallel()
	_, stateA := startEngine(t)
	_, stateB := startEngine(t)
	sub := viewClient
	sub.Subscribe = true
	open := func(state string) *client.Session {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := client.Open(ctx, client.Local(state), sub)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	m, err := remote.NewMulti([]remote.Host{
		{Name: "a", Transport: client.Local(stateA), Session: open(stateA)},
		{Name: "b", Transport: client.Local(stateB), Session: open(stateB)},
	}, sub)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	w := watch(m)
	has := func(agent string) bool {
		var s ui.Screen
		return m.Screen(agent, &s, nil) && s.Cols > 0
	}
	if err := m.Subscribe([]string{"a@b"}); err != nil {
		t.Fatal(err)
	}
	w.until(t, "a@b's screen, every agent's state", func() bool {
		return has("a@b") && info(m, "a@a").Status == "idle" && info(m, "x@b").Status != ""
	})
	for _, other := range []string{"a@a", "x@a", "x@b"} {
		if has(other) {
			t.Fatalf("%s's screen came without a subscription", other)
		}
	}
	if err := m.Subscribe([]string{"x@a"}); err != nil {
		t.Fatal(err)
	}
	if has("a@b") {
		t.Fatal("a@b's screen is still held after it was unsubscribed")
	}
	w.until(t, "x@a's screen", func() bool { return has("x@a") })
	if has("a@a") || has("a@b") || has("x@b") {
		t.Fatal("a screen not subscribed to came")
	}
}
