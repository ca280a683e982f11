package ui

import (
	"strings"
	"testing"
	"time"
)

// TestPaneTitleOfAnUnreachableHost: an agent whose host cannot be reached
// says so in its title, which stands out.
func TestPaneTitleOfAnUnreachableHost(t *testing.T) {
	t.Parallel()
	p := &pane{info: AgentInfo{Name: "sh@b", Host: "b", Profile: "shell", Status: "unreachable"}}
	title := p.titleText(2, 0, "", false, 120, time.Now())
	if !strings.Contains(title, "2 sh@b · shell · host b unreachable, retrying") {
		t.Errorf("title %q", title)
	}
	if !p.needsAttention() {
		t.Error("an unreachable host's pane does not stand out")
	}
	p.info.Status = "idle"
	if title := p.titleText(2, 0, "", false, 120, time.Now()); strings.Contains(title, "unreachable") || p.needsAttention() {
		t.Errorf("back: title %q, attention %v", title, p.needsAttention())
	}
}
