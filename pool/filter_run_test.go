package pool

import (
	"bytes"
	"testing"

	"office/test/inkstream"
)

// filterBytes runs data through a new Filter in chunks of chunk bytes and
// returns its output and replies.
func filterBytes(data []byte, chunk int) (out, replies []byte) {
	f := NewFilter()
	for off := 0; off < len(data); off += chunk {
		var r []byte
		out, r = f.Process(out, data[off:min(off+chunk, len(data))])
		replies = append(replies, r...)
	}
	return out, replies
}

// TestFilterTextRunMatchesPrint: fed whole, runs of text take the copying
// fast path (textRun); fed one byte at a time, every multi-byte rune goes
// through print. Both must give the same bytes, on both benchmark streams
// and on text around every rune textRun must stop at.
func TestFilterTextRunMatchesPrint(t *testing.T) {
	t.Parallel()
	recorded, err := loadStream()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"recorded": recorded,
		"spinner":  inkstream.Generate(256 << 10),
		"edges": []byte("──x─👩\u200d─\u200d💻──中─🎉\U0001F3FD─\U0001F3FD" +
			"─e\u0301─\ufe0f─" + string(WidePlaceholder) + "──\xe2\x94──\xff─·─·\r\n" +
			"╭──╮\x1b[5b│ab│\x1b[3b\u200d─x─\x1b[2m─\x1b[22m\u200da──"),
	}
	for name, data := range cases {
		whole, wr := filterBytes(data, len(data))
		for _, chunk := range []int{1, 3, 4096} {
			got, gr := filterBytes(data, chunk)
			if !bytes.Equal(got, whole) || !bytes.Equal(gr, wr) {
				i := 0
				for i < min(len(got), len(whole)) && got[i] == whole[i] {
					i++
				}
				t.Errorf("%s: %d-byte chunks differ from the whole feed at byte %d: %q vs %q", name, chunk, i,
					got[max(i-16, 0):min(i+16, len(got))], whole[max(i-16, 0):min(i+16, len(whole))])
			}
		}
	}
}
