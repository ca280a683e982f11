package engine

// limits_probe.go keeps the probe durable (docs/limits.md, "Resuming"):
// once an account's hold ends, the next turn of each member is the probe,
// and a probe the CLI refused goes back to the queue. Both facts lived in
// memory only (the engine's probe flag, the drain's last delivered
// message), so a server restart between the probe's delivery and its
// turn's end lost a refused probe: the message stayed delivered though the
// CLI never ran it. Now each pending probe is a file,
// STATE/agents/NAME/limit-probe.json, written when the hold starts (the
// hold itself lives in memory: after a restart during it, the first turn
// is the probe), again when it ends, and with the message once the probe's
// turn starts; removed when that turn settles.
// At the next start the engine resolves what it holds from the CLI's own
// record since the message was typed:
//
//   - the message is still queued: nothing was lost;
//   - the record's reply is the usage-limit banner and the turn recorded
//     nothing else (no text, no tool call or result: records.OnlyReply):
//     the CLI refused it; it goes back to the head of its queue, once (the
//     store refuses a second requeue of a queued id; the file is cleared
//     before the requeue, so a crash after it cannot requeue it again);
//   - the record has a reply of its own: it ran, and stays delivered;
//   - the banner ends a turn that did work before it: it ran, at least in
//     part; it stays delivered and the person is told, with its text;
//   - no reply is recorded: nobody can say whether it ran; it stays
//     delivered (never typed twice) and the person is told, with its text.
//
// Either way the agent's next turn is the probe again.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"office/automation"
	"office/drain"
	"office/queue"
	"office/records"
)

// probeFile is the name of an agent's pending-probe file in its folder.
const probeFile = "limit-probe.json"

// maxProbeFile bounds the file read back (a message is bounded far below).
const maxProbeFile = 4 << 20

// pendingProbe is the file's content.
type pendingProbe struct {
	// Since is when the hold ended.
	Since time.Time `json:"since"`
	// Message is the probe as typed, once its turn started (nil before).
	Message *queue.Message `json:"message,omitempty"`
	// TypedAt is when its turn started.
	TypedAt time.Time `json:"typed_at,omitzero"`
}

// probePath is agent's pending-probe file.
func (e *Engine) probePath(agent string) (string, error) {
	p, err := HookLogPath(e.opts.StateDir, agent)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(p), probeFile), nil
}

// saveProbe writes agent's pending probe durably (a temporary file synced,
// then renamed over the old one).
func (e *Engine) saveProbe(agent string, p pendingProbe) {
	if err := e.writeProbe(agent, p); err != nil {
		e.log.Error("keeping the probe durable", "agent", agent, "err", err)
	}
}

func (e *Engine) writeProbe(agent string, p pendingProbe) error {
	path, err := e.probePath(agent)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// loadProbe reads agent's pending probe; ok is false when there is none.
func (e *Engine) loadProbe(agent string) (pendingProbe, bool, error) {
	path, err := e.probePath(agent)
	if err != nil {
		return pendingProbe{}, false, err
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return pendingProbe{}, false, nil
	}
	if err != nil {
		return pendingProbe{}, false, err
	}
	defer f.Close()
	var p pendingProbe
	if err := json.NewDecoder(io.LimitReader(f, maxProbeFile)).Decode(&p); err != nil {
		return pendingProbe{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return p, true, nil
}

// dropProbe removes agent's pending probe.
func (e *Engine) dropProbe(agent string) {
	path, err := e.probePath(agent)
	if err == nil {
		err = os.Remove(path)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		e.log.Error("removing the settled probe", "agent", agent, "err", err)
	}
}

// probeTyped follows a turn start of agent (runInbox only): when the turn
// is its probe, the message typed into it is kept with the pending probe.
func (e *Engine) probeTyped(ctx context.Context, agent string, t automation.TurnEvent) {
	if !e.limits.isProbe(agent) {
		return
	}
	ids := t.Delivered()
	if len(ids) == 0 {
		return
	}
	p, ok, err := e.loadProbe(agent)
	if err != nil || !ok || p.Message != nil {
		return
	}
	m, err := e.store.Get(ctx, ids[0])
	if err != nil && e.drain != nil {
		// Recorded delivered already: the drain still has it as typed.
		var rem bool
		if m, rem = e.drain.LastDelivered(agent); !rem || m.ID != ids[0] {
			return
		}
	} else if err != nil {
		return
	}
	p.Message, p.TypedAt = &m, t.Start
	e.saveProbe(agent, p)
}

// requeueProbe puts the pending probe of agent back at the head of its
// queue when the drain no longer remembers it (after a restart).
func (e *Engine) requeueProbe(ctx context.Context, agent string, id int64, why string) error {
	p, ok, err := e.loadProbe(agent)
	if err != nil {
		return err
	}
	if !ok || p.Message == nil || p.Message.ID != id {
		return fmt.Errorf("message %d for %s: %w", id, agent, drain.ErrNotRemembered)
	}
	if err := e.store.Requeue(ctx, *p.Message, why); err != nil {
		return err
	}
	e.drain.Wake()
	return nil
}

// resumeProbes resolves, at the start of runInbox, the probes a previous
// run of the office left pending (see the top of this file).
func (e *Engine) resumeProbes(ctx context.Context) {
	for _, a := range e.Agents() {
		name := a.Config.Name
		p, ok, err := e.loadProbe(name)
		if err != nil {
			e.log.Error("reading a pending probe", "agent", name, "err", err)
		}
		if !ok {
			continue
		}
		e.limits.setProbe(name)
		if p.Message == nil {
			continue
		}
		m, typed := *p.Message, p.TypedAt
		// Cleared before it may be queued again: a crash after the
		// requeue, once the drain typed it again, must not requeue it once
		// more at the next start.
		p.Message, p.TypedAt = nil, time.Time{}
		e.saveProbe(name, p)
		e.resolveProbe(ctx, a, m, typed)
	}
}

// resolveProbe decides what became of probe m, typed at typed into a's
// previous process, whose turn's end no one saw.
func (e *Engine) resolveProbe(ctx context.Context, a *Agent, m queue.Message, typed time.Time) {
	name := a.Config.Name
	if _, err := e.store.Get(ctx, m.ID); err == nil {
		return // still queued: it was never delivered
	}
	reply, only := "", false
	if a.Profile.Records != "" {
		if es, err := e.readRecords(a, readAll); err == nil {
			if r, ok := records.LastReply(es, typed); ok {
				reply = r.Text
				// Refused means the banner is all the turn recorded: a
				// tool call or text before it means the probe ran.
				only = records.OnlyReply(es, drain.Sanitize(m.Text, true), typed, reply)
			}
		}
	}
	// The record's reply stands for the turn's screen, which is gone.
	banner, refused := probeRefused(reply, reply, a.Profile)
	switch {
	case refused && only:
		why := "the CLI refused the probe without running it (its record, read after the office restarted): " + oneLine(banner)
		if err := e.store.Requeue(ctx, m, why); err != nil {
			e.log.Error("putting a refused probe back after a restart", "agent", name, "msg", m.ID, "err", err)
			return
		}
		e.log.Info("a refused probe is back at the head of its queue (after a restart)", "agent", name, "msg", m.ID)
	case reply != "" && !refused:
		e.log.Info("the probe ran before the restart; it stays delivered", "agent", name, "msg", m.ID)
	case reply != "":
		body := fmt.Sprintf("usage limit: the office stopped during %s's probe turn; %s's record ends on the usage-limit banner, "+
			"but the turn did other work before it, so whether the probe ran is unknown. It stays delivered (it is never typed twice); "+
			"send it again if it did not run:\n%s", name, name, m.Text)
		e.tellLimit(ctx, a, body, fmt.Sprintf("probe-unknown:%s:%d", name, m.ID))
	default:
		body := fmt.Sprintf("usage limit: the office stopped during %s's probe turn, and %s's record shows no reply to it, "+
			"so whether the CLI ran it is unknown. It stays delivered (it is never typed twice); send it again if it did not run:\n%s",
			name, name, m.Text)
		e.tellLimit(ctx, a, body, fmt.Sprintf("probe-unknown:%s:%d", name, m.ID))
	}
}
