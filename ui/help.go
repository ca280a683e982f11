package ui

// help.go is the help box (prefix ?): every binding.

// bindings lists the prefix commands, as the help box shows them.
var bindings = [][2]string{
	{"arrows, h j k l", "move focus to the pane in that direction"},
	{"1 … 9", "focus that pane of this page"},
	{"Tab, Shift-Tab", "focus the next / previous agent (all pages)"},
	{"> <, PgDn PgUp", "next / previous page"},
	{"z", "zoom the focused pane to full screen, and back"},
	{"m", "composer: queue a message for the focused agent"},
	{"q", "queue panel of the focused agent"},
	{"p", "pause / resume delivery for the whole floor"},
	{"r", "roster rail: every agent, on every page"},
	{"n", "notice list"},
	{"?", "this help"},
	{"a", "add an agent (name, profile, cwd, command), as office team add"},
	{"R", "restart the focused agent (asks first)"},
	{"d", "detach: this window closes, the agents keep running (office attaches again)"},
	{"x", "quit: asks whether to detach or stop every agent (queued messages are kept)"},
	{"s", "start the office's server again when it is gone"},
	{"[", "copy mode: scroll, search and copy the pane's history"},
	{"]", "paste office's paste buffer (the last copy) into the focused agent"},
	{"prefix twice", "send the prefix key itself to the agent"},
}

// helpView is the help box.
func (m *model) helpView(w int) boxView {
	v := boxView{title: " office keys ", caretLine: -1}
	v.lines = append(v.lines, boxLine{text: "Every key goes to the focused agent, except " + prefixName(m.prefix) + ", then:", st: m.pal.boxText})
	v.lines = append(v.lines, boxLine{st: m.pal.boxText})
	for _, b := range bindings {
		v.lines = append(v.lines, boxLine{text: padRight(b[0], 18) + b[1], st: m.pal.boxText})
	}
	v.lines = append(v.lines, boxLine{st: m.pal.boxText})
	v.lines = append(v.lines, boxLine{text: "A click focuses a pane, the wheel scrolls its history, a drag or a double click copies;", st: m.pal.boxDim},
		boxLine{text: "agents that asked for the mouse get it (Shift-drag: your terminal's own selection).", st: m.pal.boxDim})
	v.lines = append(v.lines, boxLine{text: "Composer: Enter queues · Alt/Shift+Enter new line · Ctrl-O close picker · Ctrl-R recover prompt", st: m.pal.boxDim})
	v.lines = append(v.lines, boxLine{text: "Copy mode: hjkl PgUp/PgDn Ctrl-U/D g G 0 $ · / ? n N search · v select · y copy · q leave", st: m.pal.boxDim})
	v.lines = append(v.lines, boxLine{text: "Queue panel: j/k move · s send now (when paused) · d delete · c clear all", st: m.pal.boxDim})
	v.lines = append(v.lines, boxLine{text: "any key closes this help", st: m.pal.boxDim})
	return v
}

// prefixName names a control byte as the person types it ("Ctrl-]").
func prefixName(b byte) string {
	if b < 0x20 {
		return "Ctrl-" + string(rune(b+'@'))
	}
	return string(rune(b))
}

// padRight pads s with spaces to n cells.
func padRight(s string, n int) string {
	for w := stringCells(s); w < n; w++ {
		s += " "
	}
	return s
}
