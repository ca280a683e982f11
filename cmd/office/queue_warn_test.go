package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"office/queue"
)

// warnTyping says what removing a message the drain had begun meant, from
// the message as the removing transaction read it.
func TestWarnTypingSaysWhatTheRemovalMeant(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		name string
		m    queue.Message
		want string
	}{
		{"only queued", queue.Message{ID: 1, Agent: "a"}, ""},
		{"interrupted by a stop", queue.Message{ID: 2, Agent: "a", Writing: now, Interrupted: true}, ""},
		{"being typed", queue.Message{ID: 3, Agent: "a", Writing: now},
			"office: message 3 was being typed into a: what was typed stays on its prompt, not submitted (clear it there)\n"},
		{"its Enter under way", queue.Message{ID: 4, Agent: "a", Writing: now, Entered: now},
			"office: message 4 was being submitted to a: it may have reached the agent\n"},
	} {
		var b bytes.Buffer
		warnTyping(&env{stderr: &b}, tc.m)
		if got := b.String(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if strings.Count(b.String(), "\n") > 1 {
			t.Errorf("%s: more than one line", tc.name)
		}
	}
}
