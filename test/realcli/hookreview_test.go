package realcli

// Codex 0.171.0's "Hooks need review" dialog (docs/channels.md): shown at
// start, before the prompt, while a hook is new or changed. The codex
// profile knows it (a waiting pattern): the agent reads waiting, nothing is
// typed, and the person answers it. Recorded with OFFICE_REALCLI_RECORD=1
// into testdata/codex-hookreview.raw and .json (a bare PTY, no office), and
// replayed through pool's screen in every `go test`:
//
//	OFFICE_REALCLI_RECORD=1 go test -count=1 -run TestRecordCodexHookReview ./test/realcli/

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/automation"
	"office/configs"
	"office/engine"
	"office/pool"
	"office/test/fakemodel"
)

const hookReviewFixture = "codex-hookreview"

func TestRecordCodexHookReview(t *testing.T) {
	if os.Getenv("OFFICE_REALCLI_RECORD") == "" {
		t.Skip("set OFFICE_REALCLI_RECORD=1 to re-record testdata/" + hookReviewFixture + ".raw from the pinned Codex")
	}
	bin := needCLI(t, "codex")
	profiles, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	p := profiles["codex"]
	srv, err := fakemodel.New(fakemodel.Options{Delay: 500 * time.Millisecond, Reply: "Fake reply done."})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sb, err := NewSandbox(t.TempDir(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	env := sb.HostEnv()
	for k, v := range p.Env {
		env = append(env, k+"="+v)
	}
	// A Stop hook on the command line, never reviewed: the dialog shows.
	argv := append([]string{bin, "-c", `hooks.Stop=[{hooks=[{type="command",command="/bin/true"}]}]`}, p.Args...)
	r := startRecorder(t, argv, env, sb.Project)
	defer r.stop()
	r.waitText(60*time.Second, "the hook review dialog", func(s string) bool {
		return strings.Contains(s, "Hooks need review") && strings.Contains(s, "enter confirm · esc skip")
	})
	time.Sleep(1500 * time.Millisecond)
	idx := fixtureIndex{CLI: "codex", Version: CodexVersion, Cols: 120, Rows: 40,
		States: []fixtureState{{Name: "hooks need review", Offset: r.offset(), Status: "waiting"}}}
	r.mu.Lock()
	raw := append([]byte(nil), r.raw...)
	r.mu.Unlock()
	if err := os.WriteFile(filepath.Join("testdata", hookReviewFixture+".raw"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(idx, "", "  ")
	if err := os.WriteFile(filepath.Join("testdata", hookReviewFixture+".json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "recorded Codex's hook review: %d bytes\n%s\n", len(raw), r.text())
}

// TestReplayCodexHookReview reads the recorded dialog as a just-started
// Codex terminal: waiting, by the profile's pattern, not starting (the ready
// footer never shows behind it), and the screen gate sees a dialog, not a
// prompt to type into.
func TestReplayCodexHookReview(t *testing.T) {
	profiles, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	p := profiles["codex"]
	b := engine.Behavior(p)
	idx, raw := loadFixture(t, hookReviewFixture)
	for _, st := range idx.States {
		s := pool.NewScreen(idx.Cols, idx.Rows, nil)
		s.Feed(raw[:st.Offset])
		var snap pool.Snapshot
		s.Snapshot(&snap)
		now := time.Now()
		// Just spawned, never ready: what a start behind the dialog is.
		in := automation.Inputs{Now: now, LastOutput: now,
			Boot: automation.Boot{Spawned: now.Add(-2 * time.Second), Markers: len(p.ReadyMarkers) > 0}}
		snap.ScreenInputs(&in)
		j := automation.Judge(in, b.Status)
		text := snap.Text()
		if j.Status != automation.StatusWaiting || j.Signal() != "screen: Hooks need review" {
			t.Errorf("%s: status %s by %q, want waiting by the screen's \"Hooks need review\"\n%s", st.Name, j.Status, j.Signal(), text)
		}
		if err := checkExplainAgrees(j); err != nil {
			t.Errorf("%s: %v", st.Name, err)
		}
		_, row, ok := snap.FindPrompt(b.Prompt)
		if g := automation.ReadScreen(text, row, ok); g.Typable() {
			t.Errorf("%s: the screen gate would type into the dialog (%s)\n%s", st.Name, g.Kind, text)
		}
		if !strings.Contains(text, "Hooks need review") {
			t.Errorf("%s: the recorded screen has no dialog\n%s", st.Name, text)
		}
	}
}
