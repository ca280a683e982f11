package wire

// ops.go is the table of calls: every operation a client can ask of the
// server, with what its agent field means, its arguments' type and its
// answer's type, declared once. The server registers a handler per entry
// (engine/ops.go refuses a name not here), the client library calls them
// through client.Do, and docs/protocol.md's table of calls is checked
// against Ops by a test.

// None is the arguments or the answer of a call that has none: nothing is
// sent for it (no "args", no "data").
type None struct{}

// AgentUse says what a call's agent field is.
type AgentUse int

const (
	// AgentNone: the call names no agent.
	AgentNone AgentUse = iota
	// AgentOptional: an agent, or none for every agent (or the floor).
	AgentOptional
	// AgentRequired: the agent the call is about.
	AgentRequired
)

// String is how docs/protocol.md's table says it.
func (u AgentUse) String() string {
	switch u {
	case AgentOptional:
		return "optional"
	case AgentRequired:
		return "required"
	}
	return "—"
}

// Op is one call: its name on the wire, what its agent field means, and
// (as type parameters) its arguments A and its answer R.
type Op[A, R any] struct {
	Name  string
	Agent AgentUse
}

// OpInfo is an Op without its types: an entry of Ops.
type OpInfo struct {
	Name  string
	Agent AgentUse
}

// Info returns the op's table entry.
func (o Op[A, R]) Info() OpInfo { return OpInfo(o) }

// The calls (docs/protocol.md, "call", has what each does).
var (
	// OpPoke: the store changed (a command wrote it); look now.
	OpPoke = Op[None, None]{"poke", AgentNone}
	// OpStatus: every agent's live state (of the floor, when clustered),
	// or the named one's.
	OpStatus = Op[None, []AgentStatus]{"status", AgentOptional}
	// OpExplain: what decided each status (`office status --explain`).
	OpExplain = Op[None, []Explanation]{"explain", AgentOptional}
	// OpHook: a CLI hook's report (`office hook EVENT`); a Stop's answer
	// may hand the queue's head over (HookResult).
	OpHook = Op[HookArgs, HookResult]{"hook", AgentRequired}
	// OpEnqueue: queue a message (as `office send`).
	OpEnqueue = Op[EnqueueArgs, EnqueueResult]{"enqueue", AgentRequired}
	// OpQueueList: the queued messages with why each is held.
	OpQueueList = Op[QueueListArgs, []QueuedMessage]{"queue.list", AgentOptional}
	// OpQueueRelease: send a message now (it ignores pause).
	OpQueueRelease = Op[IDArgs, None]{"queue.release", AgentNone}
	// OpQueueRemove: delete a message.
	OpQueueRemove = Op[IDArgs, None]{"queue.rm", AgentNone}
	// OpQueueClear: delete every message queued for the agent.
	OpQueueClear = Op[None, ClearResult]{"queue.clear", AgentRequired}
	// OpPause: stop automatic delivery to the agent, or to the floor.
	OpPause = Op[None, None]{"pause", AgentOptional}
	// OpResume: restart it; with no agent, clear every flag.
	OpResume = Op[None, None]{"resume", AgentOptional}
	// OpFloor: set the floor-wide pause flag alone.
	OpFloor = Op[FloorArgs, None]{"floor", AgentNone}
	// OpLimitRelease: end the usage-limit holds of an agent's account, or
	// of every account.
	OpLimitRelease = Op[None, LimitReleaseResult]{"limit_release", AgentOptional}
	// OpClusterFloor: this host, the floor's others, their last-known
	// agents (clustered only).
	OpClusterFloor = Op[None, Floor]{"cluster.floor", AgentNone}
	// OpPickerClose: Esc for the person; releases the picker latch.
	OpPickerClose = Op[None, None]{"picker.close", AgentRequired}
	// OpPromptRecover: Ctrl-U for the person; the draft it cleared.
	OpPromptRecover = Op[None, RecoverResult]{"prompt.recover", AgentRequired}
	// OpRestart: stop the agent's process and start it again.
	OpRestart = Op[None, None]{"restart", AgentRequired}
	// OpTeam: the roster (`office team`).
	OpTeam = Op[None, []TeamMember]{"team", AgentNone}
	// OpTeamAdd: add an agent (`office team add`).
	OpTeamAdd = Op[TeamAddArgs, TeamAddResult]{"team.add", AgentNone}
	// OpTeamRemove: remove an added agent (`office team rm`).
	OpTeamRemove = Op[TeamRmArgs, None]{"team.rm", AgentNone}
	// OpApprove: answer a permission dialog (`office approve`).
	OpApprove = Op[ApproveArgs, ApproveResult]{"approve", AgentNone}
	// OpNeeds: the needs-you list (of the agent, when one is named).
	OpNeeds = Op[None, []Need]{"needs", AgentOptional}
	// OpMessage: where a queue message is now.
	OpMessage = Op[IDArgs, MessageFate]{"message", AgentNone}
	// OpHistory: the agent's screen and its history lines (`office
	// history`).
	OpHistory = Op[HistoryArgs, HistoryReply]{"history", AgentRequired}
	// OpStop: stop the office (every client gets Bye).
	OpStop = Op[None, None]{"stop", AgentNone}
	// OpMailList: the newest mail, in one state or all (`office mail ls`).
	OpMailList = Op[MailListArgs, MailList]{"mail.list", AgentNone}
	// OpMailShow: one mail with its text and timeline (`office mail show`).
	OpMailShow = Op[MailIDArgs, MailShown]{"mail.show", AgentNone}
	// OpPersonInbox: the newest items waiting for the person, oldest first
	// (`office inbox --person`).
	OpPersonInbox = Op[None, []InboxItem]{"inbox.person", AgentNone}
	// OpMailReply: answer request mail as the person (`office mail reply`),
	// through the floor when it came from another host.
	OpMailReply = Op[MailReplyArgs, MailReplyResult]{"mail.reply", AgentNone}
)

// Ops is every call, in docs/protocol.md's order.
var Ops = []OpInfo{
	OpPoke.Info(), OpStatus.Info(), OpExplain.Info(), OpHook.Info(), OpEnqueue.Info(), OpQueueList.Info(),
	OpQueueRelease.Info(), OpQueueRemove.Info(), OpQueueClear.Info(), OpPause.Info(), OpResume.Info(),
	OpFloor.Info(), OpLimitRelease.Info(), OpClusterFloor.Info(), OpPickerClose.Info(),
	OpPromptRecover.Info(), OpRestart.Info(), OpTeam.Info(), OpTeamAdd.Info(), OpTeamRemove.Info(),
	OpApprove.Info(), OpNeeds.Info(), OpHistory.Info(), OpMessage.Info(),
	OpMailList.Info(), OpMailShow.Info(), OpPersonInbox.Info(), OpMailReply.Info(), OpStop.Info(),
}

// LookupOp returns the table's entry named name.
func LookupOp(name string) (OpInfo, bool) {
	for _, o := range Ops {
		if o.Name == name {
			return o, true
		}
	}
	return OpInfo{}, false
}

// EnqueueArgs are "enqueue"'s arguments. Agent, when set, names the
// receiver instead of the call's agent field.
type EnqueueArgs struct {
	Agent  string `json:"agent,omitempty"`
	Text   string `json:"text"`
	Source string `json:"source,omitempty"`
}

// QueueListArgs are "queue.list"'s arguments; Agent, when set, names the
// agent instead of the call's agent field ("" lists every agent).
type QueueListArgs struct {
	Agent string `json:"agent,omitempty"`
}

// IDArgs name one queue message.
type IDArgs struct {
	ID int64 `json:"id"`
}

// ClearResult answers "queue.clear": how many messages it deleted.
type ClearResult struct {
	Cleared int `json:"cleared"`
}

// FloorArgs are "floor"'s arguments.
type FloorArgs struct {
	Paused bool `json:"paused"`
}

// LimitReleaseResult answers "limit_release": the agents whose
// usage-limit hold ended.
type LimitReleaseResult struct {
	Released []string `json:"released"`
}

// RecoverResult answers "prompt.recover": the draft Ctrl-U cleared.
type RecoverResult struct {
	Text string `json:"text"`
}

// TeamAddArgs are "team.add"'s arguments.
type TeamAddArgs struct {
	Spec TeamSpec `json:"spec"`
}

// TeamAddResult answers "team.add": the agent added.
type TeamAddResult struct {
	Name    string `json:"name"`
	Profile string `json:"profile"`
}

// TeamRmArgs are "team.rm"'s arguments.
type TeamRmArgs struct {
	Name string `json:"name"`
	By   string `json:"by,omitempty"`
}

// ApproveArgs are "approve"'s arguments (the call's agent field is not
// used: Agent names it).
type ApproveArgs struct {
	Agent  string `json:"agent"`
	Option string `json:"option"`
	// By is who approves: an agent (OFFICE_AGENT) or "" for the person.
	By string `json:"by,omitempty"`
}

// ApproveResult answers "approve": the option's number it chose; for an
// agent of another host of the floor, that host and the approval's id, and
// Stored when its outcome was not known in time (it comes as a notice).
type ApproveResult struct {
	Option string `json:"option,omitempty"`
	Host   string `json:"host,omitempty"`
	ID     string `json:"id,omitempty"`
	Stored bool   `json:"stored,omitempty"`
}
