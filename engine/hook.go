package engine

// hook.go is the CLI hooks' side of status (docs/design.md §4: the strongest
// signal after a dialog on screen) and `office status --explain`.
//
// Claude Code runs `office hook EVENT` from the per-agent settings file that
// launch.go writes; the command reaches the running engine through the socket
// call "hook", which maps the event to a status and hands it to the agent's
// terminal as the judge's hook input (pool.Terminal.SetHook):
//
//	UserPromptSubmit, PreToolUse, PostToolUse,
//	PreCompact                                 busy
//	Stop, Notification idle_prompt             idle
//	Notification permission_prompt             waiting
//	SessionStart                               no hook status (the screen decides)
//
// Each report carries a sequence number taken as it arrives, so of two
// reports landing at once the newer always wins. When a report stops
// counting (the title contradicts it long enough: Claude runs no hook when
// the person interrupts a turn) is the judge's rule (automation.Judge), on
// the report's age; nothing here drops it. UserPromptSubmit also starts a
// turn (or joins the open one) with the hook as its cause
// (automation.HookPrompt), so a prompt office saw no Enter for still
// opens a turn.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"office/automation"
	"office/drain"
)

// NoticeBootOverdue is the kind of the notice raised when an agent's boot
// grace ends before its profile's ready signal was seen.
const NoticeBootOverdue = "boot_overdue"

// bootOverdue tells the person that an agent never showed its profile's
// ready signal within the boot grace: it is judged by its other signals from
// now on, and its screen may be one office does not recognise (a new dialog).
func (e *Engine) bootOverdue(name string) {
	e.log.Warn("agent not ready within the boot grace", "agent", name)
	e.notice(drain.Notice{Agent: name, Kind: NoticeBootOverdue,
		Text: fmt.Sprintf("%s did not show its ready signal within the boot grace; judged by its other signals now (office status --explain %s)", name, name)})
}

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

// hookLayer numbers the hook reports of one engine.
type hookLayer struct {
	mu  sync.Mutex
	seq uint64
}

// hooks returns the engine's hook layer, made on first use.
func (e *Engine) hooks() *hookLayer {
	e.hookOnce.Do(func() { e.hookState = &hookLayer{} })
	return e.hookState
}

// next returns the next report's sequence number (1, 2, ...).
func (h *hookLayer) next() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	return h.seq
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
	r := automation.HookReport{Seq: e.hooks().next(), Event: args.Event, Status: automation.StatusStarting, At: time.Now()}
	if !none {
		r.Status = st
	}
	a.Term.SetHook(r)
	if args.Event == "UserPromptSubmit" {
		// The CLI took a prompt: a turn starts (or the open one is
		// joined) with the hook as its cause, whoever pressed the Enter.
		a.Term.StartTurn(automation.HookPrompt())
	}
	return nil, nil
}

// Explanation is `office status --explain` for one agent: its status and
// the status judge's own steps (automation.Judge), in the order they count.
type Explanation struct {
	AgentStatus
	// Judged is the judge's last answer and JudgedSignal its deciding
	// signal; Status follows Judged (a change to idle after 300 ms).
	Judged       string `json:"judged,omitempty"`
	JudgedSignal string `json:"judged_signal,omitempty"`
	// Ready: delivery may begin (the profile's readiness, or the boot grace).
	Ready bool `json:"ready"`
	// BootOverdue: the boot grace ended before the profile's readiness was
	// seen; the other signals decide.
	BootOverdue bool `json:"boot_overdue,omitempty"`
	// Steps are the judge's steps; the one with Decides set decided Judged.
	Steps []ExplainStep `json:"steps"`
	// Prompt is the prompt row as read (PromptOK false: not found).
	Prompt   string `json:"prompt"`
	PromptOK bool   `json:"prompt_ok"`
	// Block is the terminal's own gate ("picker open", "your draft", ...).
	Block string `json:"block,omitempty"`
}

// ExplainStep is one step of the judge and what it found.
type ExplainStep struct {
	Signal  string `json:"signal"`
	Says    string `json:"says"`   // the status it says, "" for nothing
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
	j := t.Judgment()
	x.Judged, x.JudgedSignal = j.Status.String(), j.Signal()
	x.Ready, x.BootOverdue = j.BootOpen, j.BootOverdue
	x.Steps = ExplainSteps(j)
	x.Prompt, x.PromptOK = t.Prompt()
	x.Block = t.Block(time.Now()).String()
	return x
}

// ExplainSteps renders a judgment's steps for `office status --explain`.
func ExplainSteps(j automation.Judgment) []ExplainStep {
	out := make([]ExplainStep, 0, len(j.Steps))
	for _, st := range j.Steps {
		x := ExplainStep{Signal: st.Signal.String(), Detail: st.Describe(), Decides: st.Decides}
		if st.Decisive {
			x.Says = st.Says.String()
		}
		out = append(out, x)
	}
	return out
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

// containsAny reports whether s contains one of the non-blank patterns.
func containsAny(s string, pats []string) bool {
	for _, p := range pats {
		if p != "" && strings.Contains(s, p) {
			return true
		}
	}
	return false
}
