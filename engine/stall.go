package engine

// stall.go is the stall watchdog's side in the engine (docs/design.md §4):
// activity is a change in the screen's text outside spinner cells and
// timers, sampled every stall_sample; a busy agent with no activity for its
// stall setting is reported once (inbox.ObserveStall).

import (
	"context"
	"hash/fnv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"office/automation"
	"office/inbox"
)

// spinnerRune reports cells that change while a CLI works without meaning
// progress (braille and star spinners).
func spinnerRune(r rune) bool {
	return (r >= 0x2800 && r <= 0x28FF) || strings.ContainsRune("✻✳✶✢✽·*⏺●◐◓◑◒|/-\\", r)
}

// activityHash hashes screen text without spinner cells and digits (timers).
func activityHash(text string) uint64 {
	h := fnv.New64a()
	var buf []byte
	for _, r := range text {
		if spinnerRune(r) || unicode.IsDigit(r) {
			continue
		}
		buf = utf8.AppendRune(buf, r)
	}
	h.Write(buf)
	return h.Sum64()
}

// activityWatch remembers, per agent, its screen's last activity. Not safe
// for concurrent use (runInbox only).
type activityWatch struct {
	last map[string]activity
}

type activity struct {
	hash uint64
	at   time.Time
	// src and gen are the terminal and its screen generation the hash was
	// taken from: an equal pair means the text cannot have changed.
	src any
	gen uint64
}

// observe records the agent's screen text at now and returns its last
// activity. The first look starts from remembered (a stall remembered from
// before a restart continues) when ok, else from now.
func (w *activityWatch) observe(name, text string, now time.Time, remembered func() (time.Time, bool)) time.Time {
	if w.last == nil {
		w.last = map[string]activity{}
	}
	h := activityHash(text)
	a, seen := w.last[name]
	switch {
	case !seen:
		a = activity{hash: h, at: now}
		if since, ok := remembered(); ok {
			a.at = since
		}
	case h != a.hash:
		a = activity{hash: h, at: now}
	}
	w.last[name] = a
	return a.at
}

// unchanged reports whether the agent's screen is the one last observed, at
// the same generation (so its text is too, and reading it can be skipped).
func (w *activityWatch) unchanged(name string, src any, gen uint64) bool {
	a, seen := w.last[name]
	return seen && a.src == src && a.gen == gen
}

// stamp records the terminal and screen generation the last observation of
// the agent read.
func (w *activityWatch) stamp(name string, src any, gen uint64) {
	if a, seen := w.last[name]; seen {
		a.src, a.gen = src, gen
		w.last[name] = a
	}
}

// since returns the agent's last activity (zero before the first sample).
func (w *activityWatch) since(name string) time.Time { return w.last[name].at }

// sampleAgents records activity for the stall watchdog (runInbox only).
func (e *Engine) sampleAgents(ctx context.Context, now time.Time) {
	for _, a := range e.Agents() {
		if a.Term == nil {
			continue
		}
		name := a.Config.Name
		// An idle screen is not read again: its generation says it did
		// not change, so neither did its activity.
		gen := a.Term.Generation()
		if e.inbox.activity.unchanged(name, a.Term, gen) {
			continue
		}
		e.inbox.activity.observe(name, a.Term.Text(), now, func() (time.Time, bool) {
			since, ok, err := e.inbox.svc.StallSince(ctx, name)
			return since, ok && err == nil
		})
		e.inbox.activity.stamp(name, a.Term, gen)
	}
}

// checkStalls reports each busy agent without activity for its stall
// setting to its parent, once per stall; it returns whether a
// notice was sent (runInbox only).
func (e *Engine) checkStalls(ctx context.Context, now time.Time) bool {
	sent := false
	for _, a := range e.Agents() {
		if a.Term == nil {
			continue
		}
		name := a.Config.Name
		obs := inbox.StallObservation{
			Agent:        name,
			Parent:       a.Config.Parent,
			Desc:         desc(a.Config),
			Busy:         a.Term.Status() == automation.StatusBusy,
			LastActivity: e.inbox.activity.since(name),
			After:        e.settingsFor(a.Config).Stall,
		}
		noticed, err := e.inbox.svc.ObserveStall(ctx, obs, now)
		if err != nil {
			if ctx.Err() == nil {
				e.log.Error("stall check", "agent", name, "err", err)
			}
			continue
		}
		if noticed {
			e.log.Warn("agent appears stalled", "agent", name, "since", obs.LastActivity)
			sent = true
		}
	}
	return sent
}
