package engine

// hook.go is the CLI hooks' side of status (design.md §3: the strongest
// signal) and `office status --explain`.
//
// Claude Code runs `office hook EVENT` from the per-agent settings file that
// launch.go writes; the command reaches the running engine through the socket
// call "hook", which maps the event to a status on the agent's terminal:
//
//	UserPromptSubmit, PreToolUse, PostToolUse,
//	PreCompact                                 busy
//	Stop, Notification idle_prompt             idle
//	Notification permission_prompt             waiting
//	SessionStart                               no hook status (the screen decides)
//
// A hook status stays until the next event, or until the window title has
// contradicted it for a while: Claude runs no hook when the person
// interrupts a turn (Esc), and none for a /compact turn. So busy is dropped
// after the title has said idle for hookStaleAfter, idle after it has said
// busy (spinner) as long, and waiting after hookWaitingStaleAfter of an idle
// title with no waiting pattern on screen either. Dropped, the weaker
// signals decide again until the next hook event.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"office/automation"
	"office/pool"
)

const (
	// hookStaleAfter: a busy hook report the title contradicts for this long
	// is dropped.
	hookStaleAfter = 3 * time.Second
	// hookWaitingStaleAfter: a waiting hook report the title and the screen
	// contradict for this long is dropped.
	hookWaitingStaleAfter = 10 * time.Second
	// hookCheckEvery is how often a held hook report is checked.
	hookCheckEvery = time.Second
)

// HookArgs are the arguments of the "hook" socket call.
type HookArgs struct {
	// Event is the hook event as `office hook EVENT` got it
	// ("UserPromptSubmit", "Stop", "Notification:permission", ...).
	Event string `json:"event"`
	// NotificationType is the payload's notification_type, when present.
	NotificationType string `json:"notification_type,omitempty"`
	// Message is the payload's message (Notification), for the log.
	Message string `json:"message,omitempty"`
}

// HookState is the last hook report of one agent.
type HookState struct {
	Event   string    `json:"event"`
	Status  string    `json:"status"` // "" when the event cleared the hook status
	At      time.Time `json:"at"`
	Dropped string    `json:"dropped,omitempty"` // why the report no longer counts
}

// hookLayer holds the hook reports of one engine.
type hookLayer struct {
	mu     sync.Mutex
	state  map[string]*HookState
	checks map[string]bool // a staleness check is scheduled
}

// hooks returns the engine's hook layer, made on first use.
func (e *Engine) hooks() *hookLayer {
	e.hookOnce.Do(func() {
		e.hookState = &hookLayer{state: map[string]*HookState{}, checks: map[string]bool{}}
	})
	return e.hookState
}

// registerHookOps adds the CLI hooks' socket call (`office hook EVENT`) and
// the status explanation (`office status --explain`).
func (e *Engine) registerHookOps() {
	e.ops["hook"] = e.opHook
	e.ops["explain"] = e.opExplain
}

// hookStatus maps a hook event to a status; ok=false: the event carries no
// status (ignored); none: the event clears the hook status.
func hookStatus(a HookArgs) (s automation.Status, none, ok bool) {
	ev := a.Event
	if ev == "Notification" {
		switch a.NotificationType {
		case "permission_prompt":
			ev = "Notification:permission"
		case "idle_prompt":
			ev = "Notification:idle"
		}
	}
	switch ev {
	case "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact":
		return automation.StatusBusy, false, true
	case "Stop", "Notification:idle":
		return automation.StatusIdle, false, true
	case "Notification:permission":
		return automation.StatusWaiting, false, true
	case "SessionStart":
		return automation.StatusStarting, true, true
	}
	return 0, false, false
}

func (e *Engine) opHook(_ context.Context, req Request) (any, error) {
	var args HookArgs
	if err := decodeArgs(req, &args); err != nil {
		return nil, err
	}
	if args.Event == "" {
		args.Event = req.Event
	}
	a, ok := e.Agent(req.Agent)
	if !ok {
		return nil, fmt.Errorf("unknown agent %q", req.Agent)
	}
	if a.Term == nil {
		return nil, fmt.Errorf("agent %q is not running", req.Agent)
	}
	st, none, known := hookStatus(args)
	e.log.Debug("hook", "agent", req.Agent, "event", args.Event, "type", args.NotificationType, "known", known)
	if !known {
		return nil, nil
	}
	h := e.hooks()
	h.mu.Lock()
	hs := &HookState{Event: args.Event, At: time.Now()}
	if !none {
		hs.Status = st.String()
	}
	h.state[req.Agent] = hs
	schedule := !none && !h.checks[req.Agent]
	if schedule {
		h.checks[req.Agent] = true
	}
	h.mu.Unlock()
	if none {
		a.Term.SetHookStatus(automation.StatusStarting)
	} else {
		a.Term.SetHookStatus(st)
	}
	if schedule {
		time.AfterFunc(hookCheckEvery, func() { e.checkHook(req.Agent, a.Term, a.Profile.Waiting, time.Time{}) })
	}
	return nil, nil
}

// checkHook drops a busy or waiting hook report the title (and, for waiting,
// the screen) has contradicted long enough, and reschedules itself while a
// report is held. since is when the contradiction was first seen.
func (e *Engine) checkHook(name string, t *pool.Terminal, waiting []string, since time.Time) {
	h := e.hooks()
	select {
	case <-t.Done():
		h.mu.Lock()
		delete(h.checks, name)
		h.mu.Unlock()
		return
	default:
	}
	a, ok := e.Agent(name)
	if !ok || a.Term != t {
		h.mu.Lock()
		delete(h.checks, name)
		h.mu.Unlock()
		return
	}
	var snap pool.Snapshot
	t.Snapshot(&snap)
	title := titleSays(snap.Title, a.Profile.TitleIdle, a.Profile.TitleBusy, a.Profile.TitleBraille)
	screen := snap.Text()
	now := time.Now()
	h.mu.Lock()
	hs := h.state[name]
	if hs == nil || hs.Dropped != "" || hs.Status == "" {
		delete(h.checks, name)
		h.mu.Unlock()
		return
	}
	limit := hookStaleAfter
	var contradicted bool
	switch hs.Status {
	case "busy":
		contradicted = title == automation.StatusIdle
	case "waiting":
		contradicted = title == automation.StatusIdle && !containsAny(screen, waiting)
		limit = hookWaitingStaleAfter
	case "idle":
		// A turn no hook reports (Claude's /compact runs no
		// UserPromptSubmit): the spinner title says busy.
		contradicted = title == automation.StatusBusy
	}
	switch {
	case !contradicted:
		since = time.Time{}
	case since.IsZero() || since.Before(hs.At):
		since = now
	}
	drop := contradicted && now.Sub(since) >= limit
	if drop {
		hs.Dropped = "title says " + title.String()
		delete(h.checks, name)
	}
	h.mu.Unlock()
	if drop {
		e.log.Info("hook report dropped", "agent", name, "event", hs.Event, "status", hs.Status, "why", "title says "+title.String())
		t.SetHookStatus(automation.StatusStarting)
		return
	}
	time.AfterFunc(hookCheckEvery, func() { e.checkHook(name, t, waiting, since) })
}

func containsAny(s string, pats []string) bool {
	for _, p := range pats {
		if p != "" && strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// titleSays applies a profile's title rules to a title; StatusStarting means
// the title decides nothing.
func titleSays(title, idle, busy string, braille bool) automation.Status {
	rules := automation.StatusRules{TitleIdle: idle, TitleBusy: busy, TitleBraille: braille, Quiet: time.Nanosecond}
	s, sig := automation.DetectStatus(automation.Signals{Ready: true, Title: title}, rules, time.Now())
	if sig != "title" {
		return automation.StatusStarting
	}
	return s
}

// Explanation is `office status --explain` for one agent: its status, the
// signal that decided it, and every signal office reads, in the order they
// count (automation.DetectStatus).
type Explanation struct {
	AgentStatus
	// Ready: the profile's ready markers were seen (or the boot grace passed).
	Ready bool `json:"ready"`
	// Steps are the signals, strongest first; the first with Decides set
	// decided the raw status (the debounced status may lag it by ~300 ms).
	Steps []ExplainStep `json:"steps"`
	// Prompt is the prompt row as read (PromptOK false: not found).
	Prompt   string `json:"prompt"`
	PromptOK bool   `json:"prompt_ok"`
	// Block is the terminal's own gate ("picker open", "your draft", ...).
	Block string `json:"block,omitempty"`
}

// ExplainStep is one signal and what it says.
type ExplainStep struct {
	Signal  string `json:"signal"`
	Says    string `json:"says"`   // "busy", "idle", "waiting", or "" (nothing)
	Detail  string `json:"detail"` // the evidence
	Decides bool   `json:"decides,omitempty"`
}

func (e *Engine) opExplain(_ context.Context, req Request) (any, error) {
	var out []Explanation
	for _, s := range e.Status() {
		if req.Agent != "" && s.Name != req.Agent {
			continue
		}
		out = append(out, e.explain(s))
	}
	if req.Agent != "" && len(out) == 0 {
		return nil, fmt.Errorf("unknown agent %q", req.Agent)
	}
	return out, nil
}

// Explain returns the explanation of every agent's status, in roster order.
func (e *Engine) Explain() []Explanation {
	var out []Explanation
	for _, s := range e.Status() {
		out = append(out, e.explain(s))
	}
	return out
}

func (e *Engine) explain(s AgentStatus) Explanation {
	x := Explanation{AgentStatus: s}
	a, ok := e.Agent(s.Name)
	if !ok || a.Term == nil {
		return x
	}
	t := a.Term
	now := time.Now()
	x.Ready = t.Ready(now)
	x.Prompt, x.PromptOK = t.Prompt()
	x.Block = t.Block(now).String()
	var snap pool.Snapshot
	t.Snapshot(&snap)
	screen := snap.Text()
	p := a.Profile
	inFrame := snap.Modes.SyncOutput
	add := func(sig, says, detail string) {
		x.Steps = append(x.Steps, ExplainStep{Signal: sig, Says: says, Detail: detail})
	}
	if exited, code := t.Exited(); exited {
		add("exited", "exited", fmt.Sprintf("exit code %d", code))
	}
	if !x.Ready {
		add("starting", "starting", fmt.Sprintf("ready markers %q not all on screen yet", p.ReadyMarkers))
	}
	switch pat, found := firstPattern(screen, p.Waiting); {
	case inFrame:
		add("screen waiting", "", "inside a synchronized-output frame: not read")
	case found:
		add("screen waiting", "waiting", fmt.Sprintf("%q on screen", pat))
	default:
		add("screen waiting", "", "no waiting pattern on screen")
	}
	h := e.hooks()
	h.mu.Lock()
	hs := h.state[s.Name]
	var hcopy HookState
	if hs != nil {
		hcopy = *hs
	}
	h.mu.Unlock()
	switch {
	case p.Hooks == "":
		add("hook", "", "the profile has no hooks")
	case hs == nil:
		add("hook", "", "no hook event yet")
	case hcopy.Dropped != "":
		add("hook", "", fmt.Sprintf("%s %v ago said %s; dropped: %s", hcopy.Event, now.Sub(hcopy.At).Round(time.Millisecond), hcopy.Status, hcopy.Dropped))
	case hcopy.Status == "":
		add("hook", "", fmt.Sprintf("%s %v ago (no status)", hcopy.Event, now.Sub(hcopy.At).Round(time.Millisecond)))
	default:
		add("hook", hcopy.Status, fmt.Sprintf("%s %v ago", hcopy.Event, now.Sub(hcopy.At).Round(time.Millisecond)))
	}
	if st, ok := automation.OSCStatus(snap.Modes.OSCState); ok {
		add("osc-state", st.String(), "OSC 7501 state="+snap.Modes.OSCState)
	} else {
		add("osc-state", "", fmt.Sprintf("no OSC state (%q)", snap.Modes.OSCState))
	}
	ts := titleSays(snap.Title, p.TitleIdle, p.TitleBusy, p.TitleBraille)
	if ts == automation.StatusStarting {
		add("title", "", fmt.Sprintf("title %q decides nothing", snap.Title))
	} else {
		add("title", ts.String(), fmt.Sprintf("title %q", snap.Title))
	}
	if inFrame {
		add("screen", "", "inside a synchronized-output frame: not read")
	} else if pat, ok := firstPattern(screen, p.Busy); ok {
		add("screen", "busy", fmt.Sprintf("%q on screen", pat))
	} else if pat, ok := firstPattern(screen, p.Idle); ok {
		add("screen", "idle", fmt.Sprintf("%q on screen", pat))
	} else {
		add("screen", "", "no busy or idle pattern on screen")
	}
	quiet := behaviorFor(a.Config, p, e.settingsFor(a.Config)).Status.Quiet
	if lo := t.LastOutput(); lo.IsZero() {
		add("quiescence", "idle", "no output yet")
	} else if ago := now.Sub(lo); ago < quiet {
		add("output", "busy", fmt.Sprintf("last output %v ago (< %v)", ago.Round(time.Millisecond), quiet))
	} else {
		add("quiescence", "idle", fmt.Sprintf("last output %v ago (>= %v)", ago.Round(time.Millisecond), quiet))
	}
	// Mark the step that decided: the one whose name the signal starts with
	// (the pool's signal may also be "turn started" or "foreground: ...").
	for i := range x.Steps {
		st := x.Steps[i]
		if st.Says == "" {
			continue
		}
		if strings.HasPrefix(s.Signal, st.Signal) || (st.Signal == "screen waiting" && strings.HasPrefix(s.Signal, "screen: ") && st.Says == "waiting") ||
			(st.Signal == "screen" && strings.HasPrefix(s.Signal, "screen: ")) {
			x.Steps[i].Decides = true
			break
		}
	}
	return x
}

func firstPattern(screen string, pats []string) (string, bool) {
	for _, p := range pats {
		if p != "" && strings.Contains(screen, p) {
			return p, true
		}
	}
	return "", false
}

// DecodeHookPayload reads the fields office uses from a hook's JSON payload
// (stdin of `office hook`).
func DecodeHookPayload(event string, payload []byte) HookArgs {
	a := HookArgs{Event: event}
	var m struct {
		HookEventName    string `json:"hook_event_name"`
		NotificationType string `json:"notification_type"`
		Message          string `json:"message"`
	}
	if json.Unmarshal(payload, &m) == nil {
		if a.Event == "" {
			a.Event = m.HookEventName
		}
		a.NotificationType = m.NotificationType
		a.Message = m.Message
	}
	return a
}
