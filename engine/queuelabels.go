package engine

// queuelabels.go says why each queued message waits, in one place for the
// server's "queue.list" (the UI's queue panel) and `office queue`.

import (
	"office/drain"
	"office/queue"
	"office/wire"
)

// QueueState is what the labels of a queue listing depend on besides the
// messages.
type QueueState struct {
	// Running: a server runs on the state directory (else an undelivered
	// message waits for "office not running").
	Running bool
	// Holds is each agent's hold of its head message (drain.HoldReason
	// text), as the drain recorded it.
	Holds map[string]string
	// FloorPaused: the whole floor is paused; Paused: these agents are.
	FloorPaused bool
	Paused      map[string]bool
}

// QueueLabels returns, for msgs in queue order, why each waits: "set aside"
// (for the person), interrupted, its agent's hold (only the head: the first
// message of its agent not set aside), "paused" (not for a manual one),
// "office not running", "delivering" (the drain is typing the head),
// "next" (a head nothing holds) or "queued" behind it.
func QueueLabels(msgs []queue.Message, st QueueState) []string {
	out := make([]string, len(msgs))
	heads := map[string]bool{}
	for i, m := range msgs {
		head := !heads[m.Agent] && !m.SetAside
		heads[m.Agent] = heads[m.Agent] || !m.SetAside
		switch {
		case m.SetAside:
			out[i] = wire.QueuedSetAside
		case m.Interrupted:
			out[i] = string(drain.HoldInterrupted)
		case st.Running && head && st.Holds[m.Agent] != "":
			out[i] = st.Holds[m.Agent]
		case (st.FloorPaused || st.Paused[m.Agent]) && !m.Manual:
			out[i] = string(drain.HoldPaused)
		case !st.Running:
			out[i] = wire.QueuedNotRunning
		case head && !m.Writing.IsZero():
			out[i] = wire.QueuedDelivering // the drain is typing it now
		case head:
			out[i] = wire.QueuedNext // nothing holds it; the drain has not begun it
		default:
			out[i] = wire.QueuedBehind
		}
	}
	return out
}
