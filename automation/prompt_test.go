package automation

import "testing"

func TestPromptRowHasText(t *testing.T) {
	tests := []struct {
		name string
		row  string
		want bool
	}{
		{"empty row", "", false},
		{"bare > marker", "> ", false},
		{"claude box with marker", "│ > │", false},
		{"box top border", "╭────────╮", false},
		{"heavy box drawing U+2501 and U+257F", "━╿", false},
		{"codex › marker", "› ", false},
		{"❯ with no-break space", "❯\u00a0", false},
		{"shell markers $ # |", "$ # |", false},
		{"ideographic space", "\u3000", false},
		{"byte order mark as in JavaScript \\s", "\ufeff", false},
		{"tabs and newlines", "\t\n\r\v\f", false},
		{"text after the marker", "> hi", true},
		{"CJK inside the box", "│ > 你好 │", true},
		{"a single dot is text", "> .", true},
		{"text between box drawing", "─x─", true},
		{"block element U+2580 is not box drawing", "▀", true},
		{"other prompt chars are text", "% ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PromptRowHasText(tt.row); got != tt.want {
				t.Errorf("PromptRowHasText(%q) = %v, want %v", tt.row, got, tt.want)
			}
		})
	}
}

func TestReadPromptRow(t *testing.T) {
	tests := []struct {
		name string
		row  string
		ok   bool
		want PromptReading
	}{
		{"unreadable row is unknown even with text", "> hi", false, PromptUnknown},
		{"unreadable empty row is unknown", "", false, PromptUnknown},
		{"chrome only is empty", "│ > │", true, PromptEmpty},
		{"text is has-text", "│ > hi │", true, PromptHasText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadPromptRow(tt.row, tt.ok); got != tt.want {
				t.Errorf("ReadPromptRow(%q, %v) = %v, want %v", tt.row, tt.ok, got, tt.want)
			}
		})
	}
}

func TestPromptReadingString(t *testing.T) {
	for r, want := range map[PromptReading]string{PromptUnknown: "unknown", PromptEmpty: "empty", PromptHasText: "has text"} {
		if got := r.String(); got != want {
			t.Errorf("PromptReading(%d).String() = %q, want %q", int(r), got, want)
		}
	}
	if PromptReading(0) != PromptUnknown {
		t.Error("the zero PromptReading must be PromptUnknown")
	}
}
