package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/client"
	"office/configs"
	"office/engine"
	"office/pool"
	"office/wire"
)

// One client flooding an agent that never reads its PTY with 1,000-byte
// input frames (the attack grew the server by 3.6 GB in 20 s) is
// held once the agent's input holds pool.MaxQueuedInput bytes; a second
// client's keys to another agent still go through, and its paste too large
// for the bound is refused with a notice to it alone.
func TestServerInputIsBoundedPerAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	src := fmt.Sprintf("brief = false\n[[agent]]\nname = \"hung\"\ncommand = %s\n[[agent]]\nname = \"cat\"\ncommand = [\"cat\"]\n",
		`["sh", "-c", "stty raw -echo; echo ready; exec sleep 120"]`)
	cfg, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := open(t, cfg, state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	flood, err := client.Dial(dctx, client.Local(state), client.Options{Client: "flood", Events: true})
	if err != nil {
		t.Fatal(err)
	}
	defer flood.Close()
	person, err := client.Dial(dctx, client.Local(state), client.Options{Client: "person", Screens: true, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	defer person.Close()
	hung := mustAgent(t, e, "hung")
	waitCond(t, 20*time.Second, "the hung agent in raw mode", func() bool { return strings.Contains(hung.Term.Text(), "ready") })

	// Four times the bound, in the frames: the sender is held.
	sent := make(chan int, 1)
	go func() {
		chunk := bytes.Repeat([]byte("x"), 1000)
		n := 0
		for ; n < 4*pool.MaxQueuedInput && flood.Input("hung", chunk) == nil; n += len(chunk) {
		}
		sent <- n
	}()
	waitCond(t, 20*time.Second, "the hung agent's input full", func() bool { return hung.Term.QueuedInput() > pool.MaxQueuedInput-1000 })

	// The other client is not held: its keys reach the other agent.
	if err := person.Input("cat", []byte("still typed\r")); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 20*time.Second, "the person's keys echoed by cat", func() bool {
		var s pool.Snapshot
		return person.Screen("cat", &s) && strings.Contains(s.Text(), "still typed")
	})
	// Its paste too large for the bound is refused, with a notice to it.
	if err := person.Input("hung", make([]byte, pool.MaxQueuedInput+1)); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for told := false; !told; {
		select {
		case ev := <-person.Events():
			told = ev.Type == wire.EventNotice && ev.Kind == engine.NoticeKeys && ev.Agent == "hung" &&
				strings.Contains(ev.Text, fmt.Sprint(pool.MaxQueuedInput+1))
		case <-deadline:
			t.Fatal("no notice of the refused paste")
		}
	}
	if q := hung.Term.QueuedInput(); q > pool.MaxQueuedInput {
		t.Fatalf("%d bytes queued for the hung agent, past the bound %d", q, pool.MaxQueuedInput)
	}
	select {
	case n := <-sent:
		t.Fatalf("the flooding client sent all %d bytes unheld", n)
	default:
	}
	// The flooding client alone heard nothing of the paste.
	for {
		select {
		case ev := <-flood.Events():
			if ev.Type == wire.EventNotice && ev.Kind == engine.NoticeKeys {
				t.Fatalf("the flooding client was told of another's paste: %+v", ev)
			}
			continue
		default:
		}
		break
	}
}
