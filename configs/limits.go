package configs

// A profile's usage-limit texts: the table [profile.NAME.limits] (banners,
// resets, dialogs, errors, switches), read by package automation (LimitRules) as
// docs/limits.md describes.

import (
	"fmt"
	"maps"
	"slices"
)

// LimitPatterns are a profile's usage-limit texts, plain substrings of a
// screen row.
type LimitPatterns struct {
	// Banners: a row that says the account is out of quota.
	Banners []string
	// Resets: the text right before the reset time on a banner row.
	Resets []string
	// Dialogs: the limit menu (a dialog: held and forwarded).
	Dialogs []string
	// Errors: a row that says the turn ended on an API error.
	Errors []string
	// Switches: a row that says the CLI switched itself to another model
	// after a quota message (surfaced, not held).
	Switches []string
}

func (l LimitPatterns) clone() LimitPatterns {
	return LimitPatterns{Banners: slices.Clone(l.Banners), Resets: slices.Clone(l.Resets),
		Dialogs: slices.Clone(l.Dialogs), Errors: slices.Clone(l.Errors), Switches: slices.Clone(l.Switches)}
}

// setProfileLimits sets the "limits" key: a table whose keys each replace
// one list. known is false for any other key.
func setProfileLimits(p *Profile, key string, v any) (known bool, err error) {
	if key != "limits" {
		return false, nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		return true, fmt.Errorf("want a table like [profile.NAME.limits], got %s", tomlType(v))
	}
	l := p.Limits.clone()
	for _, k := range slices.Sorted(maps.Keys(t)) {
		var dst *[]string
		switch k {
		case "banners":
			dst = &l.Banners
		case "resets":
			dst = &l.Resets
		case "dialogs":
			dst = &l.Dialogs
		case "errors":
			dst = &l.Errors
		case "switches":
			dst = &l.Switches
		default:
			return true, fmt.Errorf("unknown key %q (want banners, resets, dialogs, errors or switches)", k)
		}
		if *dst, err = asStrings(t[k], false); err != nil {
			return true, fmt.Errorf("%s: %w", k, err)
		}
	}
	p.Limits = l
	return true, nil
}
