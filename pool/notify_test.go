package pool_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"office/pool"
)

// TestAgentNotificationsBecomeEventsAndLeaveTheScreenAlone: a child in a
// real PTY rings (BEL) and sends OSC 9, 777 and 99; each reaches Notify as
// EventNotify naming the terminal (the later ones folded into one after
// the gap), and the screen shows only the text around them.
func TestAgentNotificationsBecomeEventsAndLeaveTheScreenAlone(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var notes []pool.Event
	script := `printf 'before\007'; sleep 0.3; printf '\033]9;tests pass\007\033]777;notify;Codex;approve?\033\\\033]99;;done\033\\after'; sleep 30`
	term, err := pool.Start(pool.Options{Name: "ringer", Env: testEnv(), Cols: 40, Rows: 5, Argv: []string{"sh", "-c", script},
		Notify: func(ev pool.Event) {
			if ev.Kind == pool.EventNotify {
				mu.Lock()
				notes = append(notes, ev)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	got := func() []pool.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]pool.Event(nil), notes...)
	}
	waitFor(t, 10*time.Second, "two notify events", func() bool { return len(got()) == 2 })
	n := got()
	if n[0].Agent != "ringer" || n[0].Note.Kind != pool.NoteBell {
		t.Fatalf("first event %+v, want ringer's bell", n[0])
	}
	if last := n[1].Note; last.Kind != pool.NoteOSC99 || last.Body != "done" || last.Repeats != 2 {
		t.Fatalf("second event %+v, want the kitty note with the OSC 9 and 777 folded in", last)
	}
	if text := strings.TrimSpace(term.Text()); !strings.HasPrefix(text, "beforeafter") {
		t.Fatalf("screen %q, want only the text", text)
	}
}
