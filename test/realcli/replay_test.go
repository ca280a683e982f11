package realcli

// Replay of the recorded PTY streams (testdata/CLI.raw, recorded by
// TestRecordFixtures from the pinned CLIs): each key state's stream prefix is
// fed through pool's screen, then read with the built-in profile's rules the
// way a Terminal reads it (prompt row, ready markers, automation.DetectStatus
// from the screen, title and OSC state; no hooks). A CLI update that changes
// its screen shows up here as a failing fixture, not as a stuck queue.
// These tests need no CLI and run in every `go test`.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"office/automation"
	"office/configs"
	"office/engine"
	"office/pool"
)

func loadFixture(t *testing.T, cli string) (fixtureIndex, []byte) {
	t.Helper()
	var idx fixtureIndex
	b, err := os.ReadFile(filepath.Join("testdata", cli+".json"))
	if err != nil {
		t.Fatalf("fixture index: %v (record with OFFICE_REALCLI_RECORD=1)", err)
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", cli+".raw"))
	if err != nil {
		t.Fatal(err)
	}
	return idx, raw
}

// readState feeds raw through a fresh screen in PTY-sized chunks and reads
// it as the pool does: the screen's inputs (pool.Snapshot.ScreenInputs) go to
// the one status judge, with readiness seen and output just arrived
// (quiescence cannot decide; a profile rule must).
func readState(raw []byte, cols, rows int, b pool.Behavior) (snap pool.Snapshot, j automation.Judgment, prompt string, promptOK bool) {
	s := pool.NewScreen(cols, rows, nil)
	for len(raw) > 0 {
		n := min(len(raw), 4096)
		s.Feed(raw[:n])
		raw = raw[n:]
	}
	s.Snapshot(&snap)
	_, prompt, promptOK = snap.FindPrompt(b.Prompt)
	now := time.Now()
	in := automation.Inputs{Now: now, Boot: automation.Boot{Seen: true}, LastOutput: now}
	snap.ScreenInputs(&in)
	j = automation.Judge(in, b.Status)
	return
}

// checkExplainAgrees checks that `office status --explain`'s rendering of a
// judgment (engine.ExplainSteps) marks exactly one step, and that this step
// says the status and names the signal `office status` prints.
func checkExplainAgrees(j automation.Judgment) error {
	var decided []engine.ExplainStep
	for _, st := range engine.ExplainSteps(j) {
		if st.Decides {
			decided = append(decided, st)
		}
	}
	if len(decided) != 1 {
		return fmt.Errorf("explain marks %d steps, want 1", len(decided))
	}
	d := decided[0]
	if d.Says != j.Status.String() {
		return fmt.Errorf("explain's deciding step %q says %q, status %s", d.Signal, d.Says, j.Status)
	}
	sig := j.Signal()
	name := map[string]string{"starting": "boot", "quiescence": "output", "turn started": "turn"}[sig]
	if name == "" {
		name, _, _ = strings.Cut(sig, ":")
	}
	if d.Signal != name && !(d.Signal == "screen waiting" && name == "screen") {
		return fmt.Errorf("explain's deciding step %q, status signal %q", d.Signal, sig)
	}
	return nil
}

func TestReplayFixtures(t *testing.T) {
	profiles, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, cli := range []string{"claude", "codex", "gemini"} {
		t.Run(cli, func(t *testing.T) {
			idx, raw := loadFixture(t, cli)
			p := profiles[cli]
			b := engine.Behavior(p)
			if len(idx.States) == 0 {
				t.Fatal("no states recorded")
			}
			for _, st := range idx.States {
				t.Run(st.Name, func(t *testing.T) {
					if st.Offset > len(raw) {
						t.Fatalf("offset %d beyond the %d recorded bytes", st.Offset, len(raw))
					}
					snap, j, prompt, ok := readState(raw[:st.Offset], idx.Cols, idx.Rows, b)
					status, signal := j.Status, j.Signal()
					text := snap.Text()
					fail := func(format string, args ...any) {
						t.Helper()
						t.Errorf("%s %s (%s %s): "+format+"\ntitle %q osc %q sync %v\nscreen:\n%s",
							append(append([]any{cli, st.Name, status, signal}, args...), snap.Title, snap.Modes.OSCState, snap.Modes.SyncOutput, text)...)
					}
					if err := checkExplainAgrees(j); err != nil {
						fail("%v", err)
					}
					switch st.Status {
					case "not-waiting":
						if status == automation.StatusWaiting {
							fail("a picker the person opened reads as a waiting dialog")
						}
					default:
						if status.String() != st.Status {
							fail("status %s, want %s", status, st.Status)
						}
					}
					if st.Ready {
						for _, m := range p.ReadyMarkers {
							if !automation.MarkerShown(automation.TextRows(text), m) {
								fail("ready marker %q not on screen", m)
							}
						}
					}
					// A placeholder on the empty row reads as empty (the
					// profile's prompt_placeholders).
					empty := automation.ReadPromptRow(prompt, ok) == automation.PromptEmpty ||
						ok && slices.Contains(p.PromptPlaceholders, strings.TrimSpace(prompt))
					if st.PromptEmpty && !empty {
						fail("prompt row %q (found %v), want found and empty", prompt, ok)
					}
					if st.Prompt != "" && (!ok || !strings.Contains(prompt, st.Prompt)) {
						fail("prompt row %q (found %v), want it to hold %q", prompt, ok, st.Prompt)
					}
					t.Logf("%s: %s by %q; prompt %q (%v)", st.Name, status, signal, prompt, ok)
				})
			}
		})
	}
}

// TestReplayNotReadyBeforeMarkers checks the readiness trap of each CLI: the
// stream before the first recorded state does not yet show every ready
// marker at its very start (the first bytes).
func TestReplayNotReadyAtFirstBytes(t *testing.T) {
	profiles, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, cli := range []string{"claude", "codex", "gemini"} {
		idx, raw := loadFixture(t, cli)
		p := profiles[cli]
		n := min(64, len(raw))
		snap, _, _, _ := readState(raw[:n], idx.Cols, idx.Rows, engine.Behavior(p))
		all := true
		for _, m := range p.ReadyMarkers {
			all = all && strings.Contains(snap.Text(), m)
		}
		if all {
			t.Errorf("%s: ready markers %q already on screen after %d bytes", cli, p.ReadyMarkers, n)
		}
	}
}
