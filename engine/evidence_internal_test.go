package engine

import (
	"strings"
	"testing"

	"office/configs"
)

func TestReplyRegionDropsTheChrome(t *testing.T) {
	t.Parallel()
	c, err := configs.Parse("office.toml", []byte("[[agent]]\nname = \"a\"\nprofile = \"claude\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.ProfileOf(c.Agents[0])
	if err != nil {
		t.Fatal(err)
	}
	screen := strings.Join([]string{
		"fakeagent (test double)",
		"",
		"❯ first question",
		"",
		"● reply: first answer",
		"",
		"❯ summarise the parser, a long request that",
		"  wraps onto a second row",
		"  ",
		"  and has a paragraph of its own",
		"",
		"● The parser is done.",
		"  Two tests remain.",
		"",
		"✻ Cooked for 1m 3s · done 6:56 PM",
		"",
		"──────────────────────────────",
		"❯\u00a0",
		"──────────────────────────────",
		"  ? for shortcuts",
	}, "\n")
	got := strings.TrimSpace(ReplyRegion(screen, p))
	if want := "● The parser is done.\n  Two tests remain."; got != want {
		t.Fatalf("ReplyRegion:\n%s\nwant:\n%s", got, want)
	}
}
