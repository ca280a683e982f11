package inbox

// render.go holds the pure rendering functions: an item as the agent reads
// it, a delivery batch, the seed's notification texts, mail prompts, the
// permission-request notice, the opening brief and the journal template.
// Nothing here reads the store or the clock; goldens in testdata/ pin them.

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Item is one inbox item as stored.
type Item struct {
	// Seq is the order the database assigned (send order).
	Seq int64 `json:"seq"`
	// ID is the item's ULID (a mail's id too).
	ID       string `json:"id"`
	Receiver string `json:"receiver"`
	// Sender is an agent, Person, or "" for office itself.
	Sender    string `json:"sender"`
	Kind      string `json:"kind"`
	Body      string `json:"body"`
	DedupeKey string `json:"dedupe_key,omitempty"`
	State     string `json:"state"`
	// LeaseMsg is the queue message the item is leased by (0: none).
	LeaseMsg  int64     `json:"lease_msg,omitempty"`
	Attempts  int       `json:"attempts"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	Delivered time.Time `json:"delivered,omitzero"`
	// Mail is the envelope of a KindMail item (nil otherwise).
	Mail *Mail `json:"mail,omitempty"`
}

// SentAtLayout is how sent_at is written: RFC 3339 in UTC with milliseconds.
const SentAtLayout = "2006-01-02T15:04:05.000Z"

// Read-only after init.
var (
	closeInbox  = regexp.MustCompile(`(?i)</inbox`)
	closeNote   = regexp.MustCompile(`(?i)</actor-notification`)
	attrEscaper = strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;")
)

// escapeBody keeps a body from closing the element around it.
func escapeBody(b string) string {
	if !strings.Contains(b, "</") {
		return b
	}
	b = closeInbox.ReplaceAllStringFunc(b, func(m string) string { return "<\\/" + m[2:] })
	return closeNote.ReplaceAllStringFunc(b, func(m string) string { return "<\\/" + m[2:] })
}

// attr escapes an attribute value (one line, no quotes or angle brackets).
func attr(v string) string {
	return attrEscaper.Replace(oneLine(v))
}

// shownBody is the body as delivered: whole, or for a body over
// PreviewThreshold its first PreviewBytes and the command that shows it all.
func shownBody(it Item) string {
	if len(it.Body) <= PreviewThreshold {
		return it.Body
	}
	cut := PreviewBytes
	for cut > 0 && !utf8.RuneStart(it.Body[cut]) {
		cut--
	}
	show := "office inbox show " + it.ID
	if it.Kind == KindMail {
		show = "office mail show " + it.ID
	}
	return fmt.Sprintf("%s\n… (%d bytes in all; run `%s` to read the rest)", it.Body[:cut], len(it.Body), show)
}

// RenderItem renders one item as the agent reads it. Text and mail are an
// <inbox> element (mail adds type, title and in_reply_to, and its body is
// seed 004's inform or request prompt); a notification is an
// <actor-notification> element. Both carry the id so a repeat can be
// recognised.
func RenderItem(it Item) string {
	sent := it.Created.UTC().Format(SentAtLayout)
	if it.Kind == KindNotification {
		return fmt.Sprintf("<actor-notification sent_at=\"%s\" id=\"%s\">\n%s\n</actor-notification>",
			sent, attr(it.ID), escapeBody(shownBody(it)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<inbox from="%s" sent_at="%s" id="%s"`, attr(senderName(it.Sender)), sent, attr(it.ID))
	body := shownBody(it)
	if it.Kind == KindMail && it.Mail != nil {
		m := it.Mail
		fmt.Fprintf(&b, ` type="%s" title="%s"`, attr(m.Type), attr(m.Title))
		if m.InReplyTo != "" {
			fmt.Fprintf(&b, ` in_reply_to="%s"`, attr(m.InReplyTo))
		}
		body = MailPrompt(*m, body)
	}
	b.WriteString(">\n")
	b.WriteString(escapeBody(body))
	b.WriteString("\n</inbox>")
	return b.String()
}

// batchHeader opens every delivery.
func batchHeader(n int) string {
	if n == 1 {
		return "[office] 1 new inbox item (if you have already seen its id, ignore it):"
	}
	return fmt.Sprintf("[office] %d new inbox items, oldest first (if you have already seen an id, ignore that item):", n)
}

// RenderBatch renders items (already chosen, in send order) as one
// delivery's text.
func RenderBatch(items []Item) string {
	parts := make([]string, 0, len(items)+1)
	parts = append(parts, batchHeader(len(items)))
	for _, it := range items {
		parts = append(parts, RenderItem(it))
	}
	return strings.Join(parts, "\n\n")
}

// Batch chooses and renders one delivery from items (in send order), as
// SelectBatch and RenderBatch would, rendering each item once. It returns
// the text and how many items it took.
func Batch(items []Item, maxItems, maxBytes int) (string, int) {
	parts := make([]string, 1, min(len(items), maxItems)+1)
	size := 0
	for i, it := range items {
		if i == maxItems {
			break
		}
		r := RenderItem(it)
		size += len(r) + 2
		if i > 0 && size > maxBytes {
			break
		}
		parts = append(parts, r)
	}
	n := len(parts) - 1
	if n == 0 {
		return "", 0
	}
	parts[0] = batchHeader(n)
	return strings.Join(parts, "\n\n"), n
}

// SelectBatch returns how many of items (in send order) one delivery takes:
// at most maxItems, and no more than fit in maxBytes once rendered, but
// always at least one when there is one.
func SelectBatch(items []Item, maxItems, maxBytes int) int {
	size := 0
	for i, it := range items {
		if i == maxItems {
			return i
		}
		size += len(RenderItem(it)) + 2
		if i > 0 && size > maxBytes {
			return i
		}
	}
	return len(items)
}

// MailPrompt is seed 004's short prompt for mail (English): who, title, text,
// and for a request the exact reply command. body is the text to show (the
// mail's text, or its preview).
func MailPrompt(m Mail, body string) string {
	from := senderName(m.Sender)
	if m.Type == MailRequest {
		return fmt.Sprintf("You have mail that needs a reply.\n\nFrom: %s\nTitle: %s\nText: %s\n\n"+
			"Handle it, then reply to the sender with exactly this command (your reply replaces YOUR REPLY):\n"+
			"office mail reply %s \"YOUR REPLY\"", from, m.Title, body, m.ID)
	}
	return fmt.Sprintf("You have mail (for your information).\n\nFrom: %s\nTitle: %s\nText: %s\n\nRead it; no action or reply is needed.",
		from, m.Title, body)
}

// NoticeKind is what happened to a child agent.
type NoticeKind string

// The notices of seed 000's family.
const (
	// NoticeCompleted: a turn ended (the wording depends on the report).
	NoticeCompleted NoticeKind = "completed"
	// NoticeFailed: the process exited with an error.
	NoticeFailed NoticeKind = "failed"
	// NoticeStalled: busy with no activity for a while.
	NoticeStalled NoticeKind = "stalled"
	// NoticeCancelled: stopped by the person or a command.
	NoticeCancelled NoticeKind = "cancelled"
)

// Reported outcomes (`office report`).
const (
	ReportSuccess = "success"
	ReportPartial = "partial"
	ReportFailed  = "failed"
	ReportBlocked = "blocked"
)

// ValidReport reports whether s is an outcome `office report` accepts.
func ValidReport(s string) bool {
	switch s {
	case ReportSuccess, ReportPartial, ReportFailed, ReportBlocked:
		return true
	}
	return false
}

// Notice is one notice about a child agent, to render for its parent.
type Notice struct {
	Kind NoticeKind
	// Desc is the child's role, else its name.
	Desc string
	// Agent is the child's name.
	Agent string
	// Status is the child's own report for a completed turn ("" when it did
	// not report).
	Status string
	// Summary is the child's report summary.
	Summary string
	// Result is the last reply lines read from the child's screen.
	Result string
	// Error says why a failed child failed.
	Error string
	// Quiet is how long a stalled child has shown no activity.
	Quiet time.Duration
}

// RenderNotice renders n in seed 000's wording: the first line is
// `Background sub-session "DESC" (actor_id: NAME) ...` and ends in
// completed. / finished (status: S). / ended (status not reported). /
// failed. / appears stalled (no activity for Ns). / was cancelled.
func RenderNotice(n Notice) string {
	head := fmt.Sprintf("Background sub-session %q (actor_id: %s) ", oneLine(n.Desc), n.Agent)
	var lines []string
	add := func(label, v string) {
		if v = strings.TrimSpace(v); v != "" {
			lines = append(lines, label+": "+v)
		}
	}
	switch n.Kind {
	case NoticeCompleted:
		switch n.Status {
		case ReportSuccess, ReportPartial:
			head += "completed."
			add("Status", n.Status)
		case ReportFailed, ReportBlocked:
			head += fmt.Sprintf("finished (status: %s).", n.Status)
		default:
			head += "ended (status not reported)."
		}
		add("Summary", n.Summary)
		add("Result", n.Result)
	case NoticeFailed:
		head += "failed."
		add("Error", n.Error)
		add("Result", n.Result)
	case NoticeStalled:
		head += fmt.Sprintf("appears stalled (no activity for %ds).", int(n.Quiet.Seconds()))
		lines = append(lines, "Look at its pane, send it a nudge (office send "+n.Agent+" ...), or stop it (office team rm "+n.Agent+").")
	case NoticeCancelled:
		head += "was cancelled."
	default:
		head += string(n.Kind) + "."
	}
	return strings.Join(append([]string{head}, lines...), "\n")
}

// MailFailedNotice tells a sender its mail failed.
func MailFailedNotice(m Mail, reason string) string {
	return fmt.Sprintf("Mail %q (id %s) to %s failed: %s.\nSee: office mail show %s", oneLine(m.Title), m.ID, m.Receiver, reason, m.ID)
}

// DeadLetterNotice tells a sender an item was never delivered.
func DeadLetterNotice(it Item, why string) string {
	return fmt.Sprintf("Your %s %s to %s was never delivered (%s); it is now a dead letter.\nIt began: %s",
		it.Kind, it.ID, it.Receiver, why, preview(it.Body))
}

// PermissionRequest is the notice forwarding a child's dialog to its parent
// (or the person): the dialog's text, its options, and the command that
// answers it.
func PermissionRequest(agent, dialog string, options []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<permission-request agent=\"%s\">\n%s is waiting on a dialog:\n%s\n", attr(agent), agent, strings.TrimSpace(dialog))
	if len(options) > 0 {
		b.WriteString("Options:\n")
		for _, o := range options {
			b.WriteString("  " + o + "\n")
		}
	}
	fmt.Fprintf(&b, "Answer with: office approve %s OPTION (an option number or its label)\n</permission-request>", agent)
	return b.String()
}

// Brief is what the opening brief says about one agent.
type Brief struct {
	Name, Role, Task, Parent string
	// Journal is the task's progress.md path ("" without a task).
	Journal string
}

// RenderBrief renders the opening brief: the agent's name, role, task, and
// the office commands it can run.
func RenderBrief(b Brief) string {
	var s strings.Builder
	fmt.Fprintf(&s, "[office] You are %q in an office of coding agents.", b.Name)
	if b.Role != "" {
		fmt.Fprintf(&s, " Your role: %s.", oneLine(b.Role))
	}
	if b.Parent != "" {
		fmt.Fprintf(&s, " You report to %s.", b.Parent)
	}
	if b.Task != "" {
		fmt.Fprintf(&s, "\nYour task: %s. Keep its progress journal at %s (headings ## §1 .. ## §5).", oneLine(b.Task), b.Journal)
	}
	s.WriteString("\nMessages reach you as <inbox> and <actor-notification> blocks; skip any id you have already seen.")
	s.WriteString("\nCommands you can run from your shell:")
	s.WriteString("\n  office team                                   who is in the office")
	s.WriteString("\n  office mail send --to AGENT --title T TEXT    mail for information (--request: ask for a reply)")
	s.WriteString("\n  office mail reply ID TEXT                     answer a request")
	s.WriteString("\n  office mail ls | office mail show ID          your mail and its state")
	s.WriteString("\n  office report success|partial|failed|blocked [SUMMARY]   your outcome, for your parent")
	s.WriteString("\nNo reply to this message is needed.")
	return s.String()
}

// JournalHeadings are the five headings progress.md must contain (seed 000).
var JournalHeadings = [5]string{
	"## §1 Task identity",
	"## §2 Plan",
	"## §3 Progress",
	"## §4 Open questions and blockers",
	"## §5 Outcome and discoveries",
}

// JournalPrefixes are the prefixes the check looks for (docs/design.md §5).
var JournalPrefixes = [5]string{"## §1", "## §2", "## §3", "## §4", "## §5"}

// JournalContinuation is the text sent to an agent whose journal is missing
// or incomplete: seed 000's first line, the path, and the template.
func JournalContinuation(path, task string, missing []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Before terminating, write the task progress journal to: %s\n", path)
	if len(missing) > 0 {
		fmt.Fprintf(&b, "Missing headings: %s\n", strings.Join(missing, ", "))
	}
	b.WriteString("Use this template (keep the five headings exactly):\n\n")
	fmt.Fprintf(&b, "%s\nTask: %s\n\n%s\n\n%s\n\n%s\n\n%s\n", JournalHeadings[0], oneLine(task),
		JournalHeadings[1], JournalHeadings[2], JournalHeadings[3], JournalHeadings[4])
	return b.String()
}

// oneLine joins a string's fields with single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
