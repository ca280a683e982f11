package engine

// limits_account.go says which account an agent's usage limit belongs to
// (AccountKey: one account, one hold, limits.go) and gives a terminal the
// rules it reads limit banners with.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"office/automation"
	"office/configs"
	"office/pool"
)

// AccountKey names the account an agent of profile p with environment env
// uses: the profile and a digest of its pass_env variables and HOME (never
// the values themselves: they may be API keys).
func AccountKey(p configs.Profile, env []string) string {
	vals := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vals[k] = v
		}
	}
	names := append(slices.Clone(p.PassEnv), accountVars...)
	slices.Sort(names)
	h := sha256.New()
	for _, n := range slices.Compact(names) {
		fmt.Fprintf(h, "%s=%s\x00", n, vals[n])
	}
	return p.Name + ":" + hex.EncodeToString(h.Sum(nil))[:8]
}

// limitBehavior adds the usage-limit rules of p and s to b: the profile's
// texts, limit_margin, limit_retry, and the zone of the agent's TZ (else
// the office's).
func limitBehavior(b pool.Behavior, p configs.Profile, s configs.Settings, env []string) pool.Behavior {
	b.Status.Limits = automation.LimitRules{Banners: p.Limits.Banners, Resets: p.Limits.Resets, Dialogs: p.Limits.Dialogs,
		Errors: p.Limits.Errors, Switches: p.Limits.Switches}
	b.Limit = pool.LimitBehavior{Margin: s.LimitMargin, Retry: s.LimitRetry, Zone: envZone(env)}
	return b
}

// envZone is the zone an environment's TZ names, else time.Local.
func envZone(env []string) *time.Location {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "TZ="); ok {
			if l, err := time.LoadLocation(strings.TrimPrefix(v, ":")); err == nil {
				return l
			}
			break
		}
	}
	return time.Local
}

// LimitBehavior is Behavior(p) with p's usage-limit rules at the default
// settings, in the zone of env's TZ (else the office's): what a terminal of
// p reads limits with (the recorded streams' replay, test/realcli).
func LimitBehavior(p configs.Profile, env []string) pool.Behavior {
	s := configs.Defaults()
	return limitBehavior(Behavior(p), p, s, env)
}

// accountVars are variables that tell accounts of one profile apart besides
// the profile's pass_env (API keys, base URLs, config dirs): the config home
// defaults to one under HOME.
var accountVars = []string{"HOME"}
