package engine

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"office/automation"
	"office/configs"
	"office/pool"
)

// consumers reads, for each row of the settings table, the field its
// consumer is seeded with, for the office c and its first agent a.
var consumers = map[string]func(c *configs.Config, a configs.Agent) []int64{
	"debounce":        func(c *configs.Config, a configs.Agent) []int64 { return d(drainTunables(c.Settings).Debounce) },
	"tick":            func(c *configs.Config, a configs.Agent) []int64 { return d(drainTunables(c.Settings).Tick) },
	"enter_gap":       func(c *configs.Config, a configs.Agent) []int64 { return d(drainTunables(c.Settings).EnterDelay) },
	"submit_check":    func(c *configs.Config, a configs.Agent) []int64 { return d(drainTunables(c.Settings).VerifyFor) },
	"enter_retry":     func(c *configs.Config, a configs.Agent) []int64 { return d(drainTunables(c.Settings).RetryEnterAfter) },
	"max_attempts":    func(c *configs.Config, a configs.Agent) []int64 { return n(drainTunables(c.Settings).MaxAttempts) },
	"paste_threshold": func(c *configs.Config, a configs.Agent) []int64 { return n(drainTunables(c.Settings).PasteThreshold) },
	"write_timeout":   func(c *configs.Config, a configs.Agent) []int64 { return d(drainTunables(c.Settings).WriteTimeout) },
	"evidence_wait":   func(c *configs.Config, a configs.Agent) []int64 { return d(drainTunables(c.Settings).EvidenceFor) },
	"echo_wait":       func(c *configs.Config, a configs.Agent) []int64 { return d(drainTunables(c.Settings).EchoWait) },
	"channel_blocks":  func(c *configs.Config, a configs.Agent) []int64 { return n(drainTunables(c.Settings).ChannelBlocks) },
	"cooldown": func(c *configs.Config, a configs.Agent) []int64 {
		p, _ := c.ProfileOf(a)
		return append(d(drainTunables(c.Settings).Cooldown), d(submitFor(p, c.SettingsFor(a)).Cooldown)...)
	},
	"quiet":              func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).Status.Quiet) },
	"boot_grace":         func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).BootGrace) },
	"stale":              func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).Timing.Stale) },
	"echo_grace":         func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).Timing.EchoGrace) },
	"picker_settle":      func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).Timing.PickerSettle) },
	"recover_settle":     func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).RecoverSettle) },
	"status_debounce":    func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).Timing.StatusDebounce) },
	"ready_quiet":        func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).Timing.ReadyQuiet) },
	"hangup_grace":       func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).HangupGrace) },
	"hook_stale":         func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).Timing.HookStale) },
	"hook_waiting_stale": func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).Timing.HookWaitingStale) },
	"turn_grace":         func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).Timing.TurnGrace) },
	"shell_poll":         func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).ShellPoll) },
	"shell_prompt_quiet": func(c *configs.Config, a configs.Agent) []int64 { return d(behavior(c, a).ShellPromptQuiet) },
	"batch_items":        func(c *configs.Config, a configs.Agent) []int64 { return n(inboxOptions(c.Settings).BatchItems) },
	"batch_bytes":        func(c *configs.Config, a configs.Agent) []int64 { return n(inboxOptions(c.Settings).BatchBytes) },
	"mail_title_bytes":   func(c *configs.Config, a configs.Agent) []int64 { return n(inboxOptions(c.Settings).MailTitleBytes) },
	"mail_timeout":       func(c *configs.Config, a configs.Agent) []int64 { return d(inboxOptions(c.Settings).MailDeadline) },
	"stall": func(c *configs.Config, a configs.Agent) []int64 {
		return append(d(inboxOptions(c.Settings).Stall), d(c.SettingsFor(a).Stall)...)
	},
	"retention": func(c *configs.Config, a configs.Agent) []int64 { return d(inboxOptions(c.Settings).Retention) },
	"journal_continuations": func(c *configs.Config, a configs.Agent) []int64 {
		return n(inboxOptions(c.Settings).JournalContinuations)
	},
	"state_retries": func(c *configs.Config, a configs.Agent) []int64 { return n(inboxOptions(c.Settings).StateRetries) },
	// The engine's own timers: the inbox goroutine's, as newInboxLayer seeds
	// them, and the restart back-off as onExit computes it (running on the
	// engine's clock: timers_file_internal_test.go).
	"mail_sweep":      func(c *configs.Config, a configs.Agent) []int64 { return d(inboxLayerOf(c).timers.tickEvery) },
	"stall_sample":    func(c *configs.Config, a configs.Agent) []int64 { return d(inboxLayerOf(c).sampleEvery) },
	"retention_sweep": func(c *configs.Config, a configs.Agent) []int64 { return d(inboxLayerOf(c).timers.purgeEvery) },
	"restart_backoff": func(c *configs.Config, a configs.Agent) []int64 {
		var st restartState
		return d(st.next(0, c.Settings))
	},
	"restart_backoff_max": func(c *configs.Config, a configs.Agent) []int64 {
		st := restartState{delay: c.Settings.RestartBackoffMax}
		return d(st.next(0, c.Settings)) // a quick failure at the maximum stays there
	},
	"restart_reset": func(c *configs.Config, a configs.Agent) []int64 {
		// The shortest life that resets a doubled wait.
		lived := sort.Search(int(24*time.Hour/time.Second)+1, func(sec int) bool {
			st := restartState{delay: 2 * c.Settings.RestartBackoff}
			return st.next(time.Duration(sec)*time.Second, c.Settings) == c.Settings.RestartBackoff
		})
		return d(time.Duration(lived) * time.Second)
	},
	"history": func(c *configs.Config, a configs.Agent) []int64 { return n(a.History) },
	"limit_retry": func(c *configs.Config, a configs.Agent) []int64 {
		p, _ := c.ProfileOf(a)
		return d(limitBehavior(behavior(c, a), p, c.SettingsFor(a), nil).Limit.Retry)
	},
	"limit_margin": func(c *configs.Config, a configs.Agent) []int64 {
		p, _ := c.ProfileOf(a)
		return d(limitBehavior(behavior(c, a), p, c.SettingsFor(a), nil).Limit.Margin)
	},
	"limit_stagger": func(c *configs.Config, a configs.Agent) []int64 {
		return d((&Engine{opts: Options{Config: c}}).settings().LimitStagger)
	},
	"notify_gap": func(c *configs.Config, a configs.Agent) []int64 {
		return d(newAlertRules(c.Settings, nil).gap)
	},
}

// behavior is the pool.Behavior the engine starts a's terminal with (pool
// hands its Timing to the line model, readiness, the debouncer, the judge's
// hook step and the turn machine, and its shell windows to the foreground
// poll and prompt learning: pool's TestBehaviorTimingReachesTheTerminal,
// TestBehaviorHookAndTurnWindowsReachTheTerminal and
// TestBehaviorShellWindowsReachTheTerminal).
func behavior(c *configs.Config, a configs.Agent) pool.Behavior {
	p, _ := c.ProfileOf(a) // claude: the profile sets no quiet of its own
	return behaviorFor(p, c.SettingsFor(a))
}

// inboxLayerOf is the inbox goroutine's state as the engine seeds it.
func inboxLayerOf(c *configs.Config) *inboxLayer {
	return newInboxLayer(nil, nil, c.Settings)
}

func d(v time.Duration) []int64 { return []int64{int64(v)} }
func n(v int) []int64           { return []int64{int64(v)} }

// TestSettingsReachEveryConsumer checks the settings table against every
// consumer: with no setting in the file each consumer's field gets the
// table's default; with a row set at the top level (and, for a per-agent
// row, in the agent's table) to another value in its range, the field gets
// that value. A row with no consumer here fails, but for the web server's
// (web_*): package web is a client of this server and imports engine, so
// web's TestSettingsReachWeb checks those (and that each is enforced).
func TestSettingsReachEveryConsumer(t *testing.T) {
	const agent = "[[agent]]\nname = \"a\"\nprofile = \"claude\"\n"
	parse := func(t *testing.T, src string) *configs.Config {
		t.Helper()
		c, err := configs.Parse("office.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	literal := func(row configs.Setting, v int64) string {
		if row.Kind == configs.KindDuration {
			return fmt.Sprintf("%q", row.Format(v))
		}
		return row.Format(v)
	}
	check := func(t *testing.T, row configs.Setting, c *configs.Config, want int64) {
		t.Helper()
		for i, got := range consumers[row.Key](c, c.Agents[0]) {
			if got != want {
				t.Errorf("%s: consumer %d has %s, want %s", row.Key, i, row.Format(got), row.Format(want))
			}
		}
	}
	def := parse(t, agent)
	var rows []configs.Setting
	for _, row := range configs.Table() {
		if !strings.HasPrefix(row.Key, "web_") {
			rows = append(rows, row)
		}
	}
	if len(consumers) != len(rows) {
		t.Errorf("%d consumers for %d rows", len(consumers), len(rows))
	}
	for _, row := range rows {
		t.Run(row.Key, func(t *testing.T) {
			if consumers[row.Key] == nil {
				t.Fatalf("no consumer known for %s", row.Key)
			}
			check(t, row, def, row.Default)
			top := row.Max
			if top == row.Default {
				top = row.Min
			}
			extra := ""
			if row.Key == "restart_backoff" {
				extra = "restart_backoff_max = \"1h\"\n"
			}
			check(t, row, parse(t, row.Key+" = "+literal(row, top)+"\n"+extra+agent), top)
			if row.PerAgent {
				own := (row.Min + row.Max) / 2
				if own == row.Default || own == top {
					own++
				}
				c := parse(t, row.Key+" = "+literal(row, top)+"\n"+agent+row.Key+" = "+literal(row, own)+"\n")
				got := consumers[row.Key](c, c.Agents[0])
				if last := got[len(got)-1]; last != own {
					t.Errorf("%s: the agent's consumer has %s, want its own %s", row.Key, row.Format(last), row.Format(own))
				}
				if row.Get(c.Settings) != top {
					t.Errorf("%s: the agent's value leaked to the office", row.Key)
				}
			}
		})
	}
}

// TestQuietPrecedence: the terminal's quiet window is an agent's own quiet,
// else a profile's the office file writes, else the office's, else a
// built-in profile's (custom: 12s, which a top-level quiet replaces).
func TestQuietPrecedence(t *testing.T) {
	for _, tc := range []struct {
		top  string
		want []time.Duration // office, prof, own, custom
	}{
		{"quiet = \"20s\"\n", []time.Duration{20 * time.Second, 40 * time.Second, 5 * time.Second, 20 * time.Second}},
		{"", []time.Duration{automation.QuietAfter, 40 * time.Second, 5 * time.Second, 12 * time.Second}},
	} {
		src := tc.top +
			"[profile.slow]\ncommand = [\"x\"]\nquiet = \"40s\"\n" +
			"[[agent]]\nname = \"office\"\nprofile = \"claude\"\n" +
			"[[agent]]\nname = \"prof\"\nprofile = \"slow\"\n" +
			"[[agent]]\nname = \"own\"\nprofile = \"slow\"\nquiet = \"5s\"\n" +
			"[[agent]]\nname = \"custom\"\ncommand = [\"x\"]\n"
		c, err := configs.Parse("office.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range tc.want {
			a := c.Agents[i]
			if got := behavior(c, a).Status.Quiet; got != want {
				t.Errorf("%q: %s: quiet %v, want %v", tc.top, a.Name, got, want)
			}
		}
	}
}

// TestHistoryRangeIsThePools: the history setting's range ends where a
// pool.History stops growing.
func TestHistoryRangeIsThePools(t *testing.T) {
	row, _ := configs.Lookup("history")
	if row.Max != pool.MaxHistory || row.Min < 1 {
		t.Errorf("history range %d..%d, pool.MaxHistory %d", row.Min, row.Max, pool.MaxHistory)
	}
}
