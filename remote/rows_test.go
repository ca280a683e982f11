package remote_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"office/client"
	"office/remote"
	"office/ui"
)

// TestScreenRowsKeepUpAcrossAReconnect: a copy of a screen kept with its row
// generations (the UI's way: only the rows that moved are copied) is, after
// every change and after the connection was cut and made again, the screen
// a full copy gives.
func TestScreenRowsKeepUpAcrossAReconnect(t *testing.T) {
	e, state := startEngine(t)
	tr := &cuttable{Transport: client.Local(state)}
	_, r := open(t, tr, remote.Options{Where: "the test server", Start: func(context.Context) error {
		tr.set(false)
		return nil
	}})
	w := watch(r)
	var kept ui.Screen
	var rows []uint64
	var last string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the screen last seen:\n%s", last)
		}
	})
	same := func(what string) bool {
		t.Helper()
		// Full copies before and after: the screen did not change between
		// them when they agree (the session applies an update before the
		// generation Screen compares moves, so that cannot tell).
		var before, full ui.Screen
		r.Screen("a", &before, nil)
		r.Screen("a", &kept, &rows)
		if !r.Screen("a", &full, nil) || !slices.Equal(before.Cells, full.Cells) {
			return false // a change came meanwhile: look again
		}
		if !slices.Equal(kept.Cells, full.Cells) || kept.CursorX != full.CursorX || kept.CursorY != full.CursorY || len(rows) != full.Rows {
			t.Fatalf("%s: the copy kept by rows is not the screen:\nkept %q\nfull %q", what, kept.Text(), full.Text())
		}
		last = full.Text()
		return strings.Contains(last, what)
	}
	w.until(t, "a's prompt", func() bool { return same("? for shortcuts") })
	if err := r.Input("a", []byte("my words")); err != nil {
		t.Fatal(err)
	}
	w.until(t, "the typed words", func() bool { return same("my words") })

	tr.set(true)
	w.until(t, "the server said gone", func() bool { reason, _ := r.Gone(); return reason != "" })
	// The screen changes while nobody is connected (the words submitted
	// move up into the transcript): rows the copy holds at the old
	// connection's generations are not the rows of now.
	a, _ := e.Agent("a")
	if err := a.Term.Write(context.Background(), []byte("\r")); err != nil {
		t.Fatal(err)
	}
	typed := ""
	if err := r.StartServer(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.until(t, "connected again", func() bool { reason, _ := r.Gone(); return reason == "" })
	// Key by key: the new connection's row generations climb past those of
	// the old one the copy still holds, and must never meet them.
	for _, k := range " and more, key by key" {
		if err := r.Input("a", []byte(string(k))); err != nil {
			t.Fatal(err)
		}
		typed += string(k)
		w.until(t, "the words typed after the reconnect", func() bool { return same(strings.TrimRight(typed, " ")) })
	}
}
