package wire

// frame.go reads and writes frames: a 4-byte big-endian length, then that many
// bytes of JSON.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	gojson "github.com/goccy/go-json"
)

// SocketFile is the server's client socket in the state directory (mode
// 0600 in the 0700 directory).
const SocketFile = "client.sock"

// Version is the protocol version this build speaks. A client and a server of
// different versions refuse each other in the handshake (see Refused).
const Version = 1

// Frame size limits. Every frame a server reads from a client is at most
// MaxClientFrame bytes (a paste or a message body fits: inbox bodies are at
// most 1 MiB); a client accepts server frames up to MaxServerFrame (a screen
// update is split into several frames long before that).
const (
	MaxClientFrame = 4 << 20
	MaxServerFrame = 16 << 20
	// headerLen is the length prefix.
	headerLen = 4
)

// ErrFrameTooLarge is returned for a frame longer than the reader's limit;
// the connection cannot be resynchronised after it and must be closed.
var ErrFrameTooLarge = errors.New("wire: frame too large")

// ErrEmptyFrame is returned for a frame of length 0 (no message).
var ErrEmptyFrame = errors.New("wire: empty frame")

// Reader reads frames from a stream.
type Reader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// NewReader returns a Reader over r accepting frames of at most max bytes.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next frame's payload and its message type. The payload is
// valid until the next call. At a clean end of stream it returns io.EOF; a
// stream cut inside a frame is io.ErrUnexpectedEOF.
func (r *Reader) Next() (typ string, payload []byte, err error) {
	var hdr [headerLen]byte
	if _, err := io.ReadFull(r.r, hdr[:]); err != nil {
		return "", nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 {
		return "", nil, ErrEmptyFrame
	}
	if uint64(n) > uint64(r.max) {
		return "", nil, fmt.Errorf("%w: %d bytes, at most %d", ErrFrameTooLarge, n, r.max)
	}
	if cap(r.buf) < int(n) {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return "", nil, err
	}
	typ, err = TypeOf(r.buf)
	if err != nil {
		return "", nil, err
	}
	return typ, r.buf, nil
}

// TypeOf returns the "t" field of one frame's JSON object. A frame that
// opens with it (every frame office writes: T is each message's first
// field) is not parsed further here: the message's decoding checks the
// rest, and a frame of a type the reader ignores costs nothing more.
func TypeOf(payload []byte) (string, error) {
	if t, ok := leadingType(payload); ok {
		return t, nil
	}
	var env struct {
		T string `json:"t"`
	}
	if err := gojson.Unmarshal(payload, &env); err != nil {
		return "", fmt.Errorf("wire: bad frame: %w", err)
	}
	if env.T == "" {
		return "", errors.New(`wire: bad frame: no "t" field`)
	}
	return env.T, nil
}

// leadingType reads a "t" field that opens payload: {"t":"name", with a
// name of lower-case letters and underscores (every message type's).
func leadingType(payload []byte) (string, bool) {
	const open = `{"t":"`
	if len(payload) < len(open) || string(payload[:len(open)]) != open {
		return "", false
	}
	rest := payload[len(open):]
	for i, b := range rest {
		switch {
		case b == '"' && i > 0:
			if i+1 < len(rest) && (rest[i+1] == ',' || rest[i+1] == '}') {
				return string(rest[:i]), true
			}
			return "", false
		case b == '_' || (b >= 'a' && b <= 'z'):
		default:
			return "", false
		}
	}
	return "", false
}

// Writer writes frames to a stream. It is not safe for concurrent use.
type Writer struct {
	w *bufio.Writer
}

// NewWriter returns a Writer over w. Frames are buffered until Flush.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 64<<10)} }

// Write encodes m (a message struct; its T field is set by the caller or by
// the constructor functions) as one frame.
func (w *Writer) Write(m any) error {
	b, err := Marshal(m)
	if err != nil {
		return fmt.Errorf("wire: encode %T: %w", m, err)
	}
	return w.WriteRaw(b)
}

// WriteRaw writes payload, one JSON object, as one frame.
func (w *Writer) WriteRaw(payload []byte) error {
	if len(payload) == 0 {
		return ErrEmptyFrame
	}
	if uint64(len(payload)) > 0xffffffff {
		return ErrFrameTooLarge
	}
	var hdr [headerLen]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(payload)))
	if _, err := w.w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.w.Write(payload)
	return err
}

// AppendFrame appends payload, one JSON object, to dst as one frame (what
// WriteRaw writes), for a caller that writes the stream itself.
func AppendFrame(dst, payload []byte) ([]byte, error) {
	if len(payload) == 0 {
		return dst, ErrEmptyFrame
	}
	if uint64(len(payload)) > 0xffffffff {
		return dst, ErrFrameTooLarge
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...), nil
}

// Flush sends the buffered frames.
func (w *Writer) Flush() error { return w.w.Flush() }

// Buffered returns the bytes written but not yet flushed.
func (w *Writer) Buffered() int { return w.w.Buffered() }

// Marshal encodes m, one message, as JSON: what Write frames.
//
// The wire's JSON is goccy/go-json's, a faster drop-in for encoding/json
// (a key's echo is encoded and decoded twice on its way): codec_test.go
// holds it to encoding/json's bytes and results.
func Marshal(m any) ([]byte, error) { return gojson.Marshal(m) }

// Decode unmarshals payload into v (a pointer to a message struct).
func Decode(payload []byte, v any) error {
	if err := gojson.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("wire: decode %T: %w", v, err)
	}
	return nil
}
