package ui

import (
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// probeKeys are key presses the person can make: every printable
// character (shifted ones as Shift), control letters, and office's named
// keys bare and with Shift, Ctrl and Alt.
func probeKeys() []tea.Key {
	var ks []tea.Key
	for r := rune(0x21); r < 0x7f; r++ {
		k := tea.Key{Code: r, Text: string(r)}
		if r >= 'A' && r <= 'Z' || strings.ContainsRune(`~!@#$%^&*()_+{}|:"<>?`, r) {
			k.Mod = tea.ModShift
		}
		ks = append(ks, k, tea.Key{Code: r, Text: string(r), Mod: tea.ModAlt})
	}
	for r := 'a'; r <= 'z'; r++ {
		ks = append(ks, tea.Key{Code: r, Mod: tea.ModCtrl})
	}
	ks = append(ks, tea.Key{Code: ']', Mod: tea.ModCtrl}, tea.Key{Code: tea.KeySpace, Mod: tea.ModCtrl}, tea.Key{Code: tea.KeySpace, Text: " "})
	for _, c := range []rune{tea.KeyLeft, tea.KeyRight, tea.KeyUp, tea.KeyDown, tea.KeyTab, tea.KeyPgUp, tea.KeyPgDown,
		tea.KeyEnter, tea.KeyEscape, tea.KeyBackspace, tea.KeyHome, tea.KeyEnd, tea.KeyF1} {
		for _, mod := range []tea.KeyMod{0, tea.ModShift, tea.ModCtrl, tea.ModAlt} {
			ks = append(ks, tea.Key{Code: c, Mod: mod})
		}
	}
	return ks
}

// TestKeyRowsAreDisjoint: whatever the prefix (a control key, or a
// printable one that is also a row's key), no key press is taken by two
// rows of the table, so its order is only the help's; and every row takes
// some key (no row the help shows does nothing).
func TestKeyRowsAreDisjoint(t *testing.T) {
	h := newHarness(t, "a")
	for _, prefix := range []byte{0x1d, 0x01, 0x00, '`', 'a', 'h', '['} {
		h.m.prefix = prefix
		taken := make([]int, len(prefixKeys))
		for _, k := range probeKeys() {
			var rows []string
			for i, b := range prefixKeys {
				if b.match(h.m, k) {
					rows = append(rows, b.keys)
					taken[i]++
				}
			}
			if len(rows) > 1 {
				t.Errorf("prefix %q: key %v is taken by rows %q", prefix, k, rows)
			}
			if h.m.isPrefix(k) && (len(rows) != 1 || rows[0] != "prefix twice") {
				t.Errorf("prefix %q: the prefix key %v is taken by %q, want only prefix twice", prefix, k, rows)
			}
		}
		for i, n := range taken {
			if n == 0 && prefix == 0x1d {
				t.Errorf("row %q takes no key", prefixKeys[i].keys)
			}
		}
	}
}

// TestKeysDocs: docs/keys.md (with each row's detail and the boxes' keys)
// and README's key table are the table; OFFICE_UPDATE_DOCS=1 rewrites them.
func TestKeysDocs(t *testing.T) {
	const (
		begin = "<!-- key table: generated from ui/keys.go by TestKeysDocs -->\n"
		end   = "<!-- end of key table -->\n"
	)
	for _, f := range []struct {
		path string
		full bool
	}{{"../docs/keys.md", true}, {"../README.md", false}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		i, j := strings.Index(s, begin), strings.Index(s, end)
		if i < 0 || j < i {
			t.Errorf("%s has no key table between %q and %q", f.path, begin, end)
			continue
		}
		want := KeysMarkdown(f.full)
		if got := s[i+len(begin) : j]; got != want {
			if os.Getenv("OFFICE_UPDATE_DOCS") == "1" {
				if err := os.WriteFile(f.path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s's key table is not ui's key table; run OFFICE_UPDATE_DOCS=1 go test -run TestKeysDocs ./ui/\n got:\n%s\nwant:\n%s", f.path, got, want)
		}
	}
}
