package pool

import (
	"bytes"
	"testing"

	"office/test/inkstream"
)

// onlcr is data as a program's writes come out of a PTY: the line
// discipline turns each LF into CR LF.
func onlcr(data []byte) []byte { return bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")) }

// BenchmarkScreenFeedInk is Screen.Feed on test/bench's Ink-like stream as
// it comes out of the PTY (LF made CR LF).
func BenchmarkScreenFeedInk(b *testing.B) { benchScreenFeed(b, onlcr(inkstream.Generate(1<<20))) }

// BenchmarkScreenFeedDense is Screen.Feed on test/bench's escape-dense
// stream (inkstream.Dense: full-screen synchronized frames).
func BenchmarkScreenFeedDense(b *testing.B) { benchScreenFeed(b, inkstream.Dense(1<<20)) }

// BenchmarkScreenFeedInkUnbatched and BenchmarkScreenFeedDenseUnbatched are
// the same with the Filter's output written to vt10x as it is (batch.go's
// baseline).
func BenchmarkScreenFeedInkUnbatched(b *testing.B) {
	benchScreenFeedWith(b, onlcr(inkstream.Generate(1<<20)), true)
}

func BenchmarkScreenFeedDenseUnbatched(b *testing.B) {
	benchScreenFeedWith(b, inkstream.Dense(1<<20), true)
}

// BenchmarkFilterOnlyDense is the Filter alone on the escape-dense stream.
func BenchmarkFilterOnlyDense(b *testing.B) { benchFilter(b, inkstream.Dense(1<<20)) }
