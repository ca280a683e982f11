package ui

// ring.go shows a notification on the person's own terminal (docs/needs.md,
// the terminal sink): OSC 9, OSC 777 or kitty's OSC 99, chosen from the
// terminal's TERM_PROGRAM / TERM (and the variables some terminals set),
// wrapped in tmux's passthrough when office runs inside tmux, with BEL as the
// fallback for a terminal none of them is known to show.

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The ways a terminal shows a notification.
const (
	ringBell   = "bell"
	ringOSC9   = "osc9"
	ringOSC777 = "osc777"
	ringOSC99  = "osc99"
)

// ringStyle is how this client's terminal is told.
type ringStyle struct {
	kind string
	tmux bool // inside tmux: passthrough (ESC P tmux; ... ESC \)
}

// ringStyleFor reads env (KEY=VALUE) for the terminal office runs in.
func ringStyleFor(env []string) ringStyle {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	st := ringStyle{kind: ringBell, tmux: get("TMUX") != ""}
	term, prog := get("TERM"), get("TERM_PROGRAM")
	switch {
	case term == "xterm-kitty" || get("KITTY_WINDOW_ID") != "":
		st.kind = ringOSC99
	case prog == "iTerm.app" || prog == "WezTerm" || prog == "ghostty" || term == "xterm-ghostty" || get("WT_SESSION") != "" ||
		get("LC_TERMINAL") == "iTerm2":
		st.kind = ringOSC9
	case strings.HasPrefix(term, "rxvt") || strings.HasPrefix(term, "foot") || prog == "foot":
		st.kind = ringOSC777
	case st.tmux:
		// The outer terminal is not known from inside tmux: OSC 9, which
		// most terminals with notifications show and the others ignore.
		st.kind = ringOSC9
	}
	return st
}

// maxRingRunes bounds a notification's title and body on the terminal.
const maxRingRunes = 200

// ringText is s made safe inside an OSC: control characters (and, for
// fields, the separator sep) become spaces, at most maxRingRunes runes.
func ringText(s string, sep rune) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (sep != 0 && r == sep) {
			r = ' '
		}
		if n++; n > maxRingRunes {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ringSequence is what tells st's terminal of title and body. OSC 9's text
// starts with "office" so it never reads as a ConEmu sub-command ("9;4;").
func ringSequence(st ringStyle, title, body string) string {
	var seq string
	switch st.kind {
	case ringOSC9:
		text := ringText(title, 0)
		if body != "" {
			text += ": " + ringText(body, 0)
		}
		if !strings.HasPrefix(text, "office") {
			text = "office: " + text
		}
		seq = "\x1b]9;" + text + "\x1b\\"
	case ringOSC777:
		seq = "\x1b]777;notify;" + ringText(title, ';') + ";" + ringText(body, 0) + "\x1b\\"
	case ringOSC99:
		seq = "\x1b]99;i=office:d=0:p=title;" + ringText(title, 0) + "\x1b\\" + "\x1b]99;i=office:p=body;" + ringText(body, 0) + "\x1b\\"
	default:
		return "\a"
	}
	if st.tmux {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq + "\a"
}

// alertState is what the model knows to tell the person's terminal.
type alertState struct {
	style ringStyle
	// focusKnown: the terminal sent a focus report (?1004), so focused
	// says whether it has focus; before that it is taken as not focused
	// (a terminal that never reports is always told).
	focusKnown, focused bool
}

func (a *alertState) focus(in bool) { a.focusKnown, a.focused = true, in }

// terminalFocus is what an Office that is a server's client adds: it tells
// the server whether the person's terminal has focus (remote.Office).
type terminalFocus interface {
	SetTerminalFocus(focused bool) error
}

// termFocus records the person's terminal's focus and tells the server,
// off the loop.
func (m *model) termFocus(in bool) tea.Cmd {
	m.alerts.focus(in)
	f, ok := m.office.(terminalFocus)
	if !ok {
		return nil
	}
	return func() tea.Msg {
		_ = f.SetTerminalFocus(in)
		return nil
	}
}

// ring tells the person's terminal of n, unless they are looking at its
// agent: the terminal has focus and shows that agent's pane focused, with
// no panel over it.
func (m *model) ring(n Notice) {
	if m.out == nil {
		return
	}
	if m.alerts.focusKnown && m.alerts.focused && m.overlay == overlayNone {
		if p := m.focused(); p != nil && p.info.Name == n.Agent {
			return
		}
	}
	_ = m.out.write(ringSequence(m.alerts.style, n.Title, n.Text))
}
