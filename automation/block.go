package automation

// Block reasons and their stale windows (seed 002 §3, docs/design.md §3).
//
// A picker or draft block is an inference, not a report, so each expires
// StaleAfter (or the office file's stale, State.Stale) after the latch or the
// person's last keystroke: a wrongly kept flag would otherwise stop delivery
// for the rest of the session. Expiry never erases text: a queued message is
// then typed after whatever sits on the line.

import "time"

// IsStale reports whether an inferred block stamped at ts has expired at now
// with the stale window after (0 means StaleAfter): true exactly when
// now.Sub(ts) >= after. A zero ts is never stale, so a block whose time is
// unknown holds until it is cleared explicitly.
func IsStale(ts, now time.Time, after time.Duration) bool {
	if ts.IsZero() {
		return false
	}
	return now.Sub(ts) >= orDefault(after, StaleAfter)
}

// BlockReason returns why automation may not type into the terminal described
// by s at now, or BlockNone. The first rule that applies wins:
//
//  1. s.Exited: BlockExited.
//  2. s.PickerLatched and PickerAt not stale (IsStale with s.Stale): BlockPicker.
//  3. s.Dirty and DirtyAt not stale: BlockDraft.
//  4. now strictly before s.SettleUntil: BlockSettling.
//
// So a picker and a draft together report the picker, and settling ends at
// exactly SettleUntil.
func BlockReason(s State, now time.Time) Block {
	switch {
	case s.Exited:
		return BlockExited
	case s.PickerLatched && !IsStale(s.PickerAt, now, s.Stale):
		return BlockPicker
	case s.Dirty && !IsStale(s.DirtyAt, now, s.Stale):
		return BlockDraft
	case now.Before(s.SettleUntil):
		return BlockSettling
	}
	return BlockNone
}
