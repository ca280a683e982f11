package realcli

// Recorded limit screens (docs/limits.md): each pinned CLI's PTY stream as
// it meets the fake model's refusal (fakemodel.Refuse), kept in
// testdata/CLI-limit.raw and .json, and replayed through pool's screen with
// the built-in profile's limit rules in every `go test`. Re-record after a
// CLI update with
// OFFICE_REALCLI_RECORD=1 go test -run TestRecordLimitFixtures ./test/realcli/.

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
	"office/test/fakemodel"
)

// limitFixture is testdata/CLI-limit.json.
type limitFixture struct {
	CLI     string `json:"cli"`
	Version string `json:"version"`
	Cols    int    `json:"cols"`
	Rows    int    `json:"rows"`
	// Reset is the reset the fake model sent (zero: none).
	Reset time.Time `json:"reset,omitzero"`
	// Shown is what the CLI showed of it, for the reader.
	Shown string `json:"shown"`
}

// limitRecordings says, per CLI, what the refusal is and when the screen
// shows it: Codex's usage-limit banner and picker, Claude's API error (an
// API key: rate limiting, no subscription banner), Gemini's silent retry.
var limitRecordings = map[string]struct {
	status int
	shown  func(string) bool
	wait   time.Duration
}{
	"codex": {429, func(s string) bool {
		return strings.Contains(s, "hit your usage limit") && strings.Contains(s, "Approaching rate limits")
	}, 90 * time.Second},
	"claude": {429, func(s string) bool { return strings.Contains(s, "API Error: Request rejected (429)") }, 150 * time.Second},
	"gemini": {429, func(s string) bool { return strings.Contains(s, "Thinking") }, 60 * time.Second},
}

func TestRecordLimitFixtures(t *testing.T) {
	if os.Getenv("OFFICE_REALCLI_RECORD") == "" {
		t.Skip("set OFFICE_REALCLI_RECORD=1 to re-record testdata/*-limit.raw from the pinned CLIs")
	}
	profiles, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, cli := range []string{"codex", "claude", "gemini"} {
		t.Run(cli, func(t *testing.T) { recordLimit(t, cli, profiles[cli]) })
	}
}

func recordLimit(t *testing.T, cli string, p configs.Profile) {
	bin := needCLI(t, cli)
	spec := limitRecordings[cli]
	srv, err := fakemodel.New(fakemodel.Options{Delay: 500 * time.Millisecond, Reply: "Fake reply done."})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sb, err := NewSandbox(t.TempDir(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	// TZ=UTC: the reset Codex prints is read back in UTC by the replay.
	env := append(sb.HostEnv(), "TZ=UTC")
	for k, v := range p.Env {
		env = append(env, k+"="+v)
	}
	r := startRecorder(t, append([]string{bin}, p.Args...), env, sb.Project)
	defer r.stop()
	r.waitText(40*time.Second, "ready markers", func(s string) bool {
		for _, m := range p.ReadyMarkers {
			if !automation.MarkerShown(automation.TextRows(s), m) {
				return false
			}
		}
		return true
	})
	time.Sleep(1500 * time.Millisecond)
	reset := time.Now().Add(3 * time.Hour).Truncate(time.Minute)
	srv.Refuse(fakemodel.Refusal{Status: spec.status, Reset: reset})
	r.write("first refused")
	time.Sleep(800 * time.Millisecond)
	r.write("\r")
	r.waitText(spec.wait, "the refusal on screen", spec.shown)
	time.Sleep(1500 * time.Millisecond)
	if cli == "gemini" {
		// It retries in silence: a few seconds more of it.
		time.Sleep(5 * time.Second)
	}
	if srv.Refused() == 0 {
		t.Fatalf("no call was refused\n%s", r.text())
	}
	fx := limitFixture{CLI: cli, Version: map[string]string{"claude": ClaudeVersion, "codex": CodexVersion, "gemini": GeminiVersion}[cli],
		Cols: 120, Rows: 40, Shown: r.text()}
	if cli == "codex" {
		fx.Reset = reset
	}
	r.mu.Lock()
	raw := append([]byte(nil), r.raw...)
	r.mu.Unlock()
	if err := os.WriteFile(filepath.Join("testdata", cli+"-limit.raw"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(fx, "", "  ")
	if err := os.WriteFile(filepath.Join("testdata", cli+"-limit.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "recorded %s's limit: %d bytes\n%s\n", cli, len(raw), fx.Shown)
}

// TestReplayLimitFixtures reads each recorded refusal as a terminal of the
// built-in profile does: Codex's banner is a usage limit with the reset
// the server sent, and its picker a dialog; Claude's rate-limited turn is
// a failed turn with no banner (no hold from the screen: the StopFailure
// hook decides); Gemini's silent retry is busy, with no banner.
func TestReplayLimitFixtures(t *testing.T) {
	t.Parallel()
	profiles, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, cli := range []string{"codex", "claude", "gemini"} {
		t.Run(cli, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", cli+"-limit.json"))
			if err != nil {
				t.Fatalf("fixture: %v (record with OFFICE_REALCLI_RECORD=1 go test -run TestRecordLimitFixtures)", err)
			}
			var fx limitFixture
			if err := json.Unmarshal(b, &fx); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join("testdata", cli+"-limit.raw"))
			if err != nil {
				t.Fatal(err)
			}
			p := profiles[cli]
			beh := engine.LimitBehavior(p, []string{"TZ=UTC"})
			snap, j, _, _ := readState(raw, fx.Cols, fx.Rows, beh)
			text := snap.Text()
			banner, found := automation.FindLimit(automation.TextRows(text), beh.Status.Limits)
			switch cli {
			case "codex":
				if !found {
					t.Fatalf("no usage-limit banner read on\n%s", text)
				}
				// Recorded under TZ=UTC, three hours before the reset.
				reset, ok := beh.Status.Limits.Reset(banner.Text, fx.Reset.Add(-3*time.Hour), time.UTC, nil)
				if !ok || !reset.Equal(fx.Reset) {
					t.Errorf("banner %q resets %v, want the server's %v", banner.Text, reset, fx.Reset)
				}
				if j.Status != automation.StatusWaiting {
					t.Errorf("Codex's rate-limit picker reads %v (%s), want waiting", j.Status, j.Signal())
				}
			case "claude":
				if found {
					t.Errorf("a rate limit read as a usage-limit banner %q", banner.Text)
				}
				if f := engine.TurnFailure(text, p); !strings.Contains(f, "API Error: Request rejected (429)") {
					t.Errorf("turn failure %q, want Claude's API error\n%s", f, text)
				}
			case "gemini":
				if found {
					t.Errorf("Gemini's silent retry read as a banner %q", banner.Text)
				}
				if j.Status != automation.StatusBusy {
					t.Errorf("Gemini retrying reads %v (%s), want busy\n%s", j.Status, j.Signal(), text)
				}
			}
		})
	}
}
