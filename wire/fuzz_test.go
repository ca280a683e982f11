package wire_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"office/pool"
	"office/wire"
)

func frame(s string) []byte {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(s)))
	return append(hdr[:], s...)
}

// FuzzDecode feeds arbitrary bytes to the frame reader and every message
// decoder a server or client uses, and applies screen updates: nothing may
// panic, and no frame over the limit is ever buffered.
func FuzzDecode(f *testing.F) {
	f.Add(frame(`{"t":"hello","version":1,"screens":true}`))
	f.Add(frame(`{"t":"input","agent":"a","data":"aGk="}`))
	f.Add(frame(`{"t":"view","panes":{"a":{"cols":80,"rows":24}}}`))
	f.Add(frame(`{"t":"call","id":1,"op":"status"}`))
	f.Add(append(frame(`{"t":"screen","agent":"a","full":true,"cols":4,"rows":2,"lines":[{"y":1,"runs":[{"x":0,"s":"ab","fg":2}]}]}`),
		frame(`{"t":"screen","agent":"a","cols":4,"rows":2,"scroll":1,"lines":[{"y":0,"runs":[{"x":0,"s":"中","w":2}]}]}`)...))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, '{'})
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 1 << 16
		r := wire.NewReader(bytes.NewReader(data), limit)
		var snap pool.Snapshot
		for {
			typ, p, err := r.Next()
			if err != nil {
				return
			}
			if len(p) > limit {
				t.Fatalf("frame of %d bytes over the %d limit", len(p), limit)
			}
			switch typ {
			case wire.THello:
				var m wire.Hello
				_ = wire.Decode(p, &m)
			case wire.TInput:
				var m wire.Input
				_ = wire.Decode(p, &m)
			case wire.TView:
				var m wire.View
				_ = wire.Decode(p, &m)
			case wire.TCall:
				var m wire.Call
				_ = wire.Decode(p, &m)
			case wire.TScreen:
				var m wire.Screen
				if wire.Decode(p, &m) == nil && m.Cols*m.Rows <= 1<<16 {
					_ = wire.Apply(&snap, &m)
				}
			}
		}
	})
}
