package tplcache

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/indexes"
)

// Entry is one template: its collections as the server returned them.
type Entry struct {
	Key string
	// What says, for people, what the template holds: the plan or the
	// fixture files.
	What        string
	Collections []Collection
}

// Collection is one collection of a template: its documents, in the
// order the server returned them, and its indexes (not _id's).
type Collection struct {
	Name    string
	Docs    []bson.Raw
	Indexes []indexes.Index
}

// An entry file is
//
//	magic      16 bytes, "oidkit template\n"
//	version    uint32, little-endian: FormatVersion
//	length     uint32, little-endian: of the header
//	header     a BSON document (header): key, what, and per collection its
//	           name, document count, bytes and index declarations
//	documents  every collection's documents, one BSON document after the
//	           other, collection after collection
//	checksum   uint32, little-endian: CRC-32C (Castagnoli) of all the bytes
//	           before it
//
// The header comes first so that List reads only it. The checksum finds a
// damaged or cut-short file (it is a cache, not a defence against an
// attacker who can write to it) at memory speed: CRC-32C has an
// instruction of its own on amd64 and arm64, where SHA-256 of a
// 10,000-document entry cost 5 ms.
const magic = "oidkit template\n"

const (
	prefixLen = len(magic) + 8
	sumLen    = 4
	maxHeader = 64 << 20
)

type header struct {
	Key     string       `bson:"key"`
	What    string       `bson:"what"`
	Created time.Time    `bson:"created"`
	Colls   []collHeader `bson:"collections"`
}

type collHeader struct {
	Name    string   `bson:"name"`
	Docs    int64    `bson:"docs"`
	Bytes   int64    `bson:"bytes"`
	Indexes []bson.D `bson:"indexes"`
}

func (e *Entry) header() header {
	h := header{Key: e.Key, What: e.What, Created: time.Now().UTC().Truncate(time.Millisecond)}
	for _, c := range e.Collections {
		ch := collHeader{Name: c.Name, Docs: int64(len(c.Docs)), Indexes: []bson.D{}}
		for _, d := range c.Docs {
			ch.Bytes += int64(len(d))
		}
		for _, ix := range c.Indexes {
			ch.Indexes = append(ch.Indexes, ix.Document())
		}
		h.Colls = append(h.Colls, ch)
	}
	return h
}

// encodedSize is the size of e's file with header h of length n.
func encodedSize(h header, n int) int64 {
	size := int64(prefixLen + n + sumLen)
	for _, c := range h.Colls {
		size += c.Bytes
	}
	return size
}

// write writes e, whose header is raw, to w.
func (e *Entry) write(w io.Writer, raw []byte) error {
	sum := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 1<<20)
	var prefix [prefixLen]byte
	copy(prefix[:], magic)
	binary.LittleEndian.PutUint32(prefix[len(magic):], FormatVersion)
	binary.LittleEndian.PutUint32(prefix[len(magic)+4:], uint32(len(raw)))
	_, _ = bw.Write(prefix[:])
	_, _ = bw.Write(raw)
	for _, c := range e.Collections {
		for _, d := range c.Docs {
			_, _ = bw.Write(d)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32()))
	return err
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errFormat is an entry file this version cannot read: another format,
// damaged, or cut short.
var errFormat = errors.New("not a template entry of this version")

// readHeader reads the prefix and header of an entry from r.
func readHeader(r io.Reader) (header, error) {
	var h header
	var prefix [prefixLen]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return h, fmt.Errorf("%w: %v", errFormat, err)
	}
	if string(prefix[:len(magic)]) != magic {
		return h, fmt.Errorf("%w: no entry header", errFormat)
	}
	if v := binary.LittleEndian.Uint32(prefix[len(magic):]); v != FormatVersion {
		return h, fmt.Errorf("%w: format version %d, this oidkit reads %d", errFormat, v, FormatVersion)
	}
	n := binary.LittleEndian.Uint32(prefix[len(magic)+4:])
	if n > maxHeader {
		return h, fmt.Errorf("%w: a header of %d bytes", errFormat, n)
	}
	raw := make([]byte, n)
	if _, err := io.ReadFull(r, raw); err != nil {
		return h, fmt.Errorf("%w: header: %v", errFormat, err)
	}
	if err := bson.Unmarshal(raw, &h); err != nil {
		return h, fmt.Errorf("%w: header: %v", errFormat, err)
	}
	return h, nil
}

// decode reads a whole entry file: the documents are slices of data.
func decode(data []byte) (*Entry, error) {
	if len(data) < prefixLen+sumLen {
		return nil, fmt.Errorf("%w: %d bytes", errFormat, len(data))
	}
	body := data[:len(data)-sumLen]
	r := bytes.NewReader(body)
	h, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errFormat)
	}
	rest := body[len(body)-r.Len():]
	e := &Entry{Key: h.Key, What: h.What}
	for _, ch := range h.Colls {
		c, err := ch.collection(rest)
		if err != nil {
			return nil, err
		}
		rest = rest[ch.Bytes:]
		e.Collections = append(e.Collections, c)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the documents", errFormat, len(rest))
	}
	return e, nil
}

// collection reads the collection ch describes from the start of data.
func (ch collHeader) collection(data []byte) (Collection, error) {
	c := Collection{Name: ch.Name, Docs: make([]bson.Raw, 0, ch.Docs)}
	if ch.Bytes < 0 || ch.Bytes > int64(len(data)) {
		return c, fmt.Errorf("%w: collection %s: %d bytes of documents, %d left", errFormat, ch.Name, ch.Bytes, len(data))
	}
	rest := bsoncore.Document(data[:ch.Bytes])
	for len(rest) > 0 {
		d, r, ok := bsoncore.ReadDocument(rest)
		if !ok {
			return c, fmt.Errorf("%w: collection %s: document %d cut short", errFormat, ch.Name, len(c.Docs))
		}
		c.Docs = append(c.Docs, bson.Raw(d[:len(d):len(d)])) // an append never reaches the next
		rest = r
	}
	if int64(len(c.Docs)) != ch.Docs {
		return c, fmt.Errorf("%w: collection %s: %d documents, the header says %d", errFormat, ch.Name, len(c.Docs), ch.Docs)
	}
	for _, d := range ch.Indexes {
		ix, err := indexes.FromDocument(d)
		if err != nil {
			return c, fmt.Errorf("%w: collection %s: %v", errFormat, ch.Name, err)
		}
		c.Indexes = append(c.Indexes, ix)
	}
	return c, nil
}
