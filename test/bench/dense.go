package main

// dense.go: throughput of a generated escape-dense stream.

import (
	"fmt"
	"os"
	"path/filepath"

	"office/test/inkstream"
)

// dense runs the escape-dense stream (inkstream.Dense: synchronized
// full-screen frames, every row addressed, erased and recoloured in
// 256-colour SGR, CJK) like the Ink-like one.
func (e *env) dense(mb, reps int) error {
	data := filepath.Join(e.dir, "dense.stream")
	if err := os.WriteFile(data, inkstream.Dense(mb<<20), 0o600); err != nil {
		return err
	}
	return e.streamData(data, fmt.Sprintf("%d MB escape-dense stream (full-screen synchronized frames)", mb), reps)
}
