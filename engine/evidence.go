package engine

// evidence.go reads the agents' own records (package records) for the
// engine: the drain's evidence that a delivery arrived (drain.Evidence), the
// settling of deliveries a crash interrupted (at Open), and the child's real
// last reply in a parent's notice (docs/evidence.md).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"office/automation"
	"office/configs"
	"office/drain"
	"office/inbox"
	"office/pool"
	"office/queue"
	"office/records"
)

// replyWait bounds how long a notice waits for the CLI to record the reply
// of a turn that just ended (Claude's Stop hook runs as the turn ends).
const replyWait = 2 * time.Second

// HookLogPath is where `office hook` keeps the evidence of agent's hook
// payloads (the agent's folder in the state dir). It refuses a name that is
// not a plain file name, so OFFICE_AGENT cannot point outside the state dir.
func HookLogPath(stateDir, agent string) (string, error) {
	if agent == "" || agent != filepath.Base(agent) || agent == "." || agent == ".." {
		return "", fmt.Errorf("engine: agent name %q is not a plain name", agent)
	}
	return filepath.Join(stateDir, "agents", agent, records.HookLogFile), nil
}

// locator says where a's records are.
func (e *Engine) locator(a *Agent) records.Locator {
	adir := e.agentDir(a.Config.Name)
	rec := readLaunchRecord(adir)
	loc := records.Locator{
		Kind:      a.Profile.Records,
		Home:      agentHome(e.opts.HostEnv, a),
		SessionID: rec.SessionID,
		Dir:       rec.Dir,
	}
	if loc.Dir == "" {
		// No cwd in the office file: the agent runs in the office's own.
		loc.Dir, _ = os.Getwd()
	}
	if v, ok := a.Config.Env["CODEX_HOME"]; ok {
		loc.CodexHome = v
	} else {
		for _, kv := range e.opts.HostEnv {
			if v, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok {
				loc.CodexHome = v
			}
		}
	}
	if a.Profile.Hooks == configs.HooksClaude {
		loc.HookLog = filepath.Join(adir, records.HookLogFile)
	}
	return loc
}

// recentTail is how much of a record file's end a look for a prompt just
// typed reads (it is polled while a delivery is checked).
const recentTail = 512 << 10

// What readRecords reads.
type readMode int

const (
	// readHooks: the hook log alone (small, and written first), else as
	// readRecent.
	readHooks readMode = iota
	// readRecent: the recent end of each record (a look for a prompt just
	// typed).
	readRecent
	// readAll: up to records.MaxRead of each.
	readAll
)

// readRecords returns a's recorded prompts and replies.
func (e *Engine) readRecords(a *Agent, mode readMode) ([]records.Entry, error) {
	loc := e.locator(a)
	if mode == readHooks && loc.HookLog != "" {
		return records.HookEntries(loc.HookLog)
	}
	if mode != readAll {
		loc.Tail = recentTail
	}
	return records.Read(loc)
}

// lookModes is how a look for a just-typed prompt reads a's records: the hook
// log first when there is one.
func (e *Engine) lookModes(a *Agent) []readMode {
	if e.locator(a).HookLog != "" {
		return []readMode{readHooks, readRecent}
	}
	return []readMode{readRecent}
}

// evidence is drain.Evidence over the engine's agents.
type evidence struct {
	e  *Engine
	mu sync.Mutex
	// proven is, per agent, the terminal whose prompts its CLI's records
	// were seen to record (a user entry dated after it was spawned).
	proven map[string]*pool.Terminal
}

func newEvidence(e *Engine) *evidence {
	return &evidence{e: e, proven: map[string]*pool.Terminal{}}
}

// Keeps reports whether the agent's profile names a record kind, and
// whether those records were seen to record this run of the agent.
func (v *evidence) Keeps(agent string) (keeps, proven bool) {
	a, ok := v.e.Agent(agent)
	if !ok || a.Profile.Records == "" || a.Term == nil {
		return false, false
	}
	v.mu.Lock()
	t := v.proven[agent]
	v.mu.Unlock()
	if t == a.Term {
		return true, true
	}
	for _, mode := range v.e.lookModes(a) {
		es, err := v.e.readRecords(a, mode)
		if err != nil {
			return true, false
		}
		for _, en := range es {
			if en.Role == records.RoleUser && !en.At.Before(a.Term.Spawned()) {
				v.prove(agent, a.Term)
				return true, true
			}
		}
	}
	return true, false
}

func (v *evidence) prove(agent string, t *pool.Terminal) {
	v.mu.Lock()
	v.proven[agent] = t
	v.mu.Unlock()
}

// Received looks for text among the agent's recorded prompts since since:
// the hook log first, then the CLI's own files.
func (v *evidence) Received(_ context.Context, agent, text string, since time.Time) (string, bool, error) {
	a, ok := v.e.Agent(agent)
	if !ok || a.Profile.Records == "" {
		return "", false, nil
	}
	for _, mode := range v.e.lookModes(a) {
		es, err := v.e.readRecords(a, mode)
		if err != nil {
			return "", false, err
		}
		if en, _, ok := records.Received(es, drain.Sanitize(text, true), since, nil); ok {
			// It proves the records record the current process's prompts
			// only if dated since that process started, as Keeps asks: a
			// record of the process a restart replaced proves nothing of
			// the new one.
			if t := a.Term; t != nil && !en.At.Before(t.Spawned()) {
				v.prove(agent, t)
			}
			return en.Source, true, nil
		}
	}
	if t := a.Term; t != nil && t.Spawned().After(since) && v.e.locator(a).HookLog == "" {
		// A process started since the text was typed: it is not the one
		// typed into, and a CLI that keeps a record per session (Codex's
		// newest rollout, Gemini's chat record of the session id) may
		// have started another, so the old process's record was not read.
		return "", false, errRecordsMoved
	}
	return "", false, nil
}

// Late reports the first prompt among the agent's records recorded since
// since and before until (zero: no bound), and whether it is text: the hook
// log first, then the CLI's own files (drain.Evidence.Late).
func (v *evidence) Late(_ context.Context, agent, text string, since, until time.Time) (drain.LateRecord, error) {
	a, ok := v.e.Agent(agent)
	if !ok || a.Profile.Records == "" {
		return drain.LateRecord{}, nil
	}
	for _, mode := range v.e.lookModes(a) {
		es, err := v.e.readRecords(a, mode)
		if err != nil {
			return drain.LateRecord{}, err
		}
		if en, ok, same := records.First(es, drain.Sanitize(text, true), since, until); ok {
			return drain.LateRecord{Any: true, Same: same, Source: en.Source, At: en.At}, nil
		}
	}
	return drain.LateRecord{}, nil
}

// errRecordsMoved is Received's answer when the agent restarted since the
// text was typed and its records are kept per session: their silence says
// nothing about the process typed into.
var errRecordsMoved = errors.New("the agent restarted since, and its CLI keeps its records per session: the records of the process typed into were not read")

// recoverInterrupted settles the deliveries the last stop interrupted, from
// evidence: a record of the text in the agent's CLI since typing began (a
// prompt, or a message its turn-end hook handed over) settles it as
// delivered; what no evidence settles is set aside, with a
// notice to the person naming it and saying what is known.
func (e *Engine) recoverInterrupted(ctx context.Context) error {
	taken := map[string]map[int]bool{}
	recovered := map[int64]int{} // inbox items acknowledged, by delivery
	judge := func(m queue.Message) queue.Verdict {
		// What is observed of it, for drain.Recover (the drain's one
		// classification of a delivery's outcome) to decide.
		var r drain.Interrupted
		a, ok := e.configAgent(m.Agent)
		r.Known = ok
		if ok {
			r.Records = a.Profile.Records
		}
		if ok && r.Records != "" {
			es, err := e.readRecords(a, readAll)
			r.Unread = err
			if err != nil {
				e.log.Warn("reading an agent's records to settle an interrupted delivery", "agent", m.Agent, "msg", m.ID, "err", err)
			} else {
				if taken[m.Agent] == nil {
					taken[m.Agent] = map[int]bool{}
				}
				text := drain.Sanitize(m.Text, true)
				en, i, found := records.Received(es, text, m.Writing, taken[m.Agent])
				if !found {
					// Handed over at a turn's end (Store.Handing stamps
					// writing as typing does): Received never returns the
					// CLI's record of a hand-over, nor Handed a typed
					// prompt, so one of the two can match.
					en, i, found = records.Handed(r.Records, es, text, m.Writing, taken[m.Agent])
				}
				if r.Found = found; found {
					taken[m.Agent][i] = true
					r.Source = en.Source
				}
			}
		}
		v := drain.Recover(r)
		if v.Settle == queue.SettleDelivered && m.Kind == queue.KindInbox && e.inbox != nil {
			// Its items are delivered in the transaction that settles it:
			// a crash between the two would type the batch again.
			id := m.ID
			v.Received = func(tx *queue.Tx) error {
				its, err := e.inbox.svc.AckTx(tx, id)
				recovered[id] = len(its)
				return err
			}
		}
		return v
	}
	got, err := e.store.RecoverInterrupted(ctx, judge)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	for _, r := range got {
		log := e.log.With("agent", r.Agent, "msg", r.ID, "evidence", r.Verdict.Evidence)
		switch r.Verdict.Settle {
		case queue.SettleDelivered:
			log.Info("interrupted delivery settled: the CLI's record shows it arrived")
			if r.Kind == queue.KindInbox && e.inbox != nil {
				e.inboxReceived(ctx, r.Message, recovered[r.ID])
			}
		case queue.SettleRetry:
			log.Info("interrupted delivery will be delivered again")
		default:
			log.Warn("interrupted delivery set aside for the person")
			e.noticeSetAside(ctx, r)
		}
	}
	return nil
}

// inboxReceived settles the mail of an inbox delivery that a stop
// interrupted and the CLI's records show received (the whole batch is one
// prompt): its items were marked delivered, not typed again, in the
// transaction that settled it (the judge's Verdict.Received), and their
// mail, now working, settles as at a turn end, since the stop ended the
// process that took it (inform mail is done; a request is done if its
// receiver replied, else failed and its sender told).
func (e *Engine) inboxReceived(ctx context.Context, m queue.Message, items int) {
	e.log.Info("inbox items received before the stop are not typed again", "agent", m.Agent, "msg", m.ID, "items", items)
	if _, err := e.inbox.svc.TurnEnded(ctx, m.Agent); err != nil {
		e.log.Error("settling the mail of a received inbox delivery (the deadline ticker settles it)", "agent", m.Agent, "err", err)
	}
}

// configAgent is the office file's agent name with its profile (recovery
// runs before the agents start).
func (e *Engine) configAgent(name string) (*Agent, bool) {
	for _, ac := range e.opts.Config.Agents {
		if ac.Name != name {
			continue
		}
		p, err := e.opts.Config.ProfileOf(ac)
		if err != nil {
			return nil, false
		}
		return &Agent{Config: ac, Profile: p}, true
	}
	return nil, false
}

// noticeSetAside tells the person, durably (their inbox), about a message
// set aside after a stop (typed when it came, or held before it).
func (e *Engine) noticeSetAside(ctx context.Context, r queue.Recovered) {
	what := "the office stopped while typing it"
	if r.Interrupted {
		what = "it was held (" + r.Agent + " drew nothing after it was typed), then the office stopped, which ended that process"
	}
	rm := "drops it"
	if r.Kind == queue.KindInbox {
		what = "it was held after it was typed into " + r.Agent + " (" + r.Evidence + "), then the office stopped"
		rm = "marks its items done (they are not delivered again)"
	}
	body := fmt.Sprintf("Message %d for %s was set aside: %s, and %s. "+
		"It is not typed again on its own and does not hold the rest of the queue: `office queue release %d` types it again, `office queue rm %d` %s.\nText: %s",
		r.ID, r.Agent, what, r.Verdict.Evidence, r.ID, r.ID, rm, drain.NoticeText(r.Message))
	e.notice(drain.Notice{Agent: r.Agent, MsgID: r.ID, Kind: drain.NoticeSetAside, Text: body}) // durable (noticeHeld)
}

// noticeHeld tells the person, durably (their inbox), about a message the
// drain holds because the agent drew nothing after it was typed (it holds
// that agent's queue until they decide), or one set aside (it waits for
// them): neither may be missed by a person with no window attached. It
// reports whether the notice was stored.
func (e *Engine) noticeHeld(n drain.Notice) bool {
	if e.inbox == nil {
		return false
	}
	if _, _, err := e.inbox.svc.Send(context.Background(), inbox.Message{To: inbox.Person, From: n.Agent, Kind: inbox.KindNotification,
		Body: n.Text}); err != nil {
		if !errors.Is(err, inbox.ErrUnknownReceiver) {
			e.log.Error("notice of a message held or set aside", "msg", n.MsgID, "kind", n.Kind, "err", err)
		}
		return false
	}
	return true
}

// lastReply is the agent's last reply for a notice: from its CLI's records
// (recorded since since) where it keeps them, else the reply region of its
// screen.
func (e *Engine) lastReply(a *Agent, since time.Time) string {
	if a.Profile.Records != "" {
		deadline := time.Now().Add(replyWait)
		for {
			es, err := e.readRecords(a, readAll)
			if err != nil {
				e.log.Warn("reading the agent's records for its reply", "agent", a.Config.Name, "err", err)
				break
			}
			if r, ok := records.LastReply(es, since); ok {
				return boundReply(r.Text)
			}
			// Wait for the reply only from records that recorded this turn's
			// prompt: others may never have one.
			if !recordedSince(es, since) || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if a.Term == nil {
		return ""
	}
	return inbox.LastLines(ReplyRegion(a.Term.Text(), a.Profile), inbox.ResultLines, inbox.ResultBytes)
}

// recordedSince reports whether es has a prompt recorded at or after since.
func recordedSince(es []records.Entry, since time.Time) bool {
	for _, en := range es {
		if en.Role == records.RoleUser && !en.At.Before(since.Add(-records.Skew)) {
			return true
		}
	}
	return false
}

// boundReply keeps the end of a long reply within inbox.ResultBytes (its last
// lines say how it ended).
func boundReply(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= inbox.ResultBytes {
		return s
	}
	cut := len(s) - inbox.ResultBytes
	for cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut++
	}
	return "…" + s[cut:]
}

// turnEndLine is the line Claude Code draws when a turn ends (2.1.332,
// checked: `✻ Cooked for 1s · done 9:38 PM`; older: `✻ Crunched for 1s`):
// a spinner glyph, a word, "for" and a duration, then maybe the clock.
var turnEndLine = regexp.MustCompile(`^\s*\S \p{L}+ for (?:\d+[hms] ?)+(?:· done \d{1,2}:\d\d(?: ?[AP]M)?)?\s*$`)

// ReplyRegion is the reply part of screen text, without the CLI's chrome:
// everything from the rule or box edge above the prompt row down (the input
// box, its footer and hints) is cut, and so is everything up to the end of
// the last prompt echoed above it (its marker line and the blank and
// indented lines after it), and every line that carries one of the
// profile's ready, idle or busy patterns or placeholders, or is only a rule.
// A profile without a prompt marker gives the screen less those lines.
func ReplyRegion(screen string, p configs.Profile) string {
	lines := strings.Split(screen, "\n")
	if p.PromptMarker != "" {
		for i := len(lines) - 1; i >= 0; i-- {
			if !isPromptRow(lines[i], p) {
				continue
			}
			j := i
			for j > 0 && isChrome(lines[j-1]) {
				j--
			}
			lines = lines[:j]
			break
		}
		// The reply follows the last prompt echoed in the transcript (the
		// same marker): its block goes on over blank and indented lines
		// (the prompt's own further lines), up to the first line that
		// starts at the left edge.
		for k := len(lines) - 1; k >= 0; k-- {
			if !isPromptRow(lines[k], p) {
				continue
			}
			j := k + 1
			for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || strings.HasPrefix(lines[j], " ")) {
				j++
			}
			lines = lines[j:]
			break
		}
	}
	pats := append(append(append(append([]string{}, automation.MarkerTexts(p.ReadyMarkers)...), p.Idle...), p.Busy...), p.PromptPlaceholders...)
	out := lines[:0:0]
	for _, l := range lines {
		if containsAny(l, pats) || isChrome(l) && strings.TrimSpace(l) != "" || turnEndLine.MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// isPromptRow reports whether line has the profile's prompt marker at its
// column.
func isPromptRow(line string, p configs.Profile) bool {
	r := []rune(line)
	m := []rune(p.PromptMarker)
	col := p.PromptColumn
	if col < 0 || col+len(m) > len(r) {
		return false
	}
	return string(r[col:col+len(m)]) == p.PromptMarker
}

// isChrome reports whether line is blank or only box-drawing and block
// characters (rules, box edges).
func isChrome(line string) bool {
	for _, r := range line {
		switch {
		case r == ' ' || r == '\u00a0':
		case r >= 0x2500 && r <= 0x259f: // box drawing, block elements
		default:
			return false
		}
	}
	return true
}
