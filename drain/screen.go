package drain

// The screen gate (gate 3b): for an agent whose profile defines its prompt
// (SubmitProfile.KnownPrompt: claude, codex, gemini), nothing is typed unless
// the screen shows that prompt, its row found and empty, and no dialog
// (automation.ReadScreen). A screen that shows neither holds delivery as
// "unknown screen" and never times out into typing: the boot grace ends the
// wait for the CLI's ready signal, not this hold. The first hold of an
// episode tells the person (NoticeUnknownScreen, with the screen's first
// lines); the episode ends when the prompt shows again.

import (
	"context"
	"fmt"
	"strings"

	"office/automation"
)

// HoldUnknownScreen: the agent's screen shows neither its profile's prompt
// (found and empty) nor a dialog the profile knows: a dialog recognised only
// by its shape, a screen still drawing, or one no profile has seen. Enter
// could answer whatever it is, so nothing is typed until the prompt shows.
const HoldUnknownScreen Hold = "unknown screen"

// NoticeUnknownScreen: the agent's head message is held because its screen
// is unknown (HoldUnknownScreen). Text is the whole notice, naming the agent
// with the screen's first lines.
const NoticeUnknownScreen NoticeKind = "unknown_screen"

// The screen lines an unknown-screen notice quotes, and their width.
const (
	unknownScreenLines = 12
	unknownScreenWidth = 120
)

// screenHold is the gate's hold for a (HoldNone: typing may go ahead), the
// reading behind it and the screen it read. An agent whose profile does not
// define its prompt (shell, custom) always passes, its screen unread.
func screenHold(a Agent) (Hold, automation.ScreenReading, string) {
	if !a.Submit().KnownPrompt {
		return HoldNone, automation.ScreenReading{Kind: automation.ScreenPrompt}, ""
	}
	row, ok := a.Prompt()
	text := a.Text()
	r := automation.ReadScreen(text, row, ok)
	switch r.Kind {
	case automation.ScreenPrompt:
		return HoldNone, r, text
	case automation.ScreenPromptText:
		// Text office did not type on the prompt (the draft latch missed
		// it, or a placeholder no profile lists): not an empty prompt.
		return HoldDraft, r, text
	}
	return HoldUnknownScreen, r, text
}

// screenGate is gate 3b on Run's goroutine: screenHold, and the person's
// notice at the first unknown-screen hold of an episode.
func (d *Drainer) screenGate(ctx context.Context, name string, a Agent) Hold {
	h, r, screen := screenHold(a)
	d.mu.Lock()
	st := d.stateLocked(name)
	first := h == HoldUnknownScreen && !st.unknownTold
	switch {
	case h == HoldUnknownScreen:
		st.unknownTold = true
	case r.Kind == automation.ScreenPrompt:
		st.unknownTold = false
	}
	d.mu.Unlock()
	if first {
		text := unknownScreenNotice(name, screen, r)
		d.log.Warn("holding delivery: the agent's screen is unknown", "agent", name, "found", r.Kind.String(), "shape", r.Shape)
		d.cfg.Notify(Notice{Agent: name, Kind: NoticeUnknownScreen, Text: text})
	}
	return h
}

// unknownScreenNotice is the person's notice of agent's unknown screen.
func unknownScreenNotice(agent, screen string, r automation.ScreenReading) string {
	what := "neither its prompt nor a dialog office knows"
	if r.Kind == automation.ScreenDialog {
		what = fmt.Sprintf("a dialog office does not know (%q)", r.Shape)
	}
	head := automation.ScreenHead(screen, unknownScreenLines, unknownScreenWidth)
	return fmt.Sprintf("%s shows an unknown screen: delivery held\n"+
		"%s shows %s. Nothing is typed into it until its prompt shows again: an Enter could answer it. "+
		"Look at its pane and answer it there, or `office approve %s OPTION`.\nScreen:\n%s",
		agent, agent, what, agent, strings.Join(head, "\n"))
}
