package configs

import (
	"errors"
	"os/exec"
	"reflect"
	"slices"
	"testing"
)

// fakePath finds exactly the programs it lists.
func fakePath(found ...string) func(string) (string, error) {
	return func(prog string) (string, error) {
		if slices.Contains(found, prog) {
			return "/usr/bin/" + prog, nil
		}
		return "", &exec.Error{Name: prog, Err: exec.ErrNotFound}
	}
}

func agentNames(c *Config) []string {
	var out []string
	for _, a := range c.Agents {
		out = append(out, a.Name)
	}
	return out
}

func TestResolveDefault(t *testing.T) {
	def, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		found  []string
		agents []string
		notice string
	}{
		{"nothing installed: the shell", nil, []string{"shell"},
			"no agent CLI (claude, codex, gemini) found on PATH: running your shell; add agents with --config FILE (see README)"},
		{"only bash: the shell", []string{"bash"}, []string{"shell"},
			"no agent CLI (claude, codex, gemini) found on PATH: running your shell; add agents with --config FILE (see README)"},
		{"claude only", []string{"claude", "bash"}, []string{"claude"},
			"not on PATH, skipped: codex (codex), gemini (gemini)"},
		{"claude and gemini", []string{"claude", "gemini"}, []string{"claude", "gemini"},
			"not on PATH, skipped: codex (codex)"},
		{"all three", []string{"claude", "codex", "gemini"}, []string{"claude", "codex", "gemini"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, notice, err := def.Resolve(fakePath(c.found...))
			if err != nil {
				t.Fatal(err)
			}
			if names := agentNames(got); !reflect.DeepEqual(names, c.agents) {
				t.Errorf("agents %q, want %q", names, c.agents)
			}
			if notice != c.notice {
				t.Errorf("notice\n got: %q\nwant: %q", notice, c.notice)
			}
		})
	}
	if len(def.Agents) != 4 {
		t.Errorf("Resolve changed its receiver: %d agents", len(def.Agents))
	}
}

func TestResolveKeepsRequiredAgents(t *testing.T) {
	src := `[[agent]]
name = "lead"
profile = "claude"

[[agent]]
name = "helper"
profile = "codex"
optional = true
parent = "lead"

[[agent]]
name = "sub"
profile = "gemini"
parent = "helper"
`
	c, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got, notice, err := c.Resolve(fakePath())
	if err != nil {
		t.Fatal(err)
	}
	if names := agentNames(got); !reflect.DeepEqual(names, []string{"lead", "sub"}) {
		t.Errorf("agents %q: a required agent is kept even when its program is missing", names)
	}
	if notice != "not on PATH, skipped: helper (codex)" {
		t.Errorf("notice %q", notice)
	}
	if sub, _ := got.Agent("sub"); sub.Parent != "" {
		t.Errorf("sub's parent %q was dropped; want \"\" (the person)", sub.Parent)
	}
	if orig, _ := c.Agent("sub"); orig.Parent != "helper" {
		t.Errorf("Resolve changed the receiver's agent: parent %q", orig.Parent)
	}
}

func TestResolveFallbackNotNeeded(t *testing.T) {
	src := "[[agent]]\nname = \"a\"\ncommand = [\"tool\"]\n[[agent]]\nname = \"sh\"\nprofile = \"shell\"\nfallback = true\n"
	c, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got, notice, err := c.Resolve(fakePath())
	if err != nil {
		t.Fatal(err)
	}
	if names := agentNames(got); !reflect.DeepEqual(names, []string{"a"}) || notice != "" {
		t.Errorf("agents %q, notice %q; want [a] and no notice", names, notice)
	}
}

func TestResolveNamedFallback(t *testing.T) {
	src := "[[agent]]\nname = \"a\"\ncommand = [\"tool\"]\noptional = true\n" +
		"[[agent]]\nname = \"backup\"\ncommand = [\"other\"]\nfallback = true\n"
	c, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, notice, err := c.Resolve(fakePath())
	want := `no agent CLI (tool) found on PATH: running fallback "backup"; add agents with --config FILE (see README)`
	if err != nil || notice != want {
		t.Errorf("notice %q, %v; want %q", notice, err, want)
	}
}

func TestResolveNoAgent(t *testing.T) {
	empty, err := Parse("office.toml", []byte("brief = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := empty.Resolve(fakePath()); err == nil || err.Error() != "configs: office.toml: no agents: add an [[agent]] table" {
		t.Errorf("no agents: error %v", err)
	}
	opt, err := Parse("office.toml", []byte("[[agent]]\nname = \"a\"\nprofile = \"claude\"\noptional = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = opt.Resolve(fakePath())
	want := "configs: office.toml: no agent can run: claude not found on PATH and no fallback agent is configured"
	if err == nil || err.Error() != want {
		t.Errorf("all optional missing: error %v, want %q", err, want)
	}
}

func TestResolveUsesArgvProgram(t *testing.T) {
	src := "[[agent]]\nname = \"c\"\nprofile = \"claude\"\ncommand = [\"/opt/claude/claude\"]\noptional = true\n"
	c, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	_, _, err = c.Resolve(func(p string) (string, error) {
		asked = append(asked, p)
		return "", errors.New("no")
	})
	if !reflect.DeepEqual(asked, []string{"/opt/claude/claude"}) {
		t.Errorf("lookPath asked %q, want the agent's own program", asked)
	}
	if err == nil {
		t.Errorf("want an error: nothing can run")
	}
}
