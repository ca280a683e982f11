package engine

// settings.go seeds the engine's parts from the office's settings table
// (configs.Settings, filled from the office file): the drain's Config, the
// inbox's Options, each agent's screen and typing rules, and the engine's
// own timers. Every tunable reaches its consumer here, and only here.

import (
	"office/automation"
	"office/configs"
	"office/drain"
	"office/inbox"
	"office/pool"
)

// drainTunables returns the drain's Config with its tunables from s (the
// caller adds Store, Agents and the callbacks).
func drainTunables(s configs.Settings) drain.Config {
	return drain.Config{
		Debounce:        s.Debounce,
		Tick:            s.Tick,
		Cooldown:        s.Cooldown,
		VerifyFor:       s.SubmitCheck,
		RetryEnterAfter: s.EnterRetry,
		MaxAttempts:     s.MaxAttempts,
		PasteThreshold:  s.PasteThreshold,
		WriteTimeout:    s.WriteTimeout,
		EnterDelay:      s.EnterGap,
		EvidenceFor:     s.EvidenceWait,
		EchoWait:        s.EchoWait,
		ChannelBlocks:   s.ChannelBlocks,
	}
}

// inboxOptions returns the inbox's Options from s (the caller adds the
// Logger).
func inboxOptions(s configs.Settings) inbox.Options {
	return inbox.Options{
		MailDeadline:         s.MailTimeout,
		BatchItems:           s.BatchItems,
		BatchBytes:           s.BatchBytes,
		MailTitleBytes:       s.MailTitleBytes,
		Stall:                s.Stall,
		Retention:            s.Retention,
		JournalContinuations: s.JournalContinuations,
		StateRetries:         s.StateRetries,
	}
}

// behaviorFor is Behavior(p) for an agent of profile p running on s, its
// settings (configs.Config.SettingsFor): the quiet window (which
// configs.Config.AgentValue resolved: the agent's own, else a profile the
// office file writes, else the office's, else a built-in profile's), the
// boot grace, the recover settle, the hang-up grace, a shell's foreground
// poll and prompt quiet, and the line model's, readiness's, the debouncer's,
// the hook reports' and the turn's windows.
func behaviorFor(p configs.Profile, s configs.Settings) pool.Behavior {
	b := Behavior(p)
	b.Status.Quiet = s.Quiet
	b.BootGrace, b.RecoverSettle, b.HangupGrace = s.BootGrace, s.RecoverSettle, s.HangupGrace
	b.ShellPoll, b.ShellPromptQuiet = s.ShellPoll, s.ShellPromptQuiet
	b.Timing = timing(s)
	return b
}

// timing is automation's tunable windows from s.
func timing(s configs.Settings) automation.Timing {
	return automation.Timing{
		Stale:            s.Stale,
		EchoGrace:        s.EchoGrace,
		PickerSettle:     s.PickerSettle,
		ReadyQuiet:       s.ReadyQuiet,
		StatusDebounce:   s.StatusDebounce,
		HookStale:        s.HookStale,
		HookWaitingStale: s.HookWaitingStale,
		TurnGrace:        s.TurnGrace,
	}
}

// submitFor is the drain's typing rules for an agent of profile p running
// on settings s (its own cooldown included).
func submitFor(p configs.Profile, s configs.Settings) drain.SubmitProfile {
	sp := submitProfile(p)
	sp.Cooldown = s.Cooldown
	return sp
}

// settings returns the office's settings.
func (e *Engine) settings() configs.Settings { return e.opts.Config.Settings }

// settingsFor returns the settings a runs on: the office's with a's own
// keys.
func (e *Engine) settingsFor(a configs.Agent) configs.Settings {
	return e.opts.Config.SettingsFor(a)
}

// inboxOpts is inboxOptions of the office's settings with the engine's
// logger.
func (e *Engine) inboxOpts() inbox.Options {
	o := inboxOptions(e.settings())
	o.Logger = e.log
	return o
}
