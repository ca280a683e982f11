package engine

// apierror.go reads whether a turn ended on an API error (docs/limits.md):
// a row of the turn's part of the screen carries one of the profile's
// limits.errors (or limits.banners) texts. Such a turn is a failed turn in
// the parent's notice and in mail's reply gate (inbox.TurnEnd.Failed); it
// holds nothing unless the CLI said it is a usage limit (pool's banner).

import (
	"slices"
	"strings"
	"unicode"

	"office/automation"
	"office/configs"
)

// turnFailure returns the CLI's error text when the turn that just ended
// on a's screen ended on an API error, else "".
func turnFailure(screen string, p configs.Profile) string {
	rules := automation.LimitRules{Errors: append(slices.Clone(p.Limits.Errors), p.Limits.Banners...)}
	if len(rules.Errors) == 0 {
		return ""
	}
	text, _ := automation.FindAPIError(automation.TextRows(turnText(screen, p)), rules)
	return text
}

// turnText is the part of screen the last turn drew: the rows after the
// last prompt echoed above the input row, up to that row (with no prompt
// marker, or none found, the whole screen).
func turnText(screen string, p configs.Profile) string {
	lines := strings.Split(screen, "\n")
	if p.PromptMarker == "" {
		return screen
	}
	input := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if isPromptRow(lines[i], p) {
			input = i
			break
		}
	}
	if input < 0 {
		return screen
	}
	for k := input - 1; k >= 0; k-- {
		if isPromptRow(lines[k], p) {
			return strings.Join(lines[k+1:input], "\n")
		}
	}
	return strings.Join(lines[:input], "\n")
}

// probeRefused reports whether the turn that just ended on screen was
// refused without running: its part of the screen carries one of the
// profile's usage-limit banners, and nothing else of it (nor the reply
// read for it, the CLI's record or the screen's reply region) has a word
// outside that banner. Only then was the prompt not taken (the banner is
// the turn's whole answer), so typing it again cannot run it twice; a turn
// with any reply of its own ran, and stays delivered. It returns the
// banner's text.
func probeRefused(screen, reply string, p configs.Profile) (string, bool) {
	if len(p.Limits.Banners) == 0 {
		return "", false
	}
	turn := turnText(screen, p)
	b, ok := automation.FindLimit(automation.TextRows(turn), automation.LimitRules{Banners: p.Limits.Banners})
	if !ok {
		return "", false
	}
	if wordsBeside(turn, b.Text, p.Limits.Banners) || wordsBeside(reply, b.Text, p.Limits.Banners) {
		return "", false
	}
	return b.Text, true
}

// wordsBeside reports whether a line of text has a letter or digit and is
// neither part of banner nor a line with one of the banner patterns.
func wordsBeside(text, banner string, pats []string) bool {
	flat := strings.Join(strings.Fields(banner), " ")
	for _, line := range strings.Split(text, "\n") {
		l := strings.Join(strings.Fields(line), " ")
		if l == "" || strings.Contains(flat, l) || slices.ContainsFunc(pats, func(s string) bool { return s != "" && strings.Contains(l, s) }) {
			continue
		}
		if strings.IndexFunc(l, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			return true
		}
	}
	return false
}

// TurnFailure is turnFailure: the CLI's error text when the turn that
// just ended on screen ended on an API error, else "".
func TurnFailure(screen string, p configs.Profile) string { return turnFailure(screen, p) }
