package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"office/configs"
	"office/engine"
	"office/queue"
	"office/test/testcerts"
	"office/test/testports"
)

// A clustered office answers both the floor-wide pause ("floor", what the
// UI's pause key sends) and the floor's roster ("cluster.floor"), and its
// status rows carry their host.
func TestClusteredOfficeKeepsTheFloorPauseCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	port := testports.Port(t)
	text := fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"a0\"\nprofile = \"shell\"\n\n[cluster]\nname = \"floor\"\nhost = \"solo\"\nlisten = \"127.0.0.1:%d\"\n%s", port, testcerts.New(t, "floor").TOML(t, "solo"))
	cc, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	open(t, cc, state)
	ctx := context.Background()
	if err := engine.Call(ctx, state, engine.Request{Op: "floor", Args: []byte(`{"paused":true}`)}, nil); err != nil {
		t.Fatal(err)
	}
	s, err := queue.Open(filepath.Join(state, "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if paused, err := s.FloorPaused(ctx); err != nil || !paused {
		t.Fatalf("after the floor call: paused %v (%v), want paused", paused, err)
	}
	var f engine.Floor
	if err := engine.Call(ctx, state, engine.Request{Op: "cluster.floor"}, &f); err != nil || f.Host != "solo" || f.Name != "floor" {
		t.Fatalf("cluster.floor: %+v, %v", f, err)
	}
	var st []engine.AgentStatus
	if err := engine.Call(ctx, state, engine.Request{Op: "status"}, &st); err != nil || len(st) != 1 || st[0].Host != "solo" ||
		st[0].Remote || st[0].HostReachable == nil || !*st[0].HostReachable {
		t.Fatalf("status: %+v, %v", st, err)
	}
}
