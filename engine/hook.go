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
//	Stop, Notification idle_prompt,
//	StopFailure                                idle (the turn failed:
//	                                           limits_hook.go)
//	Notification permission_prompt             waiting
//	SessionStart                               no hook status (the screen decides)
//
// A Stop may also hand the agent's queue head over (handover.go): the
// answer carries the message, `office hook` prints Claude's block answer,
// and the report says busy (the turn goes on with it) instead of idle.
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
	"office/configs"
	"office/drain"
	"office/wire"
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
		Text: fmt.Sprintf("%s did not show its ready signal within the boot grace; judged by its other signals now, and typed into only while its prompt shows (office status --explain %s)", name, name)})
}

// HookArgs is wire.HookArgs (it crosses the client boundary, so wire declares it).
type HookArgs = wire.HookArgs

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
	register(e, wire.OpHook, e.opHook)
	register(e, wire.OpExplain, e.opExplain)
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
	case "Stop", "Notification:idle", HookStopFailure:
		return automation.StatusIdle, false, true
	case "Notification:permission":
		return automation.StatusWaiting, false, true
	case "SessionStart":
		return automation.StatusStarting, true, true
	}
	return 0, false, false
}

func (e *Engine) opHook(ctx context.Context, req Request, args HookArgs) (wire.HookResult, error) {
	a, ok := e.Agent(req.Agent)
	if !ok {
		return wire.HookResult{}, fmt.Errorf("unknown agent %q", req.Agent)
	}
	if a.Term == nil {
		return wire.HookResult{}, fmt.Errorf("agent %q is not running", req.Agent)
	}
	st, none, known := hookStatus(args)
	e.log.Debug("hook", "agent", req.Agent, "event", args.Event, "type", args.NotificationType, "known", known)
	e.followSession(a, args.Session)
	if !known {
		return wire.HookResult{}, nil
	}
	// A Stop may hand the queue's head over (handover.go), decided before
	// the report: a Stop answered with a message ends no turn, and the
	// judge reads it busy (automation.HookReport.Handed).
	res := e.handover(ctx, a, args)
	if args.Event == HookStopFailure {
		// The turn failed: its failure (and a rate limit's hold) is
		// known before the idle report can end it.
		e.stopFailure(a, args)
	}
	r := automation.HookReport{Seq: e.hooks().next(), Event: args.Event, Status: automation.StatusStarting, At: time.Now(),
		Handed: res.Reason != ""}
	if !none && (a.Profile.Hooks == configs.HooksClaude || r.Handed) {
		r.Status = st
	}
	// Of another CLI's hooks office installs only the Stop (Codex's
	// channel): with no prompt hook to say busy again, its idle would
	// outlive the next turn, so it says nothing (the screen and the CLI's
	// own state decide), except busy while a message it handed over runs.
	a.Term.SetHook(r)
	switch {
	case args.Event == "UserPromptSubmit":
		// The CLI took a prompt: a turn starts (or the open one is
		// joined) with the hook as its cause, whoever pressed the Enter.
		a.Term.StartTurn(automation.HookPrompt())
	case res.MsgID != 0:
		// The message handed over goes on in the open turn: it is one of
		// its causes, as a typed delivery's Enter is (an inbox delivery's
		// turn is then known to be its: inbox.TurnLedger).
		a.Term.StartTurn(automation.DeliveryEnter(res.MsgID))
	}
	return res, nil
}

// Explanation is wire.Explanation (it crosses the client boundary, so wire declares it).
type Explanation = wire.Explanation

// ExplainStep is wire.ExplainStep (it crosses the client boundary, so wire declares it).
type ExplainStep = wire.ExplainStep

func (e *Engine) opExplain(_ context.Context, req Request, _ wire.None) ([]Explanation, error) {
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
	x.Delivery = wire.ChannelTyped
	if ch := channelOf(a); ch != "" {
		x.Delivery = ch
	}
	if e.drain != nil {
		if id, ch, ok := e.drain.LastChannel(s.Name); ok {
			x.LastMsgID, x.LastChannel = id, wire.ChannelTyped
			if ch != "" {
				x.LastChannel = ch
			}
		}
	}
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
// (stdin of `office hook`). ok is false, and the args say Undecoded, when
// the payload is not one JSON object: then only Event is known.
func DecodeHookPayload(event string, payload []byte) (_ HookArgs, ok bool) {
	a := HookArgs{Event: event, Undecoded: true}
	var m struct {
		HookEventName    string `json:"hook_event_name"`
		NotificationType string `json:"notification_type"`
		Message          string `json:"message"`
		SessionID        string `json:"session_id"`
		Error            string `json:"error"`
		ErrorDetails     string `json:"error_details"`
		LastMessage      string `json:"last_assistant_message"`
		PromptID         string `json:"prompt_id"`
		StopHookActive   bool   `json:"stop_hook_active"`
		TurnID           string `json:"turn_id"`
	}
	if json.Unmarshal(payload, &m) == nil {
		a.Undecoded = false
		if a.Event == "" {
			a.Event = m.HookEventName
		}
		a.NotificationType = m.NotificationType
		a.Message = m.Message
		a.Session = m.SessionID
		a.Error, a.ErrorDetails, a.LastMessage = m.Error, m.ErrorDetails, m.LastMessage
		a.PromptID, a.StopHookActive = m.PromptID, m.StopHookActive
		if a.PromptID == "" {
			a.PromptID = m.TurnID // Codex names the turn so
		}
	}
	return a, !a.Undecoded
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
