package seed

import (
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/oid"
)

// ObjectID is the ObjectID of document i under the objectid strategy.
func (c *Collection) ObjectID(i int64) oid.ID {
	n := uint64(c.counterStart) + uint64(i)
	// Each counter wrap moves the random value up by one (see the package doc).
	return oid.FromParts(uint32(c.unix(i)), c.oidRandom+n>>24, uint32(n))
}

// danglingID is an _id of the same form as ID(i) that no document of c
// has: for ObjectIDs, document i's time with the top bit of its random
// part flipped (the random parts of c's documents differ from the
// collection's by less than 2^17); else the _id of a document past the end.
func (c *Collection) danglingID(i int64) any {
	if c.idKind(i) == IDObjectID {
		n := uint64(c.counterStart) + uint64(i)
		return bson.ObjectID(oid.FromParts(uint32(c.unix(i)), (c.oidRandom+n>>24)^1<<39, uint32(n)))
	}
	return c.ID(c.spec.Count + i)
}

// idCut is one strategy of an IDMix: the documents whose point falls
// below below (and above the previous cut's) use kind.
type idCut struct {
	below uint64
	kind  IDKind
}

// bindIDs sets what makes the collection's _ids: int64 ints when some
// IDStart+i leaves int32, the IDMix as cuts of [0, 2^64).
func (c *Collection) bindIDs() {
	if cs := &c.spec; cs.usesID(IDInt) {
		c.idq = newIDCurve(cs.IDQuantiles, cs.Count)
		last := c.intID(max(cs.Count-1, 0))
		c.id64 = cs.IDStart < -1<<31 || last > 1<<31-1
	}
	sum := 0.0
	for _, s := range c.spec.IDMix {
		sum += s.Share
		c.idMix = append(c.idMix, idCut{below: uint64(math.Ldexp(sum, 64)), kind: s.ID.Kind})
	}
	c.idPhase = derive(c.key, tagIDMix, 0)
}

// idKind is the strategy that makes document i's _id: the collection's own,
// or under an IDMix the one whose cut holds document i's point, a Weyl
// sequence (idPhase + i*golden, modulo 2^64) from the seed. Its points are
// spread so evenly over [0, 2^64) that any run of documents holds every
// strategy in its share to within a few documents, and they depend on i and
// the seed alone.
func (c *Collection) idKind(i int64) IDKind {
	if len(c.idMix) == 0 {
		return c.spec.ID.Kind
	}
	u := c.idPhase + uint64(i)*golden
	for _, cut := range c.idMix {
		if u < cut.below {
			return cut.kind
		}
	}
	return c.spec.ID.Kind
}

// ID is the _id of document i: a bson.ObjectID, an int32 or int64, a
// bson.Binary of subtype 4, or the natural key's value. Only field:NAME
// strategies build the document (without resolving its references).
func (c *Collection) ID(i int64) any {
	switch c.idKind(i) {
	case IDInt:
		if c.id64 {
			return c.intID(i)
		}
		return int32(c.intID(i))
	case IDUUID:
		u := c.uuid(i)
		return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: u[:]}
	case IDField:
		w := c.pool.Get().(*Worker)
		defer c.pool.Put(w)
		w.noRefs = true
		d := w.Doc(i)
		w.noRefs = false
		for _, e := range d {
			if e.Key == c.spec.ID.Field {
				return e.Value
			}
		}
		return nil
	default:
		return bson.ObjectID(c.ObjectID(i))
	}
}

// uuid is the _id of document i under the uuid strategy: version 4 bits
// from the collection's key.
func (c *Collection) uuid(i int64) [16]byte {
	var u [16]byte
	binary.BigEndian.PutUint64(u[0:8], derive(c.key, tagUUID, i))
	binary.BigEndian.PutUint64(u[8:16], derive(c.key, tagUUID^tagSecond, i))
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u
}

// appendID appends ID(i) as the BSON element key, without boxing it; a
// field:NAME _id, which needs the document, is left to ID (false).
func (c *Collection) appendID(dst []byte, key string, i int64) ([]byte, bool) {
	switch c.idKind(i) {
	case IDInt:
		if c.id64 {
			return bsoncore.AppendInt64Element(dst, key, c.intID(i)), true
		}
		return bsoncore.AppendInt32Element(dst, key, int32(c.intID(i))), true
	case IDUUID:
		u := c.uuid(i)
		return bsoncore.AppendBinaryElement(dst, key, bson.TypeBinaryUUID, u[:]), true
	case IDField:
		return dst, false
	default:
		return bsoncore.AppendObjectIDElement(dst, key, c.ObjectID(i)), true
	}
}

// idStep is IDStep, 0 taken as 1.
func (cs CollectionSpec) idStep() int64 { return max(cs.IDStep, 1) }

// intID is the int strategy's _id of document i.
func (c *Collection) intID(i int64) int64 {
	if c.idq != nil {
		return c.idq.id(i)
	}
	return c.spec.IDStart + i*c.spec.idStep()
}
