package configs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// docs/settings.md's table sits between these markers and is exactly
// settingsMarkdown(); OFFICE_UPDATE_DOCS=1 rewrites it.
const (
	settingsBegin = "<!-- settings table: generated from configs/settings.go by TestDocsSettingsTable -->\n"
	settingsEnd   = "<!-- end of settings table -->\n"
)

// settingsMarkdown renders the table as docs/settings.md shows it.
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

func TestDocsSettingsTable(t *testing.T) {
	const path = "../docs/settings.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, settingsBegin), strings.Index(s, settingsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no settings table between %q and %q", path, settingsBegin, settingsEnd)
	}
	want := settingsMarkdown()
	got := s[i+len(settingsBegin) : j]
	if got == want {
		return
	}
	if os.Getenv("OFFICE_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(s[:i+len(settingsBegin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's settings table is not the settings table; run OFFICE_UPDATE_DOCS=1 go test -run TestDocsSettingsTable ./configs/\n got:\n%s\nwant:\n%s", path, got, want)
}

// TestDocsAgentKeys checks docs/configuration.md's table of [[agent]] keys against the
// keys the decoder takes (the case labels of setAgentKey), so neither can
// gain or lose a key alone.
func TestDocsAgentKeys(t *testing.T) {
	const path = "../docs/configuration.md"
	const (
		begin = "<!-- agent keys: checked against the decoder by TestDocsAgentKeys -->\n"
		end   = "<!-- end of agent keys -->\n"
	)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no agent keys table between %q and %q", path, begin, end)
	}
	var documented []string
	for _, line := range strings.Split(s[i+len(begin):j], "\n") {
		if k, ok := strings.CutPrefix(line, "| `"); ok {
			if n := strings.Index(k, "`"); n > 0 {
				documented = append(documented, k[:n])
			}
		}
	}
	decoded := decoderAgentKeys(t)
	if strings.Join(documented, " ") != strings.Join(decoded, " ") {
		t.Errorf("%s's agent keys\n %v\nare not the decoder's (in its order)\n %v", path, documented, decoded)
	}
	for _, k := range decoded {
		if known, _ := setAgentKey(&Agent{}, k, nil); !known {
			t.Errorf("setAgentKey does not know %q", k)
		}
	}
}

// decoderAgentKeys returns the string case labels of setAgentKey in
// agent.go, in source order.
func decoderAgentKeys(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "agent.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "setAgentKey" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sw, ok := n.(*ast.SwitchStmt)
			if !ok || sw.Tag == nil {
				return true
			}
			if id, ok := sw.Tag.(*ast.Ident); !ok || id.Name != "key" {
				return true
			}
			for _, st := range sw.Body.List {
				for _, e := range st.(*ast.CaseClause).List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						k, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						keys = append(keys, k)
					}
				}
			}
			return false
		})
	}
	if len(keys) == 0 {
		t.Fatal("found no case labels in setAgentKey")
	}
	return keys
}
