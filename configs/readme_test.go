package configs

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// The README's settings table sits between these markers and is exactly
// settingsMarkdown(); OFFICE_UPDATE_README=1 rewrites it.
const (
	readmeBegin = "<!-- settings table: generated from configs/settings.go by TestReadmeSettingsTable -->\n"
	readmeEnd   = "<!-- end of settings table -->\n"
)

// settingsMarkdown renders the table as README shows it.
func settingsMarkdown() string {
	var b strings.Builder
	b.WriteString("| key | default | range | per agent | what it does, the rule and why |\n| --- | --- | --- | --- | --- |\n")
	for _, row := range Table() {
		def := row.Format(row.Default)
		rng := row.Format(row.Min) + " to " + row.Format(row.Max)
		if row.Kind == KindDuration {
			def = "`\"" + def + "\"`"
		} else {
			def = "`" + def + "`"
		}
		agent := ""
		if row.PerAgent {
			agent = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", row.Key, def, rng, agent, strings.ReplaceAll(row.Help, "|", `\|`))
	}
	return b.String()
}

func TestReadmeSettingsTable(t *testing.T) {
	const path = "../README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, readmeBegin), strings.Index(s, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("README has no settings table between %q and %q", readmeBegin, readmeEnd)
	}
	want := settingsMarkdown()
	got := s[i+len(readmeBegin) : j]
	if got == want {
		return
	}
	if os.Getenv("OFFICE_UPDATE_README") == "1" {
		if err := os.WriteFile(path, []byte(s[:i+len(readmeBegin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README's settings table is not the settings table; run OFFICE_UPDATE_README=1 go test -run TestReadmeSettingsTable ./configs/\n got:\n%s\nwant:\n%s", got, want)
}
