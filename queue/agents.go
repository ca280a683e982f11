package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// AgentRecord is one agent in the store's registry.
type AgentRecord struct {
	Name string
	// Removed: `office team rm` removed it. Its queue stays (and can be
	// listed, cleared and purged) but nothing new may be enqueued to it.
	Removed bool
	// Paused: its own auto-delivery pause flag (the floor flag is separate).
	Paused bool
	// Spec is opaque JSON the engine stores for team-added agents; "" for
	// config agents.
	Spec string
	// Added is when the name was (last) registered.
	Added time.Time
	// Elsewhere is the host of the floor that has this agent's name while
	// this host does not run its own agent of that name (a name clash the
	// other host keeps: docs/cluster.md); "" when it runs here, or may.
	// While it is set the agent is no receiver here of what is sent to its
	// name: Enqueue refuses it (*ElsewhereError). The inbox still keeps
	// what is for this host's agent itself (a child's notices, replies to
	// its requests) until it runs here or is removed.
	Elsewhere string
}

// ElsewhereError: Agent is registered here but not run here, because Host,
// another host of the floor, has its name (SetElsewhere). It is
// ErrUnknownAgent for errors.Is: no receiver here.
type ElsewhereError struct {
	Agent, Host string
}

func (e *ElsewhereError) Error() string {
	return fmt.Sprintf("%s %q: not run on this host, host %s has that name", ErrUnknownAgent, e.Agent, e.Host)
}

// Is makes an ElsewhereError ErrUnknownAgent.
func (e *ElsewhereError) Is(target error) bool { return target == ErrUnknownAgent }

// agentState reads whether name exists and whether it is removed.
func (t *Tx) agentState(name string) (exists, removed bool, err error) {
	var r int
	err = t.queryRow(`SELECT removed FROM agents WHERE name = ?`, name).Scan(&r)
	if errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	return true, r != 0, nil
}

// unknownAgent is ErrUnknownAgent naming the agent.
func unknownAgent(name string, removed bool) error {
	if removed {
		return fmt.Errorf("%w %q (removed)", ErrUnknownAgent, name)
	}
	return fmt.Errorf("%w %q", ErrUnknownAgent, name)
}

// EnsureAgents registers every name not yet in the registry (INSERT OR IGNORE)
// with an "agent_added" event each, in one transaction. Names already present
// are left as they are: a removed agent stays removed, a paused one paused.
// A blank name is ErrBlank and nothing is written. When every name is
// already registered it only reads (no write transaction, so it never waits
// for the write lock). Returns once durable.
func (s *Store) EnsureAgents(ctx context.Context, names []string) error {
	missing, err := s.unregistered(ctx, names)
	if err != nil || len(missing) == 0 {
		return err
	}
	return s.update(ctx, "ensure agents", func(t *Tx) error { return t.EnsureAgents(missing) })
}

// unregistered returns the names (blank ones included, for EnsureAgents to
// refuse) that the registry does not have.
func (s *Store) unregistered(ctx context.Context, names []string) ([]string, error) {
	var missing []string
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return names, nil
		}
		var one int
		err := s.db.QueryRowContext(ctx, `SELECT 1 FROM agents WHERE name = ?`, n).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			missing = append(missing, n)
			continue
		}
		if err != nil {
			return nil, opErr(fmt.Sprintf("ensure agent %q", n), err)
		}
	}
	return missing, nil
}

// EnsureAgents is Store.EnsureAgents inside t.
func (t *Tx) EnsureAgents(names []string) error {
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return opErr("ensure agents", fmt.Errorf("agent name is %w", ErrBlank))
		}
	}
	for _, n := range names {
		res, err := t.exec(`INSERT OR IGNORE INTO agents (name, added) VALUES (?, ?)`, n, toNanos(t.now))
		if err != nil {
			return opErr(fmt.Sprintf("ensure agent %q", n), err)
		}
		if k, _ := res.RowsAffected(); k > 0 {
			if err := t.appendEvent(Event{Agent: n, Kind: EventAgentAdded, Detail: "config"}); err != nil {
				return opErr(fmt.Sprintf("ensure agent %q", n), err)
			}
		}
	}
	return nil
}

// AddAgent registers a (team-added) agent with its Spec and Paused flag and
// logs "agent_added", in one transaction. A name in use by an agent that is
// not removed is refused with ErrAgentExists. A removed name is taken over:
// the record is revived with the new spec, and any messages its previous
// holder left queued become deliverable again. a.Added zero means now.
// Returns once durable.
func (s *Store) AddAgent(ctx context.Context, a AgentRecord) error {
	return s.update(ctx, fmt.Sprintf("add agent %q", a.Name), func(t *Tx) error { return t.AddAgent(a) })
}

// AddAgent is Store.AddAgent inside t.
func (t *Tx) AddAgent(a AgentRecord) error {
	op := fmt.Sprintf("add agent %q", a.Name)
	if strings.TrimSpace(a.Name) == "" {
		return opErr("add agent", fmt.Errorf("agent name is %w", ErrBlank))
	}
	exists, removed, err := t.agentState(a.Name)
	if err != nil {
		return opErr(op, err)
	}
	if exists && !removed {
		return opErr(op, ErrAgentExists)
	}
	added := a.Added
	if added.IsZero() {
		added = t.now
	}
	if _, err := t.exec(`INSERT INTO agents (name, removed, paused, spec, added) VALUES (?, 0, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET removed = 0, elsewhere = '', paused = excluded.paused, spec = excluded.spec, added = excluded.added`,
		a.Name, boolInt(a.Paused), a.Spec, toNanos(added)); err != nil {
		return opErr(op, err)
	}
	detail := "team"
	if removed {
		detail = "team (re-added a removed name)"
	}
	if err := t.appendEvent(Event{Agent: a.Name, Kind: EventAgentAdded, Detail: detail}); err != nil {
		return opErr(op, err)
	}
	return nil
}

// RemoveAgent marks the agent removed and logs "agent_removed", in one
// transaction; its queued messages stay (listable, clearable) and its hold is
// cleared. Enqueue to it is refused from then on. An absent or already
// removed agent is ErrUnknownAgent. Returns once durable.
func (s *Store) RemoveAgent(ctx context.Context, name string) error {
	return s.update(ctx, fmt.Sprintf("remove agent %q", name), func(t *Tx) error { return t.RemoveAgent(name) })
}

// RemoveAgent is Store.RemoveAgent inside t.
func (t *Tx) RemoveAgent(name string) error {
	op := fmt.Sprintf("remove agent %q", name)
	exists, removed, err := t.agentState(name)
	if err != nil {
		return opErr(op, err)
	}
	if !exists || removed {
		return opErr("remove agent", unknownAgent(name, removed))
	}
	if _, err := t.exec(`UPDATE agents SET removed = 1, elsewhere = '' WHERE name = ?`, name); err != nil {
		return opErr(op, err)
	}
	if _, err := t.exec(`DELETE FROM holds WHERE agent = ?`, name); err != nil {
		return opErr(op, err)
	}
	var n int
	if err := t.queryRow(`SELECT count(*) FROM messages WHERE agent = ?`, name).Scan(&n); err != nil {
		return opErr(op, err)
	}
	if err := t.appendEvent(Event{Agent: name, Kind: EventAgentRemoved, Detail: fmt.Sprintf("%d queued message(s) kept", n)}); err != nil {
		return opErr(op, err)
	}
	return nil
}

// SetElsewhere records that this host does not run its agent name because
// host, another host of the floor, has that name (a name clash the other
// host keeps); host "" records that it runs here again. While it is set,
// name is no receiver here (Enqueue: *ElsewhereError). A change logs
// "agent_elsewhere" (or "agent_here"); setting what is already recorded
// writes nothing. An absent or removed agent is ErrUnknownAgent. Returns
// once durable.
func (s *Store) SetElsewhere(ctx context.Context, name, host string) error {
	op := fmt.Sprintf("set agent %q elsewhere", name)
	return s.update(ctx, op, func(t *Tx) error {
		exists, removed, err := t.agentState(name)
		if err != nil {
			return opErr(op, err)
		}
		if !exists || removed {
			return opErr(op, unknownAgent(name, removed))
		}
		res, err := t.exec(`UPDATE agents SET elsewhere = ? WHERE name = ? AND removed = 0 AND elsewhere != ?`, host, name, host)
		if err != nil {
			return opErr(op, err)
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return nil
		}
		e := Event{Agent: name, Kind: EventAgentHere, Detail: "runs on this host again"}
		if host != "" {
			e = Event{Agent: name, Kind: EventAgentElsewhere, Detail: "not run on this host: host " + host + " has that name"}
		}
		return t.appendEvent(e)
	})
}

// Elsewhere returns, inside t, the host recorded for name by SetElsewhere
// ("" when it runs here, or may, and for a name not registered).
func (t *Tx) Elsewhere(name string) (string, error) {
	var host string
	err := t.queryRow(`SELECT elsewhere FROM agents WHERE name = ?`, name).Scan(&host)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", opErr(fmt.Sprintf("agent %q", name), err)
	}
	return host, nil
}

const agentCols = `name, removed, paused, spec, added, elsewhere`

type scanner interface{ Scan(dest ...any) error }

func scanAgent(r scanner) (AgentRecord, error) {
	var a AgentRecord
	var removed, paused int
	var added int64
	if err := r.Scan(&a.Name, &removed, &paused, &a.Spec, &added, &a.Elsewhere); err != nil {
		return AgentRecord{}, err
	}
	a.Removed, a.Paused, a.Added = removed != 0, paused != 0, fromNanos(added)
	return a, nil
}

// Agent returns the registry record of name, removed or not. An absent name
// is ErrUnknownAgent.
func (s *Store) Agent(ctx context.Context, name string) (AgentRecord, error) {
	a, err := scanAgent(s.db.QueryRowContext(ctx, `SELECT `+agentCols+` FROM agents WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return AgentRecord{}, opErr("agent", unknownAgent(name, false))
	}
	if err != nil {
		return AgentRecord{}, opErr(fmt.Sprintf("agent %q", name), err)
	}
	return a, nil
}

// ListAgents returns every registered agent, removed ones included, sorted by
// name.
func (s *Store) ListAgents(ctx context.Context) ([]AgentRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+agentCols+` FROM agents ORDER BY name`)
	if err != nil {
		return nil, opErr("list agents", err)
	}
	defer rows.Close()
	var out []AgentRecord
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, opErr("list agents", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("list agents", err)
	}
	return out, nil
}

// ---- pause flags ----

// SetPaused sets the agent's own pause flag, persisted, and logs "paused" or
// "resumed" when the flag changes (setting it to what it already is writes
// nothing). The floor flag is not touched. An absent agent is
// ErrUnknownAgent; a removed agent's flag can still be set. Returns once
// durable.
func (s *Store) SetPaused(ctx context.Context, agent string, paused bool) error {
	return s.update(ctx, fmt.Sprintf("set paused %q", agent), func(t *Tx) error { return t.SetPaused(agent, paused) })
}

// SetPaused is Store.SetPaused inside t.
func (t *Tx) SetPaused(agent string, paused bool) error {
	op := fmt.Sprintf("set paused %q", agent)
	exists, _, err := t.agentState(agent)
	if err != nil {
		return opErr(op, err)
	}
	if !exists {
		return opErr("set paused", unknownAgent(agent, false))
	}
	res, err := t.exec(`UPDATE agents SET paused = ? WHERE name = ? AND paused != ?`, boolInt(paused), agent, boolInt(paused))
	if err != nil {
		return opErr(op, err)
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return nil
	}
	kind := EventResumed
	if paused {
		kind = EventPaused
	}
	if err := t.appendEvent(Event{Agent: agent, Kind: kind}); err != nil {
		return opErr(op, err)
	}
	return nil
}

// SetFloorPaused sets the floor-wide pause flag, persisted. It covers every
// agent, including ones added later, and is independent of the per-agent
// flags. A change logs "paused" or "resumed" with Agent "" and Detail
// "floor". Returns once durable.
func (s *Store) SetFloorPaused(ctx context.Context, paused bool) error {
	return s.update(ctx, "set floor paused", func(t *Tx) error { return t.SetFloorPaused(paused) })
}

// SetFloorPaused is Store.SetFloorPaused inside t.
func (t *Tx) SetFloorPaused(paused bool) error {
	res, err := t.exec(`UPDATE meta SET v = ? WHERE k = 'floor_paused' AND v != ?`, boolInt(paused), boolInt(paused))
	if err != nil {
		return opErr("set floor paused", err)
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return nil
	}
	kind := EventResumed
	if paused {
		kind = EventPaused
	}
	if err := t.appendEvent(Event{Kind: kind, Detail: "floor"}); err != nil {
		return opErr("set floor paused", err)
	}
	return nil
}

// ResumeAll clears the floor flag and every agent's flag in one transaction
// (`office resume --all`), logging "resumed" for the floor and for each agent
// that was paused. Returns once durable.
func (s *Store) ResumeAll(ctx context.Context) error {
	return s.update(ctx, "resume all", func(t *Tx) error { return t.ResumeAll() })
}

// ResumeAll is Store.ResumeAll inside t.
func (t *Tx) ResumeAll() error {
	if err := t.SetFloorPaused(false); err != nil {
		return err
	}
	rows, err := t.tx.QueryContext(t.ctx, `SELECT name FROM agents WHERE paused != 0 ORDER BY name`)
	if err != nil {
		return opErr("resume all", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return opErr("resume all", err)
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return opErr("resume all", err)
	}
	for _, n := range names {
		if err := t.SetPaused(n, false); err != nil {
			return err
		}
	}
	return nil
}

// Paused returns the agent's own flag and the floor flag, read in one
// snapshot. Delivery of non-manual messages is paused if either is set. An
// absent agent is ErrUnknownAgent.
func (s *Store) Paused(ctx context.Context, agent string) (agentPaused, floorPaused bool, err error) {
	var a, f sql.NullInt64
	err = s.db.QueryRowContext(ctx,
		`SELECT (SELECT paused FROM agents WHERE name = ?), (SELECT v FROM meta WHERE k = 'floor_paused')`, agent).Scan(&a, &f)
	if err != nil {
		return false, false, opErr(fmt.Sprintf("paused %q", agent), err)
	}
	if !a.Valid {
		return false, false, opErr("paused", unknownAgent(agent, false))
	}
	return a.Int64 != 0, f.Int64 != 0, nil
}

// FloorPaused returns the floor-wide pause flag.
func (s *Store) FloorPaused(ctx context.Context) (bool, error) {
	var v int64
	if err := s.db.QueryRowContext(ctx, `SELECT v FROM meta WHERE k = 'floor_paused'`).Scan(&v); err != nil {
		return false, opErr("floor paused", err)
	}
	return v != 0, nil
}

// PausedAgents returns the names of agents whose own flag is set, sorted
// (the floor flag is not reflected here).
func (s *Store) PausedAgents(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM agents WHERE paused != 0`)
	if err != nil {
		return nil, opErr("paused agents", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, opErr("paused agents", err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("paused agents", err)
	}
	sort.Strings(out)
	return out, nil
}
