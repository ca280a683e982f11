package configs

import (
	"bytes"
	"testing"
)

func TestDefault(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != DefaultPath {
		t.Errorf("Path %q", c.Path)
	}
	want := []struct {
		name     string
		optional bool
		fallback bool
	}{
		{"claude", true, false},
		{"codex", true, false},
		{"gemini", true, false},
		{"shell", false, true},
	}
	if len(c.Agents) != len(want) {
		t.Fatalf("%d agents, want %d", len(c.Agents), len(want))
	}
	for i, w := range want {
		a := c.Agents[i]
		if a.Name != w.name || a.Profile != w.name || a.Optional != w.optional || a.Fallback != w.fallback {
			t.Errorf("agent %d = %+v, want %+v with profile %q", i, a, w, w.name)
		}
		if a.Line == 0 {
			t.Errorf("agent %s: no header line", a.Name)
		}
		if _, err := c.Argv(a); err != nil {
			t.Errorf("agent %s: %v", a.Name, err)
		}
	}
}

func TestDefaultTOMLIsACopy(t *testing.T) {
	b := DefaultTOML()
	if !bytes.Contains(b, []byte("[[agent]]")) {
		t.Fatalf("DefaultTOML has no agents:\n%s", b)
	}
	b[0] = 'X'
	if DefaultTOML()[0] == 'X' {
		t.Errorf("DefaultTOML shares its bytes")
	}
}
