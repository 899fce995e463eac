package engine

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
	opReply = 1
	opQuery = 2004
	opMsg   = 2013
)

// maxMessageSize is the largest message the server reads or writes.
const maxMessageSize = 48000000

const (
	flagChecksum   = 1 << 0
	flagMoreToCome = 1 << 1
)

// message is a request: its header and its command document, with the
// document sequences of OP_MSG folded in as arrays.
type message struct {
	requestID  int32
	opcode     int32
	flags      uint32
	cmd        bsoncore.Document
	collection string // OP_QUERY's fullCollectionName
}

var errBadMessage = errors.New("malformed message")

// readMessage reads one message from r.
func readMessage(r io.Reader) (*message, error) {
	var h [16]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	size := int32(binary.LittleEndian.Uint32(h[0:]))
	if size < 16 || size > maxMessageSize {
		return nil, fmt.Errorf("%w: message length %d is outside 16..%d", errBadMessage, size, maxMessageSize)
	}
	body := make([]byte, size-16)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	m := &message{requestID: int32(binary.LittleEndian.Uint32(h[4:])), opcode: int32(binary.LittleEndian.Uint32(h[12:]))}
	switch m.opcode {
	case opMsg:
		return m, parseMsg(m, h[:], body)
	case opQuery:
		return m, parseQuery(m, body)
	}
	return nil, fmt.Errorf("%w: opcode %d is not supported (OP_MSG and OP_QUERY are)", errBadMessage, m.opcode)
}

func parseMsg(m *message, header, body []byte) error {
	if len(body) < 4 {
		return errBadMessage
	}
	m.flags = binary.LittleEndian.Uint32(body)
	rest := body[4:]
	if m.flags&flagChecksum != 0 {
		if len(rest) < 4 {
			return errBadMessage
		}
		sum := binary.LittleEndian.Uint32(rest[len(rest)-4:])
		rest = rest[:len(rest)-4]
		h := crc32.New(castagnoli)
		h.Write(header)
		h.Write(body[:len(body)-4])
		if h.Sum32() != sum {
			return fmt.Errorf("%w: checksum mismatch", errBadMessage)
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
				return fmt.Errorf("%w: invalid body section", errBadMessage)
			}
			m.cmd, rest = d, r
		case 1:
			if len(rest) < 4 {
				return errBadMessage
			}
			n := int(int32(binary.LittleEndian.Uint32(rest)))
			if n < 5 || n > len(rest) {
				return fmt.Errorf("%w: invalid document sequence size", errBadMessage)
			}
			sec := rest[4:n]
			rest = rest[n:]
			id, sr, ok := bsoncore.ReadKey(sec)
			if !ok {
				return errBadMessage
			}
			var docs []bsoncore.Value
			for len(sr) > 0 {
				d, r, ok := bsoncore.ReadDocument(sr)
				if !ok || d.Validate() != nil {
					return fmt.Errorf("%w: invalid document in sequence %q", errBadMessage, id)
				}
				docs = append(docs, vDoc(d))
				sr = r
			}
			seqs = append(seqs, struct {
				id   string
				docs []bsoncore.Value
			}{id, docs})
		default:
			return fmt.Errorf("%w: unknown section kind %d", errBadMessage, kind)
		}
	}
	if m.cmd == nil {
		return fmt.Errorf("%w: no body section", errBadMessage)
	}
	if len(seqs) > 0 {
		b := bsoncore.NewDocumentBuilder()
		for _, e := range elements(m.cmd) {
			b.AppendValue(e.Key(), e.Value())
		}
		for _, s := range seqs {
			b.AppendArray(s.id, bsoncore.BuildArray(nil, s.docs...))
		}
		m.cmd = b.Build()
	}
	return nil
}

func parseQuery(m *message, body []byte) error {
	if len(body) < 4 {
		return errBadMessage
	}
	m.flags = binary.LittleEndian.Uint32(body)
	rest := body[4:]
	name, rest, ok := bsoncore.ReadKey(rest)
	if !ok || len(rest) < 8 {
		return errBadMessage
	}
	m.collection = name
	rest = rest[8:]
	d, _, ok := bsoncore.ReadDocument(rest)
	if !ok || d.Validate() != nil {
		return fmt.Errorf("%w: invalid query document", errBadMessage)
	}
	if q, err := d.LookupErr("$query"); err == nil && q.Type == bsoncore.TypeEmbeddedDocument {
		d = bsoncore.Document(q.Data)
	}
	m.cmd = d
	return nil
}

// appendReply frames doc as the answer to req.
func appendReply(dst []byte, reqID, responseTo int32, opcode int32, doc bsoncore.Document) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, 16)...)
	binary.LittleEndian.PutUint32(dst[start+4:], uint32(reqID))
	binary.LittleEndian.PutUint32(dst[start+8:], uint32(responseTo))
	if opcode == opQuery {
		binary.LittleEndian.PutUint32(dst[start+12:], opReply)
		dst = binary.LittleEndian.AppendUint32(dst, 0) // flags
		dst = binary.LittleEndian.AppendUint64(dst, 0) // cursor id
		dst = binary.LittleEndian.AppendUint32(dst, 0) // starting from
		dst = binary.LittleEndian.AppendUint32(dst, 1) // number returned
	} else {
		binary.LittleEndian.PutUint32(dst[start+12:], opMsg)
		dst = binary.LittleEndian.AppendUint32(dst, 0)
		dst = append(dst, 0)
	}
	dst = append(dst, doc...)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}
