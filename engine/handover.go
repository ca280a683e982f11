package engine

// handover.go is the engine's side of the channel (docs/channels.md): the
// Stop hook's answer that hands the agent's queue head over (the drain
// claims it: drain.Drainer.Handover), whose words may take the channel,
// and the evidence of a hand-over in the CLI's own records.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"office/configs"
	"office/drain"
	"office/inbox"
	"office/queue"
	"office/records"
	"office/wire"
)

// channelSources are the queue sources whose messages may take the channel
// besides an inbox delivery (channelTakes): office's own notices to an
// agent, words no person wrote. The list allows, never denies: every other
// source is typed (design point 7 of docs/channels.md), since a hook's text
// reaches the model as a hook's output, which Claude Code tells it carries
// no message from the user. So are `office send` ("send"), a client's
// enqueue ("client", the composer), the web page's ("web"), a send from
// another host of the floor ("host H", always the person's), and a source
// added later until it is named here. The opening brief ("brief") is typed
// too: it carries the person's task and role from the office file. A
// scheduled compaction ("schedule") is a slash command, typed anyway.
var channelSources = []string{inbox.SourceJournal}

// reservedSources are the sources office enqueues under itself, which a
// client's enqueue may not claim: channelTakes trusts them.
var reservedSources = []string{inbox.SourceInbox, inbox.SourceJournal}

// channelOf returns the channel an agent's messages may take ("" for none:
// typed): its profile's, unless its delivery (or its profile's) is "type".
func channelOf(a *Agent) string {
	if configs.UsesChannel(a.Profile, a.Config.Delivery) {
		return wire.ChannelStopHook
	}
	return ""
}

// handover answers a Stop hook call: the queue's head handed over, or
// nothing (drain.Drainer.Handover decides; it never waits).
func (e *Engine) handover(ctx context.Context, a *Agent, args HookArgs) wire.HookResult {
	ch := channelOf(a)
	if ch == "" || args.Event != "Stop" || e.drain == nil {
		return wire.HookResult{}
	}
	e.drain.StopHookRan(a.Config.Name, a.Term.Spawned())
	if args.Undecoded {
		// Its prompt_id and stop_hook_active are unknown: the turn's
		// blocks in a row could not be counted against channel_blocks.
		e.log.Warn("stop hook: its payload did not decode; nothing handed over", "agent", a.Config.Name)
		return wire.HookResult{}
	}
	start := time.Now()
	got := e.drain.Handover(ctx, a.Config.Name, drain.Turn{Channel: ch, PromptID: args.PromptID, Continued: args.StopHookActive})
	switch {
	case got.Text == "" && got.Err != nil:
		e.log.Warn("stop hook: nothing handed over: an error", "agent", a.Config.Name, "err", got.Err, "took", time.Since(start))
		return wire.HookResult{}
	case got.Text == "":
		e.log.Debug("stop hook: nothing handed over", "agent", a.Config.Name, "why", got.Why, "took", time.Since(start))
		return wire.HookResult{}
	}
	e.log.Info("stop hook: handed over", "agent", a.Config.Name, "msg", got.ID, "took", time.Since(start))
	return wire.HookResult{Reason: got.Text, Channel: ch, MsgID: got.ID}
}

// channelTakes is drain.Config.Channel: whether m's words may take a
// channel. Only what is allowed does: office's own notices
// (channelSources), and an inbox delivery whose items all come from agents
// or office itself, those leased to it (its batch, stamped by the attempt;
// or left leased by a typed attempt abandoned or failed) and those pending
// for the agent (its next batch may take them). Everything else is typed:
// the person's own words above all.
func (e *Engine) channelTakes(ctx context.Context, m queue.Message) (bool, error) {
	if m.Kind != queue.KindInbox {
		return slices.Contains(channelSources, m.Source), nil
	}
	if m.Source != inbox.SourceInbox || e.inbox == nil {
		return false, nil
	}
	items, err := e.inbox.svc.DeliveryItems(ctx, m.Agent, m.ID)
	if err != nil {
		return false, err
	}
	for _, it := range items {
		if it.Sender == inbox.Person {
			return false, nil
		}
	}
	return true, nil
}

// Handed looks for text among the messages the agent's CLI recorded as
// handed over by its turn-end hook since since (records.Handed): the CLI's
// own files, never the hook log (which records prompts).
func (v *evidence) Handed(_ context.Context, agent, text string, since time.Time) (string, bool, error) {
	a, ok := v.e.Agent(agent)
	if !ok || a.Profile.Records == "" {
		return "", false, nil
	}
	es, err := v.e.readRecords(a, readRecent)
	if err != nil {
		return "", false, err
	}
	if en, _, ok := records.Handed(a.Profile.Records, es, text, since, nil); ok {
		return en.Source, true, nil
	}
	return "", false, nil
}

// NoticeChannelSilent is the kind of the notice raised when a Codex agent
// that takes the channel ended a turn with no `office hook Stop` call.
const NoticeChannelSilent = "channel_silent"

// channelTurnEnded follows a turn's end for the channel: a Codex agent's
// turn that ended with no Stop hook call means its hook did not run (the
// person has not trusted it in /hooks, or skipped the review): the person
// is told once per process, and its messages are typed meanwhile (nothing
// is handed over without a hook call). Claude runs its hooks unreviewed
// (and none when the person interrupts a turn), so it is not judged here.
func (e *Engine) channelTurnEnded(name string) {
	a, ok := e.Agent(name)
	if !ok || a.Term == nil || channelOf(a) == "" || a.Profile.Hooks != configs.HooksCodex || e.drain == nil {
		return
	}
	if !e.drain.StopHookSilent(name, a.Term.Spawned()) {
		return
	}
	e.log.Warn("a turn ended with no Stop hook call: the hook did not run; typing", "agent", name)
	e.notice(drain.Notice{Agent: name, Kind: NoticeChannelSilent,
		Text: fmt.Sprintf("%s ended a turn without running office's Stop hook: Codex runs it only once you trust it (/hooks, \"Hooks need review\" at its start); until then its messages are typed", name)})
}
