package inbox

// journal.go is the progress-journal check (seed 000's progress checker):
// an agent bound to a task must leave STATE/tasks/TASK/progress.md with the
// five headings when its turn ends; if not it is sent the template as a
// continuation, at most Options.JournalContinuations times, then its parent
// is told.
// When it passes, a written-at front-matter stamp is added.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"office/queue"
)

// JournalPath is where task's journal lives under stateDir. The task name
// is made safe for a file name (anything but letters, digits, '.', '_' and
// '-' becomes '-'; no leading dot).
func JournalPath(stateDir, task string) string {
	var b strings.Builder
	for _, r := range task {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	name := strings.TrimLeft(b.String(), ".")
	if name == "" {
		name = "task"
	}
	return filepath.Join(stateDir, "tasks", name, "progress.md")
}

// MissingHeadings returns the journal prefixes absent from text (each must
// start a line).
func MissingHeadings(text string) []string {
	var missing []string
	for i, p := range JournalPrefixes {
		found := false
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimRight(l, "\r"), p) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, JournalHeadings[i])
		}
	}
	return missing
}

// Stamp returns text with a front-matter block whose written-at is at
// (replacing an earlier written-at, keeping other keys).
func Stamp(text string, at time.Time) string {
	stamp := "written-at: " + at.UTC().Format(time.RFC3339)
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if fm, body, ok := strings.Cut(rest, "\n---\n"); ok {
			var keep []string
			for _, l := range strings.Split(fm, "\n") {
				if !strings.HasPrefix(l, "written-at:") && l != "" {
					keep = append(keep, l)
				}
			}
			keep = append(keep, stamp)
			return "---\n" + strings.Join(keep, "\n") + "\n---\n" + body
		}
	}
	return "---\n" + stamp + "\n---\n" + text
}

// JournalCheck is one agent's journal check at its turn end.
type JournalCheck struct {
	Agent, Task, Path string
	// Parent is told when the tries run out ("" means the person).
	Parent, Desc string
}

// JournalVerdict is what CheckJournal did.
type JournalVerdict struct {
	// Passed: all five headings are there (the file was stamped).
	Passed bool
	// Continued: the template was queued for the agent (try number Try).
	Continued bool
	Try       int
	// GaveUp: the tries ran out; the parent was told (once).
	GaveUp bool
}

// CheckJournal checks c's journal at now. Passing stamps written-at and
// resets the count; failing queues the continuation (a plain queue message,
// Source "journal") up to Options.JournalContinuations times, then tells the
// parent once.
func (s *Service) CheckJournal(ctx context.Context, c JournalCheck, now time.Time) (JournalVerdict, error) {
	data, err := os.ReadFile(c.Path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return JournalVerdict{}, fmt.Errorf("inbox: journal of %q: %w", c.Agent, err)
	}
	missing := MissingHeadings(string(data))
	if err != nil {
		missing = JournalHeadings[:]
	}
	var v JournalVerdict
	if len(missing) == 0 {
		if err := os.WriteFile(c.Path, []byte(Stamp(string(data), now)), 0o600); err != nil {
			return JournalVerdict{}, fmt.Errorf("inbox: stamp journal of %q: %w", c.Agent, err)
		}
		v.Passed = true
	}
	err = s.store.Update(ctx, func(tx *queue.Tx) error {
		if v.Passed {
			_, err := tx.SQL().ExecContext(tx.Context(), `DELETE FROM inbox_journal WHERE agent = ? AND task = ?`, c.Agent, c.Task)
			if err != nil {
				return err
			}
			return tx.AppendEvent(queue.Event{Agent: c.Agent, Kind: EventJournal, Detail: "journal complete: " + c.Path})
		}
		var tries int
		e := tx.SQL().QueryRowContext(tx.Context(), `SELECT tries FROM inbox_journal WHERE agent = ? AND task = ?`, c.Agent, c.Task).Scan(&tries)
		if e != nil && !errors.Is(e, sql.ErrNoRows) {
			return e
		}
		maxTries := s.opts.JournalContinuations
		if tries > maxTries {
			return nil // already gave up and told the parent
		}
		tries++
		if _, err := tx.SQL().ExecContext(tx.Context(), `INSERT INTO inbox_journal (agent, task, tries) VALUES (?, ?, ?)
			ON CONFLICT (agent, task) DO UPDATE SET tries = excluded.tries`, c.Agent, c.Task, tries); err != nil {
			return err
		}
		if tries > maxTries {
			v.GaveUp = true
			parent := c.Parent
			if parent == "" {
				parent = Person
			}
			body := fmt.Sprintf("%s (%s) ended %d turns without a complete progress journal at %s (missing: %s).",
				c.Agent, c.Desc, maxTries, c.Path, strings.Join(missing, ", "))
			if err := s.tellSender(tx, parent, body, fmt.Sprintf("journal:%s:%s", c.Agent, c.Task)); err != nil {
				return err
			}
			return tx.AppendEvent(queue.Event{Agent: c.Agent, Kind: EventJournal, Detail: fmt.Sprintf("gave up after %d continuations", maxTries)})
		}
		if _, err := tx.Enqueue(c.Agent, JournalContinuation(c.Path, c.Task, missing), queue.EnqueueOptions{Source: SourceJournal}); err != nil {
			return err
		}
		v.Continued, v.Try = true, tries
		return tx.AppendEvent(queue.Event{Agent: c.Agent, Kind: EventJournal, Detail: fmt.Sprintf("continuation %d of %d", tries, maxTries)})
	})
	if err != nil {
		return JournalVerdict{}, fmt.Errorf("inbox: journal of %q: %w", c.Agent, err)
	}
	return v, nil
}
