package wire_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"office/wire"
)

// The wire's codec (Marshal, Decode) is a faster JSON library than
// encoding/json; these tests hold it to what encoding/json would do, so the
// protocol (docs/protocol.md) and the web client see the same bytes.

// codecMessages are every message Writer.Write sends (a client's Hello,
// Input, View, Subscribe, Focus and Call; the server's Screen), and some it
// writes otherwise, with what JSON encoders disagree on: HTML characters,
// invalid UTF-8, U+2028, control characters, omitted zeros, bytes, times,
// raw JSON, pointers and maps.
func codecMessages() []any {
	title := "✳ <b>&amp;</b>\u2028\x01"
	return []any{
		wire.Screen{T: wire.TScreen, Agent: "a", Instance: 3, Gen: 981, Full: true, Cols: 120, Rows: 40,
			Lines:  []wire.Line{{Y: 37, Runs: []wire.Run{{X: 0, Text: "│ > 中文\xff", W: 2, FG: 245, BG: 33554432, A: 17}, {X: 9, Text: "  "}}}, {Y: 2}},
			Cursor: &wire.Cursor{X: 8, Y: 37}, Title: &title, Modes: &wire.Modes{BracketedPaste: true, Mouse: 19, OSCState: "a\"b\\"}},
		wire.Input{T: wire.TInput, Agent: "a", Data: []byte("\x1b[200~hi\x00\xff")},
		wire.View{T: wire.TView, Focus: "b", Panes: map[string]wire.Size{"b": {Cols: 80, Rows: 24}, "a": {Cols: 1, Rows: 1}}, Resized: true},
		wire.Hello{T: wire.THello, Version: wire.Version, Client: "office <attach>", Screens: true, Subscribe: true, Agents: []string{"a", "b"}, Since: 7},
		wire.Subscribe{T: wire.TSubscribe, Agents: []string{}},
		wire.Subscribe{T: wire.TSubscribe},
		wire.Focus{T: wire.TFocus},
		wire.Call{T: wire.TCall, ID: 4, Op: "team.add", Agent: "a", Args: json.RawMessage(`{"cwd":"/tmp/x","env":{"B":"2","A":"1"}}`)},
		wire.Event{T: wire.TEvent, At: time.Date(2026, 12, 3, 9, 0, 0, 123456789, time.FixedZone("x", 3600)), Type: wire.EventNotice, Agent: "a", Text: "</script>"},
		wire.Reply{T: wire.TReply, ID: 12, Data: json.RawMessage(`{"x":[1,2,{"y":null}]}`)},
		wire.Reply{T: wire.TReply, ID: 13, Error: "bad", Input: true},
	}
}

func TestMarshalWritesWhatEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	for _, m := range codecMessages() {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("encoding/json: %T: %v", m, err)
		}
		got, err := wire.Marshal(m)
		if err != nil {
			t.Fatalf("wire.Marshal(%T): %v", m, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("wire.Marshal(%T):\n got %s\nwant %s", m, got, want)
		}
	}
}

// FuzzDecodeAsEncodingJSON: for any payload, Decode fails where
// encoding/json fails and otherwise fills the message as it would.
func FuzzDecodeAsEncodingJSON(f *testing.F) {
	for _, m := range codecMessages() {
		b, err := json.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"T":"input","AGENT":"a","data":"aGk","data":"aGk="}`))
	f.Add([]byte(`{"t":"screen","cols":1e3,"lines":[{"y":-1,"runs":null}],"cursor":null}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, mk := range []func() any{
			func() any { return new(wire.Input) }, func() any { return new(wire.Screen) },
			func() any { return new(wire.View) }, func() any { return new(wire.Call) },
			func() any { return new(wire.Hello) }, func() any { return new(wire.Subscribe) },
			func() any { return new(wire.Event) }, func() any { return new(wire.Reply) },
			func() any { return new(wire.Roster) }, func() any { return new(wire.State) },
			func() any { return new(wire.Welcome) }, func() any { return new(wire.Bye) },
		} {
			want, got := mk(), mk()
			werr := json.Unmarshal(p, want)
			gerr := wire.Decode(p, got)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("%T from %q: encoding/json says %v, Decode %v", want, p, werr, gerr)
			}
			if werr == nil && !reflect.DeepEqual(want, got) {
				t.Fatalf("%T from %q: encoding/json gives %+v, Decode %+v", want, p, want, got)
			}
		}
	})
}
