package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"office/engine"
	"office/wire"
)

// TestOpTableIsWire pins the one operation table: the engine answers
// exactly the calls wire.Ops declares (registering another panics), so a
// call added on one side only fails here. cluster.floor is registered only
// by a clustered engine (engine/cluster.go).
func TestOpTableIsWire(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := open(t, fakeConfig(t, dir, 1), filepath.Join(dir, "state"))
	got := e.OpNames()
	slices.Sort(got)
	var want []string
	for _, o := range wire.Ops {
		if o.Name != wire.OpClusterFloor.Name {
			want = append(want, o.Name)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the engine answers %v; wire.Ops declares %v", got, want)
	}
}

// TestOneSocket pins the retirement of office.sock: a running engine
// listens on the clients' socket alone, and a command's one call (Call,
// Do) goes through it, its input errors still marked as such (exit 2) and
// its answers typed by wire.Ops.
func TestOneSocket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	open(t, fakeConfig(t, dir, 1), state)
	if _, err := os.Stat(filepath.Join(state, "office.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("office.sock: %v, want none", err)
	}
	ctx := context.Background()
	st, err := engine.Do(ctx, state, wire.OpStatus, "a0", wire.None{})
	if err != nil || len(st) != 1 || st[0].Name != "a0" {
		t.Fatalf("status a0: %+v, %v", st, err)
	}
	_, err = engine.Do(ctx, state, wire.OpStatus, "nobody", wire.None{})
	if !errors.Is(err, engine.ErrBadInput) || !strings.Contains(err.Error(), `"nobody"`) {
		t.Fatalf("status of an unknown agent: %v, want bad input naming it", err)
	}
	if err := engine.Call(ctx, state, engine.Request{Op: "no.such.op"}, nil); !errors.Is(err, engine.ErrBadInput) {
		t.Fatalf("an unknown op: %v, want bad input", err)
	}
	if _, err := engine.Do(ctx, t.TempDir(), wire.OpStatus, "", wire.None{}); !errors.Is(err, engine.ErrNoEngine) {
		t.Fatalf("a state directory with no office: %v, want ErrNoEngine", err)
	}
}
