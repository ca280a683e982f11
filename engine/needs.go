package engine

// needs.go is the one definition of the needs-you list (docs/needs.md):
// every agent or item waiting on the person, oldest first, each with its
// reason and a short excerpt. ListNeeds is a pure function of what the
// engine already knows (gathered by Engine.Needs, needs_gather.go); the
// state message, the "needs" call, `office needs`, `office wait --until
// needs`, the needs events and the UI's list all read its answer.

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"office/automation"
	"office/drain"
	"office/wire"
)

// NeedsInput is what the needs-you list is made of.
type NeedsInput struct {
	// Host is this host's name in a clustered office ("").
	Host   string
	Agents []NeedAgent
	// Held are the queue's messages held for the person (set aside or
	// interrupted).
	Held []NeedHeld
	// Requests are the request mail to the person not answered yet.
	Requests []NeedRequest
	// Refused are the person's items another host refused, whose notice
	// the person has not read.
	Refused []NeedRefused
}

// NeedAgent is one agent's part of NeedsInput.
type NeedAgent struct {
	Name   string
	Parent string
	// Status is automation.Status's word (idle, busy, waiting, exited, ...).
	Status string
	// Hold is the drain's hold of its next message (drain.Hold's word).
	Hold string
	// Restart is its restart policy; ExitCode is set once it exited;
	// SpawnError when its process could not start.
	Restart    string
	ExitCode   *int
	SpawnError string
	// ExitedAt is when its process exited (or failed to start).
	ExitedAt time.Time
	// Dialog is its open dialog while Status is waiting (nil: none read).
	Dialog *NeedDialog
	// StalledSince is when the stall the watchdog noticed began (zero: not
	// stalled).
	StalledSince time.Time
	// TurnDone is when its last turn ended, zero while a turn runs or none
	// ended since it last started one; TurnText is the end of its reply.
	TurnDone time.Time
	TurnText string
}

// NeedDialog is a dialog on an agent's screen.
type NeedDialog struct {
	Since time.Time
	// Screen is the screen's text; Options its numbered options.
	Screen  string
	Options []string
}

// NeedHeld is a queue message held for the person.
type NeedHeld struct {
	ID    int64
	Agent string
	Text  string
	Since time.Time
}

// NeedRequest is a request mail to the person.
type NeedRequest struct {
	ID     string
	Sender string
	Title  string
	Body   string
	Since  time.Time
}

// NeedRefused is an item of the person's another host refused.
type NeedRefused struct {
	ID     string
	Agent  string // the receiver there
	Host   string // the host that refused it
	Reason string
	Since  time.Time
}

// needHolds maps a hold (drain.Hold's word) that only the person can lift
// to its needs reason: an agent held for a usage limit is listed even when
// its menu is not on screen, and one whose screen office does not know (a
// new dialog, say) is listed with that screen, since nothing is typed into
// it until the person acts.
var needHolds = map[string]string{
	string(drain.HoldUsageLimit):    wire.NeedUsageLimit,
	string(drain.HoldUnknownScreen): wire.NeedUnknown,
}

// ListNeeds returns the needs-you list of in, oldest first (ties by agent,
// reason, then ref).
func ListNeeds(in NeedsInput) []wire.Need {
	var out []wire.Need
	add := func(n wire.Need) {
		if n.Host == "" {
			n.Host = in.Host
		}
		n.Excerpt = Excerpt(n.Excerpt)
		out = append(out, n)
	}
	for _, a := range in.Agents {
		if n, ok := agentNeed(a); ok {
			add(n)
		}
	}
	for _, h := range in.Held {
		add(wire.Need{Agent: h.Agent, Reason: wire.NeedHeld, Since: h.Since, Excerpt: h.Text, Ref: strconv.FormatInt(h.ID, 10)})
	}
	for _, r := range in.Requests {
		text := r.Body
		if r.Title != "" {
			text = r.Title + ": " + r.Body
		}
		add(wire.Need{Agent: r.Sender, Reason: wire.NeedRequest, Since: r.Since, Excerpt: text, Ref: r.ID})
	}
	for _, r := range in.Refused {
		add(wire.Need{Agent: r.Agent, Host: r.Host, Reason: wire.NeedRefused, Since: r.Since, Excerpt: r.Reason, Ref: r.ID})
	}
	return wire.SortNeeds(out)
}

// agentNeed is what a's own state needs of the person, if anything: one
// item per agent, the first of a held usage limit, a dialog, an exit that
// its restart policy does not restart, a stall, a finished turn.
func agentNeed(a NeedAgent) (wire.Need, bool) {
	n := wire.Need{Agent: a.Name}
	exited := a.ExitCode != nil || a.SpawnError != ""
	switch {
	case needHolds[a.Hold] != "" && !exited:
		n.Reason = needHolds[a.Hold]
		if a.Dialog != nil {
			n.Since, n.Excerpt, n.Options = a.Dialog.Since, dialogQuestion(a.Dialog.Screen), a.Dialog.Options
		}
	case a.Status == automation.StatusWaiting.String() && a.Dialog != nil:
		n.Reason, n.Since, n.Excerpt, n.Options = wire.NeedDialog, a.Dialog.Since, dialogQuestion(a.Dialog.Screen), a.Dialog.Options
	case a.SpawnError != "":
		n.Reason, n.Since, n.Excerpt = wire.NeedFailed, a.ExitedAt, "could not start: "+a.SpawnError
	case a.ExitCode != nil:
		if RestartsAfter(a.Restart, *a.ExitCode) {
			return n, false // it restarts by itself
		}
		n.Reason, n.Since = wire.NeedExited, a.ExitedAt
		if *a.ExitCode != 0 {
			n.Reason = wire.NeedFailed
		}
		n.Excerpt = "exited with status " + strconv.Itoa(*a.ExitCode)
		if a.TurnText != "" {
			n.Excerpt += ": " + a.TurnText
		}
	case !a.StalledSince.IsZero() && a.Status == automation.StatusBusy.String():
		n.Reason, n.Since, n.Excerpt = wire.NeedStalled, a.StalledSince, "busy with no activity since "+a.StalledSince.UTC().Format(time.TimeOnly)
	case a.Parent == "" && !a.TurnDone.IsZero() && a.Status == automation.StatusIdle.String():
		n.Reason, n.Since, n.Excerpt = wire.NeedTurnDone, a.TurnDone, a.TurnText
	default:
		return n, false
	}
	return n, true
}

// dialogQuestion is what a dialog asks: the last two non-blank lines above
// its first numbered option (the whole screen's last lines when none can be
// read).
func dialogQuestion(screen string) string {
	lines := strings.Split(screen, "\n")
	end := len(lines)
	for i, l := range lines {
		if automation.IsNumberedOption(l) {
			end = i
			break
		}
	}
	var keep []string
	for i := end - 1; i >= 0 && len(keep) < 2; i-- {
		if l := strings.Trim(strings.TrimSpace(lines[i]), "│╭╮╰╯─ "); l != "" {
			keep = append([]string{l}, keep...)
		}
	}
	return strings.Join(keep, " ")
}

// Excerpt makes text one line of at most wire.MaxNeedExcerpt characters:
// control characters other than white space are dropped, runs of white
// space (new lines too) become one space, and a longer text is cut with "…".
func Excerpt(text string) string {
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, text)
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= wire.MaxNeedExcerpt {
		return s
	}
	r := []rune(s)
	return string(r[:wire.MaxNeedExcerpt-1]) + "…"
}
