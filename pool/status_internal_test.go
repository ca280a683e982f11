package pool

import (
	"testing"
	"time"

	"office/automation"
)

// A custom command (nothing to read on its screen) that streams output and
// goes quiet is judged ready and idle, its title read, without a single
// snapshot of its screen.
func TestCustomAgentIsJudgedWithoutASnapshot(t *testing.T) {
	t.Parallel()
	term, err := Start(Options{Name: "stream", Argv: []string{"sh", "-c", "printf '\\033]0;streaming\\007'; i=0; while [ $i -lt 300 ]; do echo line $i; i=$((i+1)); done; exec cat >/dev/null"},
		Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin"}, Behavior: Behavior{Status: automation.StatusRules{Quiet: 300 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	deadline := time.Now().Add(10 * time.Second)
	for !(term.Ready(time.Now()) && term.Status() == automation.StatusIdle) {
		if time.Now().After(deadline) {
			st, sig := term.StatusSignal()
			t.Fatalf("not idle: %v by %q", st, sig)
		}
		time.Sleep(20 * time.Millisecond)
	}
	term.mu.Lock()
	read, title := term.rows.copied != 0 || term.rows.texts != nil || term.rows.prompt.valid, term.judgment
	term.mu.Unlock()
	if read {
		t.Fatal("the screen's cells were read")
	}
	var saw bool
	for _, s := range title.Steps {
		if s.Signal == automation.SignalTitle && s.Detail == "streaming" {
			saw = true
		}
	}
	if !saw {
		t.Fatalf("the title did not reach the judge: %+v", title.Steps)
	}
	if _, ok := term.Prompt(); ok {
		t.Fatal("a prompt was read on a screen with no prompt")
	}
}

// A read keeps no cells, and builds the screen's text only for a behavior
// that matches text on it (patterns, ready markers): a prompt-only profile
// reads its prompt row and nothing else.
func TestScreenReadKeepsTextOnlyWhenPatternsNeedIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		b        Behavior
		wantText bool
	}{
		{"prompt only", Behavior{Prompt: PromptSpec{Marker: ">"}}, false},
		{"busy pattern", Behavior{Prompt: PromptSpec{Marker: ">"}, Status: automation.StatusRules{Busy: []string{"working"}}}, true},
		{"ready marker", Behavior{ReadyMarkers: []string{"ready"}}, true},
	} {
		s := NewScreen(40, 5, nil)
		s.Feed([]byte("working ready\r\n> draft"))
		term := &Terminal{screen: s, behavior: c.b}
		term.readPromptLocked(time.Unix(0, 0))
		if !term.view.read {
			t.Fatalf("%s: the screen was not read", c.name)
		}
		if got := term.rows.Len() > 0; got != c.wantText {
			t.Errorf("%s: text kept %v (%q), want %v", c.name, got, term.rows.texts, c.wantText)
		}
		if c.b.Prompt.Marker != "" && (term.promptText != "draft" || !term.promptOK) {
			t.Errorf("%s: prompt %q %v, want \"draft\" true", c.name, term.promptText, term.promptOK)
		}
	}
}
