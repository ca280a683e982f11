package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
)

// TestEncodeKey is the key encoder per mode: what the person's terminal
// sent (legacy or kitty, decoded by Bubble Tea's decoder) becomes the
// bytes the agent asked for.
func TestEncodeKey(t *testing.T) {
	legacy := keyModes{}
	app := keyModes{appCursor: true}
	k1 := keyModes{kitty: 1}
	k3 := keyModes{kitty: 3}
	k8 := keyModes{kitty: 8 | 1}
	cases := []struct {
		name  string
		in    string // raw bytes from the outer terminal
		modes keyModes
		want  string
	}{
		{"text legacy", "a", legacy, "a"},
		{"text kitty 1", "a", k1, "a"},
		{"text all escapes", "a", k8, "\x1b[97u"},
		{"utf-8 text", "é", legacy, "é"},
		{"Enter legacy", "\r", legacy, "\r"},
		{"Enter kitty 1", "\r", k1, "\r"},
		{"Enter kitty 8", "\r", k8, "\x1b[13u"},
		{"Shift+Enter kitty in, legacy agent", "\x1b[13;2u", legacy, LegacyNewline},
		{"Ctrl+Enter kitty in, legacy agent", "\x1b[13;5u", legacy, LegacyNewline},
		{"Alt+Enter legacy", "\x1b\r", legacy, LegacyNewline},
		{"Shift+Enter kitty 1", "\x1b[13;2u", k1, "\x1b[13;2u"},
		{"Shift+Enter kitty 3", "\x1b[13;2u", k3, "\x1b[13;2u"},
		{"Ctrl+Enter kitty 1", "\x1b[13;5u", k1, "\x1b[13;5u"},
		{"Alt+Enter kitty 1", "\x1b[13;3u", k1, "\x1b[13;3u"},
		{"Esc legacy", "\x1b", legacy, "\x1b"},
		{"Esc kitty 1", "\x1b", k1, "\x1b[27u"},
		{"Ctrl-C legacy", "\x03", legacy, "\x03"},
		{"Ctrl-C kitty 1", "\x03", k1, "\x1b[99;5u"},
		{"Ctrl-C kitty in, legacy agent", "\x1b[99;5u", legacy, "\x03"},
		{"Alt+b legacy", "\x1bb", legacy, "\x1bb"},
		{"Alt+b kitty 1", "\x1bb", k1, "\x1b[98;3u"},
		{"Tab", "\t", legacy, "\t"},
		{"Shift+Tab", "\x1b[Z", legacy, "\x1b[Z"},
		{"Backspace", "\x7f", legacy, "\x7f"},
		{"Up legacy", "\x1b[A", legacy, "\x1b[A"},
		{"Up application cursor", "\x1b[A", app, "\x1bOA"},
		{"Up SS3 in, legacy agent", "\x1bOA", legacy, "\x1b[A"},
		{"Home application cursor", "\x1b[H", app, "\x1bOH"},
		{"Ctrl+Left", "\x1b[1;5D", app, "\x1b[1;5D"},
		{"Delete", "\x1b[3~", legacy, "\x1b[3~"},
		{"Shift+PgUp", "\x1b[5;2~", legacy, "\x1b[5;2~"},
		{"F1", "\x1bOP", legacy, "\x1bOP"},
		{"F5", "\x1b[15~", k1, "\x1b[15~"},
		{"Ctrl-]", "\x1d", legacy, "\x1d"},
	}
	var d uv.EventDecoder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, ev := d.Decode([]byte(c.in))
			if n != len(c.in) {
				t.Fatalf("decoder took %d of %d bytes (%T %v)", n, len(c.in), ev, ev)
			}
			k, ok := ev.(uv.KeyPressEvent)
			if !ok {
				t.Fatalf("decoded %T %v, not a key", ev, ev)
			}
			if got := string(encodeKey(tea.Key(k), c.modes)); got != c.want {
				t.Fatalf("%q in %+v: got %q, want %q", c.in, c.modes, got, c.want)
			}
		})
	}
}

// TestEncodePaste: a paste is one bracketed paste when the agent turned
// bracketed paste on (an end marker inside cannot end it early), else the
// text with CR line ends.
func TestEncodePaste(t *testing.T) {
	cases := []struct {
		text      string
		bracketed bool
		want      string
	}{
		{"a\nb", true, "\x1b[200~a\nb\x1b[201~"},
		{"x\x1b[201~rm -rf", true, "\x1b[200~xrm -rf\x1b[201~"},
		{"a\nb\r\nc", false, "a\rb\rc"},
	}
	for _, c := range cases {
		if got := string(encodePaste(c.text, c.bracketed)); got != c.want {
			t.Errorf("paste %q (bracketed %v): got %q, want %q", c.text, c.bracketed, got, c.want)
		}
	}
}
