package wire_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"office/wire"
)

// TestOpsUnique pins the table: every call is declared once, by one name.
func TestOpsUnique(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, o := range wire.Ops {
		if o.Name == "" || seen[o.Name] {
			t.Errorf("op %q: empty or declared twice", o.Name)
		}
		seen[o.Name] = true
		if got, ok := wire.LookupOp(o.Name); !ok || got != o {
			t.Errorf("LookupOp(%q) = %+v, %v; want %+v", o.Name, got, ok, o)
		}
	}
	if _, ok := wire.LookupOp("no.such.op"); ok {
		t.Error("LookupOp found an op nobody declared")
	}
}

// TestProtocolDocOps holds docs/protocol.md's table of calls to wire.Ops:
// the same calls, in the same order, each with the same agent use.
func TestProtocolDocOps(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "### call")
	end := strings.Index(doc, "## Events")
	if start < 0 || end < start {
		t.Fatal(`docs/protocol.md: no "### call" section before "## Events"`)
	}
	var got []wire.OpInfo
	for _, line := range strings.Split(doc[start:end], "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			t.Fatalf("docs/protocol.md: short row %q", line)
		}
		agent := strings.TrimSpace(cells[2])
		var use wire.AgentUse
		switch {
		case strings.HasPrefix(agent, "required"):
			use = wire.AgentRequired
		case strings.HasPrefix(agent, "optional"):
			use = wire.AgentOptional
		case agent == "—":
			use = wire.AgentNone
		default:
			t.Errorf("docs/protocol.md: row %q: agent column %q says neither required, optional nor —", line, agent)
		}
		for _, name := range strings.Split(cells[1], "/") {
			got = append(got, wire.OpInfo{Name: strings.Trim(strings.TrimSpace(name), "`"), Agent: use})
		}
	}
	if !slices.Equal(got, wire.Ops) {
		t.Errorf("docs/protocol.md's calls differ from wire.Ops:\n doc:  %v\n wire: %v", got, wire.Ops)
	}
}
