package engine

import (
	"path/filepath"
	"slices"
	"testing"

	"office/configs"
	"office/wire"
)

// The one list of what a store change wakes, pinned: a row changed on
// purpose is changed here too.
func TestStoreWakesList(t *testing.T) {
	t.Parallel()
	want := map[wakeCause][]string{
		wakePoke:  {"outbox", "watch", "inbox", "drain"},
		wakeCall:  {"clients"},
		wakeQueue: {"drain"},
		wakeLocal: {"drain", "clients"},
		wakeFloor: {"drain", "inbox"},
	}
	for cause, names := range want {
		var got []string
		for _, w := range storeWakes(cause) {
			got = append(got, w.String())
		}
		if !slices.Equal(got, names) {
			t.Errorf("cause %d wakes %v, want %v", cause, got, names)
		}
	}
	if got := storeWakes(wakeCause(99)); got != nil {
		t.Errorf("an unknown cause wakes %v, want nothing", got)
	}
}

// A poke call reaches the list: the state-directory watch and the inbox
// are woken (each holds one wake-up until its loop reads it), and the
// clients' state loop after the call.
func TestPokeWakesTheList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte("brief = false\n[[agent]]\nname = \"c\"\ncommand = [\"cat\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Options{Config: c, StateDir: filepath.Join(dir, "state"), HostEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// Not running: nothing reads the wake-ups but this test. Drain what
	// Open itself may have left.
	drainOne := func(ch chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	drainOne(e.life.watchNow)
	drainOne(e.inbox.kick)
	if _, err := e.handle(Request{Op: wire.OpPoke.Name}); err != nil {
		t.Fatal(err)
	}
	if !drainOne(e.life.watchNow) {
		t.Error("a poke did not wake the state-directory watch")
	}
	if !drainOne(e.inbox.kick) {
		t.Error("a poke did not wake the inbox")
	}
}
