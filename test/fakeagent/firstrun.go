package main

// First-run offers (--first-run), drawn as Claude Code 2.1.332 draws them
// before its prompt: "fullscreen" (numbered, "Enter to confirm · Esc to
// cancel"), "automode" (unnumbered, "↑/↓ to choose") and "novel" (a dialog
// no profile knows by its text: only its shape says it is one). The first option is
// highlighted, so a bare Enter answers "yes", which writes the person's
// settings file (--settings), as Claude writes {"tui": "fullscreen"} into
// ~/.claude/settings.json. Each answer logs {"event":"first-run","offer":
// KIND,"answer":"yes"|"no"|"esc"}; the prompt (and the "ready" event) comes
// after the answer.

import (
	"os"
	"path/filepath"
)

// firstRunOffer is one offer: its title, options and footer, and what "yes"
// writes into the settings file.
type firstRunOffer struct {
	title    string
	options  [2]string
	numbered bool
	footer   string
	yes      string
}

var firstRunOffers = map[string]firstRunOffer{
	"fullscreen": {
		title:    "Try the new fullscreen renderer?",
		options:  [2]string{"Yes, try it", "Not now"},
		numbered: true,
		footer:   "Enter to confirm · Esc to cancel",
		yes:      `{"tui": "fullscreen"}`,
	},
	"automode": {
		title:   "Make auto mode your default permission mode?",
		options: [2]string{"Yes, set auto mode as my default permission mode", "No, keep manual mode"},
		footer:  "Not answered yet · ↑/↓ to choose · Esc to cancel",
		yes:     `{"permissions": {"defaultMode": "auto"}}`,
	},
	// A dialog no profile knows by its text, only by its shape.
	"novel": {
		title:    "Share anonymous usage data with the team?",
		options:  [2]string{"Yes, share it", "No thanks"},
		numbered: true,
		footer:   "Esc to cancel",
		yes:      `{"shareUsage": true}`,
	},
}

// offer returns the --first-run offer (an unknown kind is the fullscreen one).
func (a *app) offer() firstRunOffer {
	if o, ok := firstRunOffers[a.opts.firstRun]; ok {
		return o
	}
	return firstRunOffers["fullscreen"]
}

// firstRunRows lays out the offer.
func (a *app) firstRunRows(option func(int, string) line) []line {
	o := a.offer()
	rows := []line{styled(sgrBold, "  "+o.title), plain("")}
	for i, label := range o.options {
		if o.numbered {
			label = string(rune('1'+i)) + ". " + label
		}
		rows = append(rows, option(i, label))
	}
	return append(rows, plain(""), styled(sgrDim, "  "+o.footer))
}

// firstRunKey answers the offer: Up/Down moved the highlight already;
// Enter picks it, a digit picks a numbered option, Esc declines.
func (a *app) firstRunKey(k key) {
	o := a.offer()
	answer := ""
	switch {
	case k.kind == keyEnter && a.dialog.sel == 0:
		answer = "yes"
	case k.kind == keyEnter:
		answer = "no"
	case k.kind == keyEsc:
		answer = "esc"
	case o.numbered && k.kind == keyRune && k.r == '1':
		answer = "yes"
	case o.numbered && k.kind == keyRune && k.r == '2':
		answer = "no"
	default:
		return
	}
	a.dialog = nil
	a.log.event("first-run", kv{"offer", a.opts.firstRun}, kv{"answer", answer})
	if answer == "yes" && a.opts.settings != "" {
		_ = os.MkdirAll(filepath.Dir(a.opts.settings), 0o700)
		_ = os.WriteFile(a.opts.settings, []byte(o.yes+"\n"), 0o600)
	}
	a.becomeReady()
}
