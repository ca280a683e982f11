package remote_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"office/client"
	"office/configs"
	"office/engine"
	"office/remote"
)

// startLimitEngine runs an engine with the fake agent "a" whose reply to
// "LIMITX …" is its profile's usage-limit banner (the fake agent answers
// "● reply: TEXT"), "again in …" the reset. It keeps no records: the
// screen decides each delivery.
func startLimitEngine(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	cfg := fmt.Sprintf("brief = false\n[[agent]]\nname = \"a\"\nprofile = \"claude\"\ncommand = [%q, \"--busy\", \"50ms\"]\n\n"+
		"[profile.claude]\nrecords = \"\"\nhooks = \"\"\n[profile.claude.limits]\nbanners = [\"reply: LIMITX\"]\nresets = [\"again in \"]\n", fakeBin)
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = e.Run(ctx) }()
	t.Cleanup(func() { cancel(); e.Close() })
	return state
}

// TestMultiReleasesUsageLimitsOnTheOwner: a release naming AGENT@HOST goes
// to that host's server; one naming none goes to every host; the agents
// released come back as AGENT@HOST; a name not of the view, or unknown on
// its host, is an error.
func TestMultiReleasesUsageLimitsOnTheOwner(t *testing.T) {
	t.Parallel()
	stateA, stateB := startLimitEngine(t), startLimitEngine(t)
	m, err := remote.NewMulti([]remote.Host{
		{Name: "a", Transport: client.Local(stateA), Session: openSession(t, client.Local(stateA))},
		{Name: "b", Transport: client.Local(stateB), Session: openSession(t, client.Local(stateB))},
	}, viewClient)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	w := watch(m)
	w.until(t, "both idle", func() bool { return info(m, "a@a").Status == "idle" && info(m, "a@b").Status == "idle" })
	ctx := context.Background()
	hold := func() {
		t.Helper()
		if _, err := m.Enqueue(ctx, "a@b", "LIMITX again in 5 hours"); err != nil {
			t.Fatal(err)
		}
		w.until(t, "b's a held", func() bool { return info(m, "a@b").Status == "usage limit" })
	}
	hold()
	r, err := m.ReleaseLimit(ctx, "a@a")
	if err != nil || len(r.Released) != 0 || info(m, "a@b").Status != "usage limit" {
		t.Fatalf("releasing a's account: %+v %v, b's a %s; want nothing released there", r, err, info(m, "a@b").Status)
	}
	if r, err = m.ReleaseLimit(ctx, "a@b"); err != nil || !slices.Equal(r.Released, []string{"a@b"}) {
		t.Fatalf("releasing b's account: %+v %v, want a@b", r, err)
	}
	w.until(t, "b's a idle again", func() bool { return info(m, "a@b").Status == "idle" })

	hold()
	if r, err = m.ReleaseLimit(ctx, ""); err != nil || !slices.Equal(r.Released, []string{"a@b"}) {
		t.Fatalf("releasing every account: %+v %v, want a@b", r, err)
	}
	w.until(t, "b's a idle after the floor's release", func() bool { return info(m, "a@b").Status == "idle" })

	if _, err := m.ReleaseLimit(ctx, "a"); err == nil || !strings.Contains(err.Error(), "AGENT@HOST") {
		t.Errorf("a name without its host: %v, want an error naming AGENT@HOST", err)
	}
	if _, err := m.ReleaseLimit(ctx, "nobody@b"); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("an agent b does not have: %v, want an error naming it", err)
	}
}
