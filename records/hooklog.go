package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"
)

// HookLogFile is the name of an agent's hook log in its state folder.
const HookLogFile = "hooks.jsonl"

// maxHookLog is the size past which the hook log is rotated (the previous
// one is kept as HookLogFile + ".1"), so it never grows without bound.
const maxHookLog = 2 << 20

// HookRecord is what office keeps of one Claude Code hook payload: the
// evidence events only (UserPromptSubmit: the prompt as Claude received it;
// Stop: its last reply; PreToolUse: a tool call, the work a turn did that
// its last reply may not show).
type HookRecord struct {
	Event string    `json:"event"`
	At    time.Time `json:"at"`
	// Prompt is UserPromptSubmit's prompt.
	Prompt string `json:"prompt,omitempty"`
	// Reply is Stop's last_assistant_message.
	Reply string `json:"reply,omitempty"`
	// Session and Transcript are the payload's session_id and
	// transcript_path.
	Session    string `json:"session,omitempty"`
	Transcript string `json:"transcript,omitempty"`
}

// The hook events that carry evidence.
const (
	HookPromptSubmit = "UserPromptSubmit"
	HookStop         = "Stop"
	HookPreToolUse   = "PreToolUse"
)

// HookFromPayload reads an evidence record from a hook's JSON payload (the
// stdin of `office hook EVENT`), dated at. ok is false for events that carry
// no evidence and for payloads that do not parse.
func HookFromPayload(event string, payload []byte, at time.Time) (HookRecord, bool) {
	var p struct {
		HookEventName        string `json:"hook_event_name"`
		SessionID            string `json:"session_id"`
		TranscriptPath       string `json:"transcript_path"`
		Prompt               string `json:"prompt"`
		LastAssistantMessage string `json:"last_assistant_message"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return HookRecord{}, false
	}
	if event == "" {
		event = p.HookEventName
	}
	r := HookRecord{Event: event, At: at.UTC(), Session: p.SessionID, Transcript: p.TranscriptPath}
	switch event {
	case HookPromptSubmit:
		if p.Prompt == "" {
			return HookRecord{}, false
		}
		r.Prompt = bound(p.Prompt)
	case HookStop:
		r.Reply = bound(p.LastAssistantMessage)
	case HookPreToolUse:
	default:
		return HookRecord{}, false
	}
	return r, true
}

// entry is the record as a conversation entry (a Stop without reply text is
// none).
func (h HookRecord) entry() (Entry, bool) {
	switch {
	case h.Event == HookPromptSubmit && h.Prompt != "":
		return Entry{Role: RoleUser, Text: h.Prompt, At: h.At, Source: SourceHook}, true
	case h.Event == HookStop && h.Reply != "":
		return Entry{Role: RoleAssistant, Text: h.Reply, At: h.At, Source: SourceHook}, true
	case h.Event == HookPreToolUse:
		return Entry{Role: RoleTool, Text: "tool_use", At: h.At, Source: SourceHook}, true
	}
	return Entry{}, false
}

// AppendHook appends r to the hook log at path as one JSON line and fsyncs
// it, so the evidence survives a crash of office or the machine right after.
// The file is created 0600 and never followed through a symlink; past
// maxHookLog bytes it is rotated first.
func AppendHook(path string, r HookRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("records: hook log: %w", err)
	}
	b = append(b, '\n')
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size()+int64(len(b)) > maxHookLog {
		if err := os.Rename(path, path+".1"); err != nil {
			return fmt.Errorf("records: rotate hook log: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("records: hook log: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("records: hook log %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("records: hook log %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("records: hook log %s: %w", path, err)
	}
	return nil
}

// ReadHooks returns the hook log's records, oldest first (the rotated log's
// first). A line cut short by a crash is skipped; a missing log is none.
func ReadHooks(path string) ([]HookRecord, error) {
	var out []HookRecord
	for _, p := range []string{path + ".1", path} {
		b, err := tail(p, 0)
		if err != nil {
			return nil, err
		}
		for line := range bytes.SplitSeq(b, []byte("\n")) {
			var r HookRecord
			if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &r) != nil {
				continue
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// HookEntries returns the hook log's records as conversation entries (no
// transcript is read).
func HookEntries(path string) ([]Entry, error) {
	hs, err := ReadHooks(path)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, h := range hs {
		if e, ok := h.entry(); ok {
			out = append(out, e)
		}
	}
	return out, nil
}
