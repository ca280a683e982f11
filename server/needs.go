package server

// needs.go turns changes of the needs-you list into the stream's "needs"
// events (docs/needs.md), and knows which agent a person is looking at.

import (
	"strconv"
	"time"

	"office/wire"
)

// needsEvents compares needs with the list st last saw and returns an
// event for each item added and each cleared (none on the first pass: a
// client attaching reads the list in the state). It remembers needs.
func needsEvents(st *loopState, needs []wire.Need, first bool, now time.Time) []wire.Event {
	next := make(map[string]wire.Need, len(needs))
	var out []wire.Event
	for _, n := range needs {
		next[n.Key()] = n
		if _, had := st.needs[n.Key()]; !had && !first {
			out = append(out, needEvent(n, wire.NeedAdded, now))
		}
	}
	if !first {
		for _, n := range orderedNeeds(st.needs) {
			if _, still := next[n.Key()]; !still {
				out = append(out, needEvent(n, wire.NeedCleared, now))
			}
		}
	}
	st.needs = next
	return out
}

// orderedNeeds is the values of m, oldest first (ListNeeds' order).
func orderedNeeds(m map[string]wire.Need) []wire.Need {
	var out []wire.Need
	for _, n := range m {
		out = append(out, n)
	}
	return wire.SortNeeds(out)
}

// needEvent is the event of n's kind (added or cleared).
func needEvent(n wire.Need, kind string, now time.Time) wire.Event {
	ev := wire.Event{At: now, Type: wire.EventNeeds, Agent: n.Agent, Kind: kind, Detail: n.Reason, Text: n.Excerpt}
	if n.Reason == wire.NeedHeld {
		ev.MsgID, _ = strconv.ParseInt(n.Ref, 10, 64)
	}
	return ev
}

// setTermFocus records whether the client's terminal has focus.
func (c *client) setTermFocus(focused bool) {
	c.s.mu.Lock()
	c.shows.termFocused = focused
	c.s.mu.Unlock()
}

// Watched reports whether a person is looking at agent: a client whose
// terminal has focus shows it focused.
func (s *Server) Watched(agent string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients {
		if c.shows.termFocused && c.shows.focus == agent {
			return true
		}
	}
	return false
}
