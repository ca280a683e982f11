package main

import (
	"bytes"
	"encoding/json"
	"os"
	"time"
)

// kv is one field of a log line; fields keep their order.
type kv struct {
	k string
	v any
}

// eventLog appends JSON lines to a file. A nil file makes it a no-op.
type eventLog struct {
	f *os.File
}

func openLog(path string) (*eventLog, error) {
	if path == "" {
		return &eventLog{}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return &eventLog{}, err
	}
	return &eventLog{f: f}, nil
}

func stamp() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// event writes {"event":name, fields..., "time":...} as one line in one
// write call. If fields contain "time" it is not added again.
func (l *eventLog) event(name string, fields ...kv) {
	if l.f == nil {
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"event":`)
	writeJSON(&b, name)
	hasTime := false
	for _, f := range fields {
		if f.k == "time" {
			hasTime = true
		}
		b.WriteByte(',')
		writeJSON(&b, f.k)
		b.WriteByte(':')
		writeJSON(&b, f.v)
	}
	if !hasTime {
		b.WriteString(`,"time":`)
		writeJSON(&b, stamp())
	}
	b.WriteString("}\n")
	_, _ = l.f.Write(b.Bytes())
}

func writeJSON(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.WriteString("null")
		return
	}
	// Encode appends a newline; drop it.
	if n := b.Len(); n > 0 && b.Bytes()[n-1] == '\n' {
		b.Truncate(n - 1)
	}
}

func (l *eventLog) close() {
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}
