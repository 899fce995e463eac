package rules

import (
	"crypto/sha256"
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// IDKey identifies an _id value the way a unique index compares it, in 16
// bytes: short values are kept whole (an ObjectID, an integer, a short
// string), longer ones by a 120-bit hash, so a set of keys costs a few tens
// of bytes per document whatever the _id type. Equal keys are equal under
// CompareIDs (up to the hash's collisions).
type IDKey [16]byte

// Markers in the first byte that are not BSON type numbers.
const (
	keyHashed  = 0x00
	keyInteger = 'N'
	keyDouble  = 'D'
)

// KeyOf returns the key of an _id value. Numbers that MongoDB considers equal
// (int32 5, int64 5 and double 5.0) get the same key, so an _id stored with
// another numeric type is still found.
func KeyOf(v bson.RawValue) IDKey {
	var k IDKey
	if i, ok := Integral(v); ok {
		return intKey(i)
	}
	if v.Type == bson.TypeDouble {
		if f, ok := v.DoubleOK(); ok {
			k[0] = keyDouble
			if math.IsNaN(f) {
				f = math.NaN()
			}
			binary.LittleEndian.PutUint64(k[1:], math.Float64bits(f))
			return k
		}
	}
	if len(v.Value) <= len(k)-2 {
		k[0] = byte(v.Type)
		k[1] = byte(len(v.Value))
		copy(k[2:], v.Value)
		return k
	}
	h := sha256.New()
	h.Write([]byte{byte(v.Type)})
	h.Write(v.Value)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	k[0] = keyHashed
	copy(k[1:], sum[:])
	return k
}

func intKey(i int64) IDKey {
	var k IDKey
	k[0] = keyInteger
	binary.LittleEndian.PutUint64(k[1:], uint64(i))
	return k
}
