package engine_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"office/client"
	"office/configs"
	"office/wire"
)

// TestAgentNotificationReachesClientsAsANotifyEvent: an agent that sends
// OSC 9 in its terminal is heard by an attached client as a notify event
// naming it.
func TestAgentNotificationReachesClientsAsANotifyEvent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	src := "[[agent]]\nname = \"ringer\"\ncommand = [\"sh\", \"-c\", \"read x; printf '\\\\033]9;approval requested\\\\007'; sleep 60\"]\n"
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := open(t, c, state)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	conn, err := client.Dial(dctx, client.Local(state), client.Options{Client: "notes test", Events: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	a := mustAgent(t, e, "ringer")
	if err := a.Term.Input([]byte("go\r")); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev := <-conn.Events():
			if ev.Type == wire.EventNotify {
				if ev.Agent != "ringer" || ev.Kind != "osc9" || ev.Text != "approval requested" {
					t.Fatalf("notify event %+v", ev)
				}
				return
			}
		case <-deadline:
			t.Fatal("no notify event")
		}
	}
}
