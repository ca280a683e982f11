package automation

import "testing"

// TestKeyTable walks the line model's transition table: each input class in
// and out of a paste, with a rune of that class.
func TestKeyTable(t *testing.T) {
	tests := []struct {
		name  string
		r     rune
		class inputClass
		typed keyAction
		paste keyAction
	}{
		{"a letter is text and appends", 'a', classText, actAppend, actAppend},
		{"a CJK rune is text", '你', classText, actAppend, actAppend},
		{"a space is text", ' ', classText, actAppend, actAppend},
		{"a tab is text", '\t', classText, actAppend, actAppend},
		{"CR submits when typed, is a newline when pasted", '\r', classEnter, actSubmit, actNewline},
		{"LF submits when typed, is a newline when pasted", '\n', classEnter, actSubmit, actNewline},
		{"DEL pops when typed, is dropped when pasted", 0x7f, classErase, actPop, actIgnore},
		{"BS pops when typed, is dropped when pasted", 0x08, classErase, actPop, actIgnore},
		{"ESC ends the scan when typed, is dropped when pasted", 0x1b, classEscape, actStopScan, actIgnore},
		{"Ctrl-A is an ignored control", 0x01, classControl, actIgnore, actIgnore},
		{"Ctrl-U in a chunk is an ignored control", 0x15, classControl, actIgnore, actIgnore},
		{"a C1 control is ignored", 0x85, classControl, actIgnore, actIgnore},
		{"U+00A0 is text", 0xa0, classText, actAppend, actAppend},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := classify(tt.r)
			if c != tt.class {
				t.Fatalf("classify(%q) = %d, want %d", tt.r, c, tt.class)
			}
			if got := keyActions[0][c]; got != tt.typed {
				t.Errorf("typed action for %q = %d, want %d", tt.r, got, tt.typed)
			}
			if got := keyActions[1][c]; got != tt.paste {
				t.Errorf("pasted action for %q = %d, want %d", tt.r, got, tt.paste)
			}
		})
	}
}

func TestLoneKeys(t *testing.T) {
	tests := []struct {
		name  string
		chunk string
		want  keyAction
		lone  bool
	}{
		{"lone Esc clears and releases", "\x1b", actClearRelease, true},
		{"lone Ctrl-C clears and releases", "\x03", actClearRelease, true},
		{"lone Ctrl-U clears only", "\x15", actClear, true},
		{"kitty Esc clears and releases", "\x1b[27u", actClearRelease, true},
		{"kitty Ctrl-C clears and releases", "\x1b[99;5u", actClearRelease, true},
		{"kitty Ctrl-U clears only", "\x1b[117;5u", actClear, true},
		{"an arrow key is not a lone key", "\x1b[A", 0, false},
		{"Esc Esc is not a lone key", "\x1b\x1b", 0, false},
		{"Ctrl-D is not a lone key", "\x04", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := loneKeys[tt.chunk]
			if ok != tt.lone || got != tt.want {
				t.Errorf("loneKeys[%q] = %d, %v; want %d, %v", tt.chunk, got, ok, tt.want, tt.lone)
			}
		})
	}
}
