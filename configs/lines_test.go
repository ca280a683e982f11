package configs

import "testing"

// lineSrc exercises the scanner: comments, multi-line arrays and strings
// holding text that looks like keys and headers, sub-tables of array
// elements, dotted keys, quoted keys and inline tables.
const lineSrc = `# office  [[agent]]  name = "not a key"
prefix = "C-a"                       # line 2
mail_timeout = "1h"

[[agent]]                            # line 5
name = "a"
waiting = [
  "name = \"x\"",
  '[[agent]]',
]
task = """
[[agent]]
parent = "nope"
"""
parent = "b"                         # line 15

[agent.env]                          # line 17
FOO = "1"

[[agent]]                            # line 20
  name = "b"
  env.BAR = "2"
  "role" = 'quoted key'
command = ["x", { a = [1, 2] }]

[ profile . "claude" ]               # line 26
busy = ['#', "]"]
idle = [
  "?",
]                                    # line 30
waiting = ["w"]
`

func TestIndexSourceLines(t *testing.T) {
	ix := indexSource(lineSrc)
	cases := []struct {
		name string
		got  int
		want int
	}{
		{"top key", ix.line("prefix"), 2},
		{"second top key", ix.line("mail_timeout"), 3},
		{"missing top key", ix.line("brief"), 0},
		{"agent 0 header", ix.elem("agent", 0), 5},
		{"agent 0 name", ix.elem("agent", 0, "name"), 6},
		{"agent 0 waiting", ix.elem("agent", 0, "waiting"), 7},
		{"key after multi-line array", ix.elem("agent", 0, "task"), 11},
		{"key after multi-line string", ix.elem("agent", 0, "parent"), 15},
		{"sub-table of an element", ix.elem("agent", 0, "env"), 17},
		{"key in sub-table", ix.elem("agent", 0, "env", "FOO"), 18},
		{"unknown key in sub-table: the sub-table", ix.elem("agent", 0, "env", "NOPE"), 17},
		{"missing key: the header", ix.elem("agent", 0, "cwd"), 5},
		{"agent 1 header", ix.elem("agent", 1), 20},
		{"indented key", ix.elem("agent", 1, "name"), 21},
		{"dotted key, asked by its table", ix.elem("agent", 1, "env"), 22},
		{"dotted key", ix.elem("agent", 1, "env", "BAR"), 22},
		{"quoted key", ix.elem("agent", 1, "role"), 23},
		{"inline table in array", ix.elem("agent", 1, "command"), 24},
		{"no third agent: the array's key", ix.elem("agent", 2), 0},
		{"spaced, quoted header", ix.line("profile", "claude"), 26},
		{"key in it", ix.line("profile", "claude", "busy"), 27},
		{"after array with # and ] in strings", ix.line("profile", "claude", "idle"), 28},
		{"after multi-line array", ix.line("profile", "claude", "waiting"), 31},
		{"unknown profile: no line", ix.line("profile", "codex", "busy"), 0},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: line %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestIndexSourceDottedTopLevel(t *testing.T) {
	src := "brief = true\nprofile.claude.busy = [\"x\"]\nprofile.claude.idle = [\"y\"]\n"
	ix := indexSource(src)
	if got := ix.line("profile", "claude", "idle"); got != 3 {
		t.Errorf("dotted key: line %d, want 3", got)
	}
	if got := ix.line("profile", "claude"); got != 2 {
		t.Errorf("dotted table: line %d, want 2 (its first key)", got)
	}
}

func TestIndexSourceInlineAgents(t *testing.T) {
	src := "\n\nagent = [ { name = \"a\" },\n  { name = \"b\" } ]\n"
	ix := indexSource(src)
	if got := ix.elem("agent", 1, "name"); got != 3 {
		t.Errorf("inline array of tables: line %d, want 3 (the agent key)", got)
	}
}

func TestParseKeyPath(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		rest string
	}{
		{`a.b = 1`, []string{"a", "b"}, ` = 1`},
		{`"a.b" . 'c' ]`, []string{"a.b", "c"}, ` ]`},
		{`"q\"x" = 1`, []string{`q"x`}, ` = 1`},
		{`a-b_c9=`, []string{"a-b_c9"}, `=`},
	}
	for _, c := range cases {
		got, rest, ok := parseKeyPath(c.in)
		if !ok || rest != c.rest || len(got) != len(c.want) {
			t.Errorf("parseKeyPath(%q) = %q, %q, %v; want %q, %q", c.in, got, rest, ok, c.want, c.rest)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("parseKeyPath(%q) = %q, want %q", c.in, got, c.want)
			}
		}
	}
	for _, bad := range []string{``, `= 1`, `"open`, `a.`} {
		if _, _, ok := parseKeyPath(bad); ok {
			t.Errorf("parseKeyPath(%q) ok, want failure", bad)
		}
	}
}
