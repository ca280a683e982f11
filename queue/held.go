package queue

import (
	"context"
)

// maxHeldListed bounds HeldForPerson's answer.
const maxHeldListed = 200

// HeldForPerson returns the messages only the person can move on (set aside,
// or interrupted: release or rm), oldest first, at most 200 of them (the
// needs-you list, docs/needs.md).
func (s *Store) HeldForPerson(ctx context.Context) ([]Message, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+msgCols+` FROM messages WHERE set_aside != 0 OR interrupted != 0 ORDER BY created, id LIMIT ?`, maxHeldListed)
	if err != nil {
		return nil, opErr("held messages", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, opErr("held messages", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, opErr("held messages", err)
	}
	return out, nil
}
