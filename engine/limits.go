package engine

// limits.go is the account hold of usage limits (docs/limits.md): one
// account, one hold. A terminal that shows a new limit banner holds itself
// at once (pool, EventLimit); the engine then holds every agent of the same
// account (same profile, same config home and API key variables) until the
// same reset, each a limit_stagger later than the one before so they
// resume one by one, records limit_hit, and tells the person and the
// hitter's parent. The judge ends each agent's hold by itself at its time;
// when an agent's status leaves "usage limit" the engine records
// limit_reset, and tells them once per account. `office resume AGENT`
// releases the agent's account early (op "limit_release").

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // IANA zones in limit banners, on machines without a zone database

	"office/automation"
	"office/drain"
	"office/inbox"
	"office/pool"
	"office/queue"
	"office/records"
	"office/wire"
)

// The events of the usage-limit hold (`office events`).
const (
	// EventLimitHit: an agent's CLI said its account hit a usage limit.
	EventLimitHit = "limit_hit"
	// EventLimitReset: an agent's hold ended (at the reset, or released).
	EventLimitReset = "limit_reset"
)

// accountHold is one account's hold.
type accountHold struct {
	hold    automation.LimitHold // as the hitter's terminal decided it
	hitter  string
	members []string        // the agents held, in resume order
	resumed map[string]bool // the members whose hold ended
	told    bool            // the resume notice was sent
}

// limitBook holds every account's hold and each agent's account. Safe for
// concurrent use: runInbox writes it, socket calls release holds.
type limitBook struct {
	mu       sync.Mutex
	accounts map[string]*accountHold // by account
	of       map[string]string       // agent -> account
	probe    map[string]bool         // agents resumed whose next turn is the probe
	failed   map[string]hookFailure  // the last StopFailure of each agent (limits_hook.go)
}

// takeProbe reports whether agent's turn that just ended is the probe (its
// first turn since its hold ended) and forgets it: one turn is the probe.
func (b *limitBook) takeProbe(agent string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.probe[agent]
	delete(b.probe, agent)
	return p
}

// isProbe reports whether agent's next (or current) turn is the probe.
func (b *limitBook) isProbe(agent string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.probe[agent]
}

// setProbe makes agent's next turn the probe.
func (b *limitBook) setProbe(agent string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.probe == nil {
		b.probe = map[string]bool{}
	}
	b.probe[agent] = true
}

// account returns agent's account ("" before it started).
func (b *limitBook) account(agent string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.of[agent]
}

// limitSpawned records the account of an agent started with env.
func (e *Engine) limitSpawned(a *Agent, env []string) {
	b := &e.limits
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.of == nil {
		b.of = map[string]string{}
	}
	b.of[a.Config.Name] = AccountKey(a.Profile, env)
}

// limitHit holds the account of agent, whose terminal saw a new banner,
// records limit_hit and, when the account was not held, tells the person
// and the agent's parent (runInbox only).
func (e *Engine) limitHit(ctx context.Context, name string) {
	a, ok := e.Agent(name)
	if !ok || a.Term == nil {
		return
	}
	h := a.Term.Limit()
	if h.Until.IsZero() {
		return
	}
	now := a.Term.Now() // the holds are judged on the terminals' clock
	h = e.recordedLimit(a, h, now)
	acct := e.limits.account(name)
	h.Account = acct
	members := []string{name}
	for _, o := range e.Agents() {
		if o.Config.Name != name && o.Term != nil && acct != "" && e.limits.account(o.Config.Name) == acct {
			members = append(members, o.Config.Name)
		}
	}
	b := &e.limits
	b.mu.Lock()
	if b.accounts == nil {
		b.accounts = map[string]*accountHold{}
	}
	prev := b.accounts[acct]
	wasHeld := prev != nil && prev.hold.Active(now)
	b.accounts[acct] = &accountHold{hold: h, hitter: name, members: members, resumed: map[string]bool{}}
	b.mu.Unlock()
	e.applyLimit(acct)
	if !wasHeld {
		// The hold lives in memory: after a restart during it, each
		// member's first turn is the probe (limits_probe.go).
		for _, m := range members {
			e.saveProbe(m, pendingProbe{Since: now})
		}
	}

	detail := fmt.Sprintf("account %s; %s; %s", acct, h.Describe(now), oneLine(h.Text))
	if err := e.store.AppendEvent(ctx, queue.Event{Agent: name, Kind: EventLimitHit, Detail: detail}); err != nil {
		e.log.Error("recording a usage limit", "agent", name, "err", err)
	}
	e.log.Info("usage limit", "agent", name, "account", acct, "until", h.Until, "members", members)
	if wasHeld {
		return
	}
	body := fmt.Sprintf("usage limit: %s is out of quota (account %s); %s.\n"+
		"Held until then: %s. Their queued messages and inbox deliveries wait, with no attempt counted, and resume one by one "+
		"by themselves; `office resume %s` releases them early.\nThe CLI said: %s",
		name, acct, h.Describe(now), strings.Join(members, ", "), name, oneLine(h.Text))
	e.tellLimit(ctx, a, body, "limit-hit:"+acct+":"+h.Until.UTC().Format(time.RFC3339))
}

// recordWindow is how recent a CLI's record of a limit must be to count
// for a banner just seen.
const recordWindow = 10 * time.Minute

// recordedLimit prefers the CLI's own record of the limit to the banner's
// words (the strongest evidence first): Codex's rollout records the
// exhausted window's resets_at, Claude's transcript a usage limit's API
// error row, possibly with its resetsAt. h is the terminal's hold from the screen.
func (e *Engine) recordedLimit(a *Agent, h automation.LimitHold, now time.Time) automation.LimitHold {
	read := map[string]func(records.Locator) (records.Limit, bool, error){
		records.KindCodex: records.CodexLimit, records.KindClaude: records.ClaudeLimit}[a.Profile.Records]
	if read == nil {
		return h
	}
	loc := e.locator(a)
	loc.Tail = 1 << 20
	l, ok, err := read(loc)
	if err != nil {
		e.log.Warn("reading the CLI's record of a usage limit", "agent", a.Config.Name, "err", err)
	}
	if !ok || now.Sub(l.At) > recordWindow || l.At.After(now.Add(recordWindow)) {
		return h
	}
	if l.Reset.IsZero() {
		// Claude's row confirms the limit without a reset: the banner's
		// time stands.
		h.Source = automation.LimitFromTranscript
		return h
	}
	s := e.settingsFor(a.Config)
	h.Reset, h.Source = l.Reset, automation.LimitFromTranscript
	h.Until, _ = automation.LimitUntil(l.Reset, now, s.LimitMargin, s.LimitRetry, 0)
	return h
}

// applyLimit sets acct's hold on each member's terminal, each a
// limit_stagger after the one before; a member already resumed is left
// alone.
func (e *Engine) applyLimit(acct string) {
	b := &e.limits
	b.mu.Lock()
	ah := b.accounts[acct]
	if ah == nil {
		b.mu.Unlock()
		return
	}
	hold, members := ah.hold, slices.Clone(ah.members)
	resumed := func(n string) bool { return ah.resumed[n] }
	skip := map[string]bool{}
	for _, m := range members {
		skip[m] = resumed(m)
	}
	b.mu.Unlock()
	stagger := e.settings().LimitStagger
	for i, m := range members {
		if skip[m] {
			continue
		}
		a, ok := e.Agent(m)
		if !ok || a.Term == nil {
			continue
		}
		h := hold
		h.Until = hold.Until.Add(time.Duration(i) * stagger)
		a.Term.SetLimit(h)
	}
}

// limitStatus follows agent's status (runInbox only): a restarted member of
// a held account is held again; a member whose hold ended records
// limit_reset, and the first of an account tells the person and the
// hitter's parent it resumes.
func (e *Engine) limitStatus(ctx context.Context, name string) {
	a, ok := e.Agent(name)
	if !ok || a.Term == nil {
		return
	}
	acct := e.limits.account(name)
	now := a.Term.Now()
	b := &e.limits
	b.mu.Lock()
	ah := b.accounts[acct]
	if ah == nil || !slices.Contains(ah.members, name) || ah.resumed[name] {
		b.mu.Unlock()
		return
	}
	held := a.Term.Limit()
	if held.Until.IsZero() && ah.hold.Active(now) {
		// A fresh terminal (a restart) holds nothing yet.
		b.mu.Unlock()
		e.applyLimit(acct)
		return
	}
	if held.Active(now) || a.Term.Status() == automation.StatusLimited {
		b.mu.Unlock()
		return
	}
	ah.resumed[name] = true
	if b.probe == nil {
		b.probe = map[string]bool{}
	}
	b.probe[name] = true
	tell := !ah.told
	ah.told = true
	all := len(ah.resumed) == len(ah.members)
	if all {
		delete(b.accounts, acct)
	}
	hold, hitter, members := ah.hold, ah.hitter, slices.Clone(ah.members)
	b.mu.Unlock()
	e.saveProbe(name, pendingProbe{Since: now}) // limits_probe.go: a restart keeps it

	detail := fmt.Sprintf("account %s; reset %s; from %s", acct, resetText(hold), hold.Source)
	if err := e.store.AppendEvent(ctx, queue.Event{Agent: name, Kind: EventLimitReset, Detail: detail}); err != nil {
		e.log.Error("recording a usage limit's end", "agent", name, "err", err)
	}
	e.log.Info("usage limit over", "agent", name, "account", acct)
	if !tell {
		return
	}
	ha, ok := e.Agent(hitter)
	if !ok {
		ha = a
	}
	body := fmt.Sprintf("usage limit over: account %s resumes (%s, one by one, %v apart); the first queued message is the probe: "+
		"if the CLI still refuses, office holds the account again.", acct, strings.Join(members, ", "), e.settings().LimitStagger)
	e.tellLimit(ctx, ha, body, "limit-reset:"+acct+":"+hold.Until.UTC().Format(time.RFC3339))
}

// probeSettled follows the end of agent a's probe turn t, whose reply
// read was reply (rateLimited: Claude's StopFailure hook said rate_limit,
// so its API error rows count as the limit's banner): when the CLI refused
// it without running it (probeRefused), each message the drain recorded delivered into it goes
// back to the head of its queue, no attempt counted (drain.Refused); the
// new banner has held the account again, with back-off. A turn that ran
// keeps its messages delivered: typing them again would run them twice.
func (e *Engine) probeSettled(ctx context.Context, a *Agent, t automation.TurnEvent, reply string, rateLimited bool) {
	if a.Term == nil || e.drain == nil {
		return
	}
	p := a.Profile
	if rateLimited {
		p.Limits.Banners = append(slices.Clone(p.Limits.Banners), p.Limits.Errors...)
	}
	banner, ok := probeRefused(a.Term.Text(), reply, p)
	if !ok {
		return
	}
	for _, id := range t.Delivered() {
		why := "the CLI refused the probe without running it: " + oneLine(banner)
		err := e.drain.Refused(ctx, a.Config.Name, id, why)
		if errors.Is(err, drain.ErrNotRemembered) {
			// Typed by an earlier run of the office: the durable probe has it.
			err = e.requeueProbe(ctx, a.Config.Name, id, why)
		}
		if err != nil {
			e.log.Warn("a refused probe stays delivered", "agent", a.Config.Name, "msg", id, "err", err)
		}
	}
}

// resetText is the hold's reset time, or "none printed".
func resetText(h automation.LimitHold) string {
	if h.Reset.IsZero() {
		return "none printed (retry " + h.Until.Format(time.RFC3339) + ")"
	}
	return h.Reset.Format(time.RFC3339)
}

// tellLimit sends a usage-limit notice to the person and to a's parent,
// durably, once per dedupe key.
func (e *Engine) tellLimit(ctx context.Context, a *Agent, body, dedupe string) {
	if e.inbox == nil {
		return
	}
	to := []string{inbox.Person}
	if p := a.Config.Parent; p != "" && p != inbox.Person {
		to = append(to, p)
	}
	for _, t := range to {
		m := inbox.Message{To: t, From: a.Config.Name, Kind: inbox.KindNotification, Body: body, DedupeKey: dedupe + ":" + t}
		if _, _, err := e.inbox.svc.Send(ctx, m); err != nil {
			e.log.Error("usage-limit notice", "agent", a.Config.Name, "to", t, "err", err)
		}
	}
	e.inboxKick(ctx)
}

// releaseLimit ends the hold of agent's account now ("" : every account),
// the members resuming one by one, limit_stagger apart. It returns the
// agents released.
func (e *Engine) releaseLimit(agent string) []string {
	now := time.Now() // the terminals' clock (pool.Terminal.Now) is the wall clock in the engine
	if a, ok := e.Agent(agent); ok && a.Term != nil {
		now = a.Term.Now()
	}
	b := &e.limits
	b.mu.Lock()
	var accts []string
	for acct := range b.accounts {
		if agent == "" || b.of[agent] == acct {
			accts = append(accts, acct)
		}
	}
	slices.Sort(accts)
	for _, acct := range accts {
		ah := b.accounts[acct]
		ah.hold.Until, ah.hold.Reset = now, time.Time{}
	}
	b.mu.Unlock()
	var out []string
	for _, acct := range accts {
		b.mu.Lock()
		members := slices.Clone(b.accounts[acct].members)
		b.mu.Unlock()
		stagger := e.settings().LimitStagger
		for i, m := range members {
			a, ok := e.Agent(m)
			if !ok || a.Term == nil {
				continue
			}
			if i == 0 {
				a.Term.SetLimit(automation.LimitHold{})
			} else {
				h := a.Term.Limit()
				h.Until = now.Add(time.Duration(i) * stagger)
				a.Term.SetLimit(h)
			}
			out = append(out, m)
		}
	}
	return out
}

// opLimitRelease is "limit_release": `office resume AGENT` (or --all, no
// agent) ends the usage-limit hold of the agent's account early.
func (e *Engine) opLimitRelease(ctx context.Context, req Request, _ wire.None) (wire.LimitReleaseResult, error) {
	if req.Agent != "" {
		if _, ok := e.Agent(req.Agent); !ok {
			return wire.LimitReleaseResult{}, fmt.Errorf("%w %q", queue.ErrUnknownAgent, req.Agent)
		}
	}
	released := e.releaseLimit(req.Agent)
	if e.drain != nil {
		e.drain.Wake()
	}
	return wire.LimitReleaseResult{Released: released}, nil
}

// limitSignal is the signal `office status` prints for a limited agent:
// the hold described now (the judgment's words age), else sig.
func limitSignal(t *pool.Terminal, st automation.Status, sig string, now time.Time) string {
	if st != automation.StatusLimited {
		return sig
	}
	if h := t.Limit(); h.Active(now) {
		return h.Describe(now)
	}
	return sig
}

// oneLine squeezes s to one line of at most 300 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// EventModelSwitch: an agent's CLI switched itself to another model after a
// quota message (Gemini's fallback to Flash); surfaced, not held.
const EventModelSwitch = "model_switch"

// modelSwitched records that agent's CLI switched itself to another model
// after a quota message and tells the person and the agent's parent, once
// per text (runInbox only). Nothing is held: the CLI goes on, on another
// model.
func (e *Engine) modelSwitched(ctx context.Context, name string) {
	a, ok := e.Agent(name)
	if !ok || a.Term == nil {
		return
	}
	text, ok := a.Term.ModelSwitch()
	if !ok {
		return
	}
	text = oneLine(text)
	if err := e.store.AppendEvent(ctx, queue.Event{Agent: name, Kind: EventModelSwitch, Detail: text}); err != nil {
		e.log.Error("recording a model switch", "agent", name, "err", err)
	}
	e.log.Info("model switch after a quota message", "agent", name, "text", text)
	body := fmt.Sprintf("model switch: %s's CLI hit a quota and runs on another model now; not held, its queue goes on.\nThe CLI said: %s", name, text)
	e.tellLimit(ctx, a, body, "model-switch:"+name+":"+text)
}
