package ui

// keys.go is the one table of the commands after the prefix key: the
// dispatcher (command) runs it, the help box (help.go) shows it, and
// docs/keys.md and README's key table are generated from it (KeysMarkdown;
// keys_test.go fails when a file differs), as tmux's list-keys -N and
// bubbles' key.Binding keep a key's help beside the key.

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// keyBinding is one row: the keys as the help names them, what they do,
// which key presses they take and what they run.
type keyBinding struct {
	keys string // as the help box and the docs name them
	does string // the help box's line
	more string // what docs/keys.md adds to does (may be empty)
	// match reports whether the row takes k. No two rows take one key
	// (TestKeyRowsAreDisjoint), so the order is the help's only.
	match func(m *model, k tea.Key) bool
	run   func(m *model, k tea.Key) tea.Cmd
}

// plain makes a match of f that never takes the prefix key itself: that is
// always "prefix twice", whatever else it could be (a printable prefix such
// as "`" or "a").
func plain(f func(k tea.Key) bool) func(*model, tea.Key) bool {
	return func(m *model, k tea.Key) bool { return !m.isPrefix(k) && f(k) }
}

// char matches the plain printable r (is's rules).
func char(r rune) func(*model, tea.Key) bool {
	return plain(func(k tea.Key) bool { return is(k, r) })
}

// prefixKeys is the table, in the order the help shows it.
var prefixKeys []keyBinding

func init() {
	prefixKeys = []keyBinding{
		{keys: "arrows, h j k l", does: "move focus to the pane in that direction",
			more: "(a mouse click focuses too)",
			match: plain(func(k tea.Key) bool {
				return k.Code == tea.KeyLeft || is(k, 'h') || k.Code == tea.KeyRight || is(k, 'l') ||
					k.Code == tea.KeyUp || is(k, 'k') || k.Code == tea.KeyDown || is(k, 'j')
			}),
			run: func(m *model, k tea.Key) tea.Cmd {
				switch {
				case k.Code == tea.KeyLeft || is(k, 'h'):
					return m.move(-1, 0)
				case k.Code == tea.KeyRight || is(k, 'l'):
					return m.move(1, 0)
				case k.Code == tea.KeyUp || is(k, 'k'):
					return m.move(0, -1)
				}
				return m.move(0, 1)
			}},
		{keys: "1 … 9", does: "focus that pane of this page",
			match: plain(func(k tea.Key) bool {
				return len(k.Text) == 1 && k.Text[0] >= '1' && k.Text[0] <= '9' && k.Mod&tea.ModAlt == 0
			}),
			run: func(m *model, k tea.Key) tea.Cmd {
				page, _ := m.page()
				return m.setFocus(page*maxPerPage + int(k.Text[0]-'1'))
			}},
		{keys: "Tab, Shift-Tab", does: "focus the next / previous agent (all pages)",
			match: plain(func(k tea.Key) bool { return k.Code == tea.KeyTab }),
			run: func(m *model, k tea.Key) tea.Cmd {
				if len(m.panes) == 0 {
					return nil
				}
				if k.Mod.Contains(tea.ModShift) {
					return m.setFocus((m.focus - 1 + len(m.panes)) % len(m.panes))
				}
				return m.setFocus((m.focus + 1) % len(m.panes))
			}},
		{keys: "> <, PgDn PgUp", does: "next / previous page (wraps around)",
			more: "(9 panes a page; the last wraps to the first and back, as tmux's next-window)",
			match: plain(func(k tea.Key) bool {
				return k.Code == tea.KeyPgDown || is(k, '>') || k.Code == tea.KeyPgUp || is(k, '<')
			}),
			run: func(m *model, k tea.Key) tea.Cmd {
				page, pages := m.page()
				if pages <= 1 {
					return nil
				}
				if k.Code == tea.KeyPgDown || is(k, '>') {
					// The last page wraps to the first, as tmux's next-window.
					return m.setFocus((page + 1) % pages * maxPerPage)
				}
				return m.setFocus((page + pages - 1) % pages * maxPerPage)
			}},
		{keys: "z", does: "zoom the focused pane to full screen, and back",
			more:  "(the status line says `ZOOMED` meanwhile, as tmux's Z flag)",
			match: char('z'),
			run: func(m *model, _ tea.Key) tea.Cmd {
				m.zoom = !m.zoom
				return m.layout()
			}},
		{keys: "m", does: "composer: queue a message for the focused agent",
			more: "(multi-line, queued like `office send`: Enter queues, Alt+Enter or Shift+Enter adds a line; " +
				"Ctrl-O closes a picker that holds the queue, Ctrl-R recovers a draft that holds it into the composer)",
			match: char('m'),
			run:   func(m *model, _ tea.Key) tea.Cmd { return m.openComposer() }},
		{keys: "q", does: "queue panel of the focused agent",
			more:  "(messages in order with age, attempts, last error and hold reason; send now, delete, clear)",
			match: char('q'),
			run:   func(m *model, _ tea.Key) tea.Cmd { return m.toggleQueuePanel() }},
		{keys: "p", does: "pause / resume delivery for the whole floor",
			more:  "(resuming also ends every usage-limit hold early, as `office resume --all`; docs/limits.md)",
			match: char('p'),
			run:   func(m *model, _ tea.Key) tea.Cmd { return pauseCmd(m.office, !m.floor.Paused) }},
		{keys: "r", does: "roster rail: every agent, on every page",
			more:  "(its status, queue depth and badge)",
			match: char('r'),
			run: func(m *model, _ tea.Key) tea.Cmd {
				m.roster = !m.roster
				return m.layout()
			}},
		{keys: "n", does: "notice list",
			more:  "(drops, exits, dialogs waiting for you, completed/failed/stalled agents, mail to you)",
			match: char('n'),
			run: func(m *model, _ tea.Key) tea.Cmd {
				m.toggle(overlayNotices)
				m.notices.unread, m.notices.sel = 0, 0
				return nil
			}},
		{keys: "!", does: "who needs you: the needs-you list (Enter goes to the pane)",
			more:  "(dialogs, held messages, requests to you, failed or stalled agents, oldest first; a digit answers the selected dialog, `r` ends the selected usage-limit hold early; docs/needs.md)",
			match: char('!'),
			run: func(m *model, _ tea.Key) tea.Cmd {
				m.openNeeds()
				return nil
			}},
		{keys: "?", does: "this help",
			match: char('?'),
			run: func(m *model, _ tea.Key) tea.Cmd {
				m.toggle(overlayHelp)
				m.helpTop = 0
				return nil
			}},
		{keys: "a", does: "add an agent (name, profile, cwd, command), as office team add",
			more:  "(a form with the same checks and errors)",
			match: char('a'),
			run: func(m *model, _ tea.Key) tea.Cmd {
				m.openForm()
				return nil
			}},
		{keys: "R", does: "restart the focused agent (asks first)",
			more:  "(and says so when a turn is running)",
			match: char('R'),
			run: func(m *model, _ tea.Key) tea.Cmd {
				if p := m.focused(); p != nil {
					m.restartOf = p.info.Name
					m.overlay = overlayRestart
				}
				return nil
			}},
		{keys: "d", does: "detach: this window closes, the agents keep running (office attaches again)",
			match: char('d'),
			run:   func(*model, tea.Key) tea.Cmd { return tea.Quit }}, // the server and its agents go on
		{keys: "x", does: "quit: asks whether to detach or stop every agent (queued messages are kept)",
			more:  "(`s`: their process groups are stopped, as `office stop`; `d` detaches)",
			match: char('x'),
			run: func(m *model, _ tea.Key) tea.Cmd {
				m.overlay = overlayQuit
				return nil
			}},
		{keys: "s", does: "start the office's server again when it is gone",
			more:  "(the status line says so; in a view of several servers, this machine's is started and the others dialled now)",
			match: char('s'),
			run: func(m *model, _ tea.Key) tea.Cmd {
				if r, ok := m.office.(Remote); ok && m.gone != "" {
					return startServerCmd(r)
				}
				return nil
			}},
		{keys: "[", does: "copy mode: scroll, search and copy the pane's history",
			more: "(frozen: new output does not move it, the title says how far back, `[+1234]`; tmux's vi keys, " +
				"below. Its keys never reach the agent; delivery goes on)",
			match: char('['),
			run:   func(m *model, _ tea.Key) tea.Cmd { return m.copyCommand() }},
		{keys: "]", does: "paste office's paste buffer (the last copy) into the focused agent",
			more:  "(as your own paste, bracketed if it asked)",
			match: char(']'),
			run:   func(m *model, _ tea.Key) tea.Cmd { return m.pasteBuffer() }},
		{keys: "prefix twice", does: "send the prefix key itself to the agent",
			match: func(m *model, k tea.Key) bool { return m.isPrefix(k) },
			run: func(m *model, _ tea.Key) tea.Cmd {
				if m.overlay == overlayNone {
					m.forward([]byte{m.prefix})
				}
				return nil
			}},
	}
}

// helpNotes are the keys of office's boxes and the mouse, as the help box's
// last lines and docs/keys.md give them.
var helpNotes = []string{
	"A click focuses a pane, the wheel scrolls its history, a drag or a double click copies;",
	"agents that asked for the mouse get it (Shift-drag: your terminal's own selection).",
	"Composer: Enter queues · Alt/Shift+Enter new line · Ctrl-O close picker · Ctrl-R recover prompt",
	"Copy mode: hjkl PgUp/PgDn Ctrl-U/D g G 0 $ · / ? n N search · v select · y copy · q leave",
	"Queue panel: j/k move · s send now (when paused) · d delete · c clear all",
	"Needs list: j/k move · Enter go to its pane · 1-9 answer a dialog · r resume a usage limit now",
}

// command runs the row that takes k (the key after the prefix); a key no
// row takes does nothing.
func (m *model) command(k tea.Key) tea.Cmd {
	m.dirty = true
	for i := range prefixKeys {
		if prefixKeys[i].match(m, k) {
			return prefixKeys[i].run(m, k)
		}
	}
	return nil
}

// KeysMarkdown is the key table as docs/keys.md (full) and README (short:
// without the rows' more) show it.
func KeysMarkdown(full bool) string {
	var b strings.Builder
	b.WriteString("| after the prefix | what it does |\n| --- | --- |\n")
	for _, r := range prefixKeys {
		does := r.does
		if full && r.more != "" {
			does += " " + r.more
		}
		b.WriteString("| " + mdKeys(r.keys) + " | " + strings.ReplaceAll(does, "|", `\|`) + " |\n")
	}
	if full {
		b.WriteString("\nThe help box's last lines, the keys of office's boxes and the mouse:\n\n")
		for _, n := range helpNotes {
			b.WriteString("    " + n + "\n")
		}
	}
	return b.String()
}

// mdKeys writes a row's keys as code, the words between them as words.
func mdKeys(keys string) string {
	var out []string
	for _, group := range strings.Split(keys, ", ") {
		var ws []string
		for _, w := range strings.Fields(group) {
			switch w {
			case "arrows", "prefix", "twice", "…":
				ws = append(ws, w)
			default:
				ws = append(ws, "`"+w+"`")
			}
		}
		out = append(out, strings.Join(ws, " "))
	}
	return strings.Join(out, ", ")
}
