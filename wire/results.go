package wire

// results.go holds the types that calls carry (ops.go names the calls):
// what the server answers and what a client sends, declared once here so
// the server, the client library and every command use the same ones.

import "time"

// AgentStatus is one agent's live state, as `office status` shows it.
type AgentStatus struct {
	Name    string `json:"name"`
	Profile string `json:"profile"`
	// Role and Parent are the agent's, as configured or added.
	Role     string `json:"role,omitempty"`
	Parent   string `json:"parent,omitempty"`
	Status   string `json:"status"`
	Signal   string `json:"signal"`
	Draft    bool   `json:"draft"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Pid      int    `json:"pid,omitempty"`
	Hold     string `json:"hold,omitempty"`
	Error    string `json:"error,omitempty"`
	// Restart is its restart policy (configs.RestartNever, ...); RestartAt,
	// once its process exited, when the restart its policy asked for runs
	// (zero: none pending).
	Restart   string    `json:"restart,omitempty"`
	RestartAt time.Time `json:"restart_at,omitzero"`
	// Turn: a turn is open (submitted, its end not yet seen), or its end is
	// not yet settled (mail, notices, the journal check).
	Turn bool `json:"turn,omitempty"`
	// LimitAt and LimitRetry: the usage-limit hold's reset, or (LimitRetry)
	// its retry when none was printed, while the status is "usage limit".
	LimitAt    time.Time `json:"limit_at,omitzero"`
	LimitRetry bool      `json:"limit_retry,omitempty"`
	// Placement says its host in a clustered office (FloorStatus).
	Placement
}

// Placement says where an agent of a clustered office runs and how fresh
// its row is. Every field is empty in an office without a [cluster] table.
type Placement struct {
	// Host is the host the agent runs on (this host's name for its own).
	Host string `json:"host,omitempty"`
	// Remote: the agent runs on another host of the floor; its row is
	// that host's roster as this host last read it.
	Remote bool `json:"remote,omitempty"`
	// HostReachable says whether Host's server answered this host just
	// now (its heartbeat, within cluster.Unreachable; always true for this
	// host's own agents). Nil without a cluster.
	HostReachable *bool `json:"host_reachable,omitempty"`
	// HostLastSeen is when Host's server last answered this host (remote rows;
	// after a restart of this server with Host down: when it last stored
	// a change of it, an earlier bound; zero: never).
	HostLastSeen time.Time `json:"host_last_seen,omitzero"`
	// LastKnown: Host is unreachable, so the status (and the rest of the
	// row) is the last one read from it, not its agent's status now.
	LastKnown bool `json:"last_known,omitempty"`
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
	// Delivery is the channel the agent's messages take where the
	// channel's gates pass (ChannelStopHook), or ChannelTyped for none
	// (docs/channels.md); LastMsgID and LastChannel are the last message
	// recorded delivered to it by this office and the channel that
	// carried it (0 and "": none yet).
	Delivery    string `json:"delivery,omitempty"`
	LastMsgID   int64  `json:"last_msg_id,omitempty"`
	LastChannel string `json:"last_channel,omitempty"`
}

// ExplainStep is one step of the judge and what it found.
type ExplainStep struct {
	Signal  string `json:"signal"`
	Says    string `json:"says"`   // the status it says, "" for nothing
	Detail  string `json:"detail"` // the evidence
	Decides bool   `json:"decides,omitempty"`
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
	// Session is the payload's session_id: the conversation the CLI is in
	// now (Claude Code may start a new one, after a first-run offer).
	Session string `json:"session,omitempty"`
	// Error, ErrorDetails and LastMessage are a StopFailure's error,
	// error_details and last_assistant_message (engine/limits_hook.go).
	Error        string `json:"error,omitempty"`
	ErrorDetails string `json:"error_details,omitempty"`
	LastMessage  string `json:"last_message,omitempty"`
	// PromptID and StopHookActive are a Stop's prompt_id and
	// stop_hook_active: the turn it ends, and whether a Stop hook
	// blocked that turn's end before (the channel's count of blocks in a
	// row, drain/handover.go).
	PromptID       string `json:"prompt_id,omitempty"`
	StopHookActive bool   `json:"stop_hook_active,omitempty"`
	// Undecoded: the payload did not decode whole (not JSON, cut at
	// `office hook`'s read bound, or none read in time), so the fields
	// above are unknown: PromptID and StopHookActive among them, without
	// which the channel cannot count a turn's blocks, so a Stop so
	// reported hands nothing over.
	Undecoded bool `json:"undecoded,omitempty"`
}

// HookResult answers "hook": empty, or for a Stop the server handed a
// message over through (docs/channels.md), Reason is its text and
// Channel the channel's word (ChannelStopHook): `office hook` prints
// {"decision":"block","reason":Reason} for the CLI, which goes on with
// Reason as its next instruction.
type HookResult struct {
	Reason  string `json:"reason,omitempty"`
	Channel string `json:"channel,omitempty"`
	MsgID   int64  `json:"msg_id,omitempty"`
}

// TeamSpec is an agent added with `office team add`, as stored in the
// registry (queue.AgentRecord.Spec, JSON).
type TeamSpec struct {
	Name    string            `json:"name"`
	Profile string            `json:"profile,omitempty"`
	Command []string          `json:"command,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Role    string            `json:"role,omitempty"`
	Parent  string            `json:"parent,omitempty"`
	Task    string            `json:"task,omitempty"`
}

// TeamMember is one roster row, as `office team` shows it.
type TeamMember struct {
	Name    string `json:"name"`
	Role    string `json:"role,omitempty"`
	Profile string `json:"profile"`
	Parent  string `json:"parent,omitempty"`
	Task    string `json:"task,omitempty"`
	Status  string `json:"status"`
	// Queue counts the agent's queued messages; Inbox its undelivered
	// inbox items.
	Queue int `json:"queue"`
	Inbox int `json:"inbox"`
	// Added: it joined with `office team add` (not from the config file).
	Added bool `json:"added"`
	// Placement says its host in a clustered office; an agent of another
	// host has no queue or inbox here (0) and Added false.
	Placement
}

// HistoryReply answers the "history" call: the agent's screen and where it
// starts in its history.
type HistoryReply struct {
	// Total is the number of history lines before the screen: the lines
	// numbered below Total, all written to the history file when Persisted.
	Total int64 `json:"total"`
	// Persisted says every line before Total is in the file.
	Persisted bool `json:"persisted"`
	// Live is false when the screen's rows are already in the history
	// (the agent's output ended): print the history alone.
	Live bool `json:"live"`
	// Cols is the screen's width.
	Cols int `json:"cols"`
	// Screen holds the screen's rows, each in pool.AppendLine form.
	Screen [][]byte `json:"screen"`
	// First is the number of the oldest line the office holds, and Rows
	// the lines HistoryArgs asked for (From to To, as held), each in
	// pool.AppendLine form: what a view of another process shows.
	First int64    `json:"first"`
	Rows  [][]byte `json:"rows,omitempty"`
}

// HistoryArgs are the optional arguments of "history": the lines [From, To)
// to return in HistoryReply.Rows (at most MaxHistoryRows of them).
type HistoryArgs struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Floor is the answer of the "cluster.floor" call (not "floor", the
// floor-wide pause): this host, what it knows of the
// others and their agents (the last-known roster).
type Floor struct {
	Host    string      `json:"host"`
	Name    string      `json:"name"`
	Hosts   []HostState `json:"hosts"`
	Members []Member    `json:"members"`
	// Clashes are this host's agent names another host has too.
	Clashes []NameClash `json:"clashes,omitempty"`
}

// HostState is what this host knows of one host of the floor.
type HostState struct {
	Host string `json:"host"`
	// Reachable: its server answered (its heartbeat) within Unreachable.
	Reachable bool `json:"reachable"`
	// LastSeen is when its server last answered (zero: never).
	LastSeen time.Time `json:"last_seen,omitzero"`
	// Error is why the last read failed.
	Error string `json:"error,omitempty"`
	// Outbox is how many items for it wait here.
	Outbox int `json:"outbox"`
}

// Member is one agent of the floor as the roster holds it.
type Member struct {
	Name    string `json:"name"`
	Host    string `json:"host"`
	Profile string `json:"profile,omitempty"`
	Role    string `json:"role,omitempty"`
	Parent  string `json:"parent,omitempty"`
	Status  string `json:"status,omitempty"`
	// Seen is when this host last read the member from its host's roster.
	Seen time.Time `json:"seen"`
	// Since is when the agent joined its host (its name was registered
	// there), by that host's clock; it orders a name clash (NameClash). It
	// is not kept in the last-known roster.
	Since time.Time `json:"since,omitzero"`
}

// NameClash is an agent name this host and Host both run (two `team add`
// of one new name at the same moment, or hosts that had not met). Later is
// the host whose agent joined last (Member.Since by each host's clock; on
// a tie, or with a time unknown, the greater host name): both hosts name
// the same one. Nothing is refused: each host delivers to its own agent of
// that name, and a third host to the one it read first.
type NameClash struct {
	Agent string `json:"agent"`
	Host  string `json:"host"`
	Later string `json:"later"`
}
