// Package wire reads and writes MongoDB's wire protocol as oidkit's
// server speaks it: OP_MSG (document sequences, CRC-32C checksums,
// moreToCome) and the legacy OP_QUERY of drivers' first handshake.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The opcodes of MongoDB's wire protocol the server speaks.
const (
	OpReply = 1
	OpQuery = 2004
	OpMsg   = 2013
)

// MaxMessageSize is the largest message the server reads or writes.
const MaxMessageSize = 48000000

const (
	FlagChecksum   = 1 << 0
	FlagMoreToCome = 1 << 1
)

// Message is a request: its header and its command document, with the
// document sequences of OP_MSG folded in as arrays.
type Message struct {
	RequestID  int32
	OpCode     int32
	Flags      uint32
	Cmd        bsoncore.Document
	Collection string // OP_QUERY's fullCollectionName
}

// ErrBadMessage is the error of bytes that are not a message the server
// speaks.
var ErrBadMessage = errors.New("malformed message")

// Read reads one message from r.
func Read(r io.Reader) (*Message, error) {
	var h [16]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	size := int32(binary.LittleEndian.Uint32(h[0:]))
	if size < 16 || size > MaxMessageSize {
		return nil, fmt.Errorf("%w: message length %d is outside 16..%d", ErrBadMessage, size, MaxMessageSize)
	}
	body := make([]byte, size-16)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	m := &Message{RequestID: int32(binary.LittleEndian.Uint32(h[4:])), OpCode: int32(binary.LittleEndian.Uint32(h[12:]))}
	switch m.OpCode {
	case OpMsg:
		return m, parseMsg(m, h[:], body)
	case OpQuery:
		return m, parseQuery(m, body)
	}
	return nil, fmt.Errorf("%w: opcode %d is not supported (OP_MSG and OP_QUERY are)", ErrBadMessage, m.OpCode)
}

func parseMsg(m *Message, header, body []byte) error {
	if len(body) < 4 {
		return ErrBadMessage
	}
	m.Flags = binary.LittleEndian.Uint32(body)
	rest := body[4:]
	if m.Flags&FlagChecksum != 0 {
		if len(rest) < 4 {
			return ErrBadMessage
		}
		sum := binary.LittleEndian.Uint32(rest[len(rest)-4:])
		rest = rest[:len(rest)-4]
		h := crc32.New(castagnoli)
		h.Write(header)
		h.Write(body[:len(body)-4])
		if h.Sum32() != sum {
			return fmt.Errorf("%w: checksum mismatch", ErrBadMessage)
		}
	}
	var seqs []struct {
		id   string
		docs []bsoncore.Value
	}
	for len(rest) > 0 {
		kind := rest[0]
		rest = rest[1:]
		switch kind {
		case 0:
			d, r, ok := bsoncore.ReadDocument(rest)
			if !ok || d.Validate() != nil {
				return fmt.Errorf("%w: invalid body section", ErrBadMessage)
			}
			m.Cmd, rest = d, r
		case 1:
			if len(rest) < 4 {
				return ErrBadMessage
			}
			n := int(int32(binary.LittleEndian.Uint32(rest)))
			if n < 5 || n > len(rest) {
				return fmt.Errorf("%w: invalid document sequence size", ErrBadMessage)
			}
			sec := rest[4:n]
			rest = rest[n:]
			id, sr, ok := bsoncore.ReadKey(sec)
			if !ok {
				return ErrBadMessage
			}
			var docs []bsoncore.Value
			for len(sr) > 0 {
				d, r, ok := bsoncore.ReadDocument(sr)
				if !ok || d.Validate() != nil {
					return fmt.Errorf("%w: invalid document in sequence %q", ErrBadMessage, id)
				}
				docs = append(docs, bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d})
				sr = r
			}
			seqs = append(seqs, struct {
				id   string
				docs []bsoncore.Value
			}{id, docs})
		default:
			return fmt.Errorf("%w: unknown section kind %d", ErrBadMessage, kind)
		}
	}
	if m.Cmd == nil {
		return fmt.Errorf("%w: no body section", ErrBadMessage)
	}
	if len(seqs) > 0 {
		b := bsoncore.NewDocumentBuilder()
		for _, e := range mustElements(m.Cmd) {
			b.AppendValue(e.Key(), e.Value())
		}
		for _, s := range seqs {
			b.AppendArray(s.id, bsoncore.BuildArray(nil, s.docs...))
		}
		m.Cmd = b.Build()
	}
	return nil
}

func parseQuery(m *Message, body []byte) error {
	if len(body) < 4 {
		return ErrBadMessage
	}
	m.Flags = binary.LittleEndian.Uint32(body)
	rest := body[4:]
	name, rest, ok := bsoncore.ReadKey(rest)
	if !ok || len(rest) < 8 {
		return ErrBadMessage
	}
	m.Collection = name
	rest = rest[8:]
	d, _, ok := bsoncore.ReadDocument(rest)
	if !ok || d.Validate() != nil {
		return fmt.Errorf("%w: invalid query document", ErrBadMessage)
	}
	if q, err := d.LookupErr("$query"); err == nil && q.Type == bsoncore.TypeEmbeddedDocument {
		d = bsoncore.Document(q.Data)
	}
	m.Cmd = d
	return nil
}

// AppendReply frames doc as the answer to req.
func AppendReply(dst []byte, reqID, responseTo int32, opcode int32, doc bsoncore.Document) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, 16)...)
	binary.LittleEndian.PutUint32(dst[start+4:], uint32(reqID))
	binary.LittleEndian.PutUint32(dst[start+8:], uint32(responseTo))
	if opcode == OpQuery {
		binary.LittleEndian.PutUint32(dst[start+12:], OpReply)
		dst = binary.LittleEndian.AppendUint32(dst, 0) // flags
		dst = binary.LittleEndian.AppendUint64(dst, 0) // cursor id
		dst = binary.LittleEndian.AppendUint32(dst, 0) // starting from
		dst = binary.LittleEndian.AppendUint32(dst, 1) // number returned
	} else {
		binary.LittleEndian.PutUint32(dst[start+12:], OpMsg)
		dst = binary.LittleEndian.AppendUint32(dst, 0)
		dst = append(dst, 0)
	}
	dst = append(dst, doc...)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}

// mustElements is d's elements, none if d is malformed (d has been
// validated before).
func mustElements(d bsoncore.Document) []bsoncore.Element {
	els, _ := d.Elements()
	return els
}

// castagnoli is the CRC-32C table of OP_MSG checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)
