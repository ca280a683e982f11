package engine

import (
	"slices"
	"strings"
	"testing"

	"office/configs"
)

// The turn's part of the screen decides: an API error after the last prompt
// fails the turn; one from an earlier turn, above that prompt, does not.
func TestTurnFailure(t *testing.T) {
	t.Parallel()
	ps, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	claude := ps["claude"]
	rule := "────────────────────"
	failed := "❯ hi\n  ⎿  API Error: Request rejected (429) · Rate limited\n\n" + rule + "\n❯ \n" + rule + "\n  ? for shortcuts"
	if got := turnFailure(failed, claude); got != "⎿  API Error: Request rejected (429) · Rate limited" {
		t.Errorf("failed turn: %q", got)
	}
	later := "❯ hi\n  ⎿  API Error: 529 Overloaded\n\n❯ again\n\n● fine this time\n\n" + rule + "\n❯ \n" + rule + "\n  ? for shortcuts"
	if got := turnFailure(later, claude); got != "" {
		t.Errorf("an earlier turn's error failed this one: %q", got)
	}
	limit := "❯ hi\n  ⎿  You've hit your limit · resets 10pm (America/New_York)\n\n" + rule + "\n❯ \n" + rule
	if got := turnFailure(limit, claude); got == "" {
		t.Error("a usage-limit banner is a failed turn too")
	}
	if got := turnFailure("$ ls\nAPI Error: x\n$ ", ps["shell"]); got != "" {
		t.Errorf("shell has no API errors: %q", got)
	}
}

// A turn refused on a usage-limit banner, with no reply of its own, was
// not run; a turn that replied and then hit the limit ran, and one that
// ended on a mere API error is not a refusal.
func TestProbeRefused(t *testing.T) {
	t.Parallel()
	ps, err := configs.BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	claude := ps["claude"]
	rule := "────────────────────"
	banner := "⎿  You've hit your limit · resets 10pm (America/New_York)"
	refused := "❯ hi\n  " + banner + "\n\n" + rule + "\n❯ \n" + rule
	if got, ok := probeRefused(refused, banner, claude); !ok || !strings.Contains(got, "You've hit your limit") {
		t.Errorf("refused probe: %q %v", got, ok)
	}
	if _, ok := probeRefused(refused, "", claude); !ok {
		t.Error("refused probe with no reply read")
	}
	ran := "❯ hi\n\n● Done: the tests pass.\n  " + banner + "\n\n" + rule + "\n❯ \n" + rule
	if _, ok := probeRefused(ran, "Done: the tests pass.", claude); ok {
		t.Error("a turn that replied counted refused")
	}
	if _, ok := probeRefused(refused, "Done: the tests pass.", claude); ok {
		t.Error("a turn whose record has a reply counted refused")
	}
	apiErr := "❯ hi\n  ⎿  API Error: Request rejected (429) · Rate limited\n\n" + rule + "\n❯ \n" + rule
	if _, ok := probeRefused(apiErr, "", claude); ok {
		t.Error("a rate-limited turn counted refused")
	}
	// With Claude's StopFailure rate_limit the API error rows are the
	// limit's banner (probeSettled): that turn was refused, unless it
	// replied.
	hooked := claude
	hooked.Limits.Banners = append(slices.Clone(claude.Limits.Banners), claude.Limits.Errors...)
	if _, ok := probeRefused(apiErr, "API Error: Request rejected (429) · Rate limited", hooked); !ok {
		t.Error("a turn the hook said was rate limited, with no reply, counted run")
	}
	ranThenLimited := "❯ hi\n\n● Half done.\n  ⎿  API Error: Request rejected (429) · Rate limited\n\n" + rule + "\n❯ \n" + rule
	if _, ok := probeRefused(ranThenLimited, "", hooked); ok {
		t.Error("a turn that replied before its rate limit counted refused")
	}
	earlier := "❯ hi\n  " + banner + "\n\n❯ again\n\n● fine\n\n" + rule + "\n❯ \n" + rule
	if _, ok := probeRefused(earlier, "fine", claude); ok {
		t.Error("an earlier turn's banner refused this one")
	}
}
