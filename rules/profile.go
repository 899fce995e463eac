package rules

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// dollarScope is where a profile refuses '$'-prefixed keys.
type dollarScope uint8

const (
	dollarInID     dollarScope = iota // inside an _id document only
	dollarTopLevel                    // and at the top level
	dollarAnywhere                    // at any depth
)

// Profile is what one kind of server stores and what it can do, told
// apart once per server by Detect. The zero Profile refuses only malformed
// BSON and claims what MongoDB can do; use MongoDB or FerretDB.
type Profile struct {
	name         string
	ferretDB     bool
	serialWrites bool // one write at a time: more writers only queue
	sortInMemory bool // no sort from an index: a large sort is slow or refused
	scanQueries  bool // no query from an index: every find reads the collection
	missingOut   bool // a document missing a key field is not in the index
	noToDate     bool // no $toDate in aggregation
	noSample     bool // no $sample in aggregation
	maxSize      int  // bytes of BSON
	maxDepth     int  // levels, the top-level document being 1
	dollarKeys   dollarScope
	dottedKeys   bool // refused at any depth
	nestedArrays bool // an array directly in an array is refused
	nonFinite    bool // NaN and ±Inf refused
	negZero      bool // -0.0 refused
	stringUTF8   bool // string values must be valid UTF-8
	types        typeSet
}

// typeSet is a set of BSON types, bit n for type n below 0x20; MinKey (0xFF)
// and MaxKey (0x7F) take bits 0 and 0x1F, which no type uses.
type typeSet uint32

func typeBit(t bsoncore.Type) typeSet {
	switch t {
	case bsoncore.TypeMinKey:
		return 1
	case bsoncore.TypeMaxKey:
		return 1 << 0x1F
	}
	if t < 0x1F && t > 0 {
		return 1 << t
	}
	return 0
}

func types(ts ...bsoncore.Type) typeSet {
	var s typeSet
	for _, t := range ts {
		s |= typeBit(t)
	}
	return s
}

// MaxBSONSize is MongoDB's (and FerretDB's) largest document, 16 MiB.
const MaxBSONSize = 16 << 20

// MongoDB is what a MongoDB 5.0+ server stores; see the package doc.
var MongoDB = Profile{
	name:       "MongoDB",
	maxSize:    MaxBSONSize,
	maxDepth:   100,
	dollarKeys: dollarTopLevel,
}

// FerretDB is what FerretDB 1.24 with SQLite stores; see the package doc.
var FerretDB = Profile{
	name:         "FerretDB",
	ferretDB:     true,
	serialWrites: true,
	sortInMemory: true,
	scanQueries:  true,
	missingOut:   true,
	noToDate:     true,
	noSample:     true,
	maxSize:      MaxBSONSize,
	maxDepth:     100,
	dollarKeys:   dollarAnywhere,
	dottedKeys:   true,
	nestedArrays: true,
	nonFinite:    true,
	negZero:      true,
	stringUTF8:   true,
	types: types(bsoncore.TypeDecimal128, bsoncore.TypeMinKey, bsoncore.TypeMaxKey,
		bsoncore.TypeSymbol, bsoncore.TypeJavaScript, bsoncore.TypeCodeWithScope,
		bsoncore.TypeUndefined, bsoncore.TypeDBPointer),
}

// Name is "MongoDB" or "FerretDB".
func (p Profile) Name() string { return p.name }

// IsFerretDB reports whether p is FerretDB's profile. It names the server,
// for a report or a test; code that acts on what the server does asks the
// capability it depends on (SerialWrites, QueriesUseIndexes...) instead.
func (p Profile) IsFerretDB() bool { return p.ferretDB }

// SerialWrites reports whether the server writes one batch at a time
// (FerretDB's SQLite backend): more concurrent writers only queue behind
// it, and a queued batch can outlast a client's timeout.
func (p Profile) SerialWrites() bool { return p.serialWrites }

// SortsInMemory reports whether the server sorts in memory instead of
// reading an index in order (FerretDB), so a large collection is better
// read in natural order and ordered by the client.
func (p Profile) SortsInMemory() bool { return p.sortInMemory }

// QueriesUseIndexes reports whether the server answers a query from an
// index. Where it does not (FerretDB), every find, even one by _id, reads
// the whole collection, and an $in compares every stored document with
// every value: reading the collection once costs less than asking for its
// documents by _id or by key, batch after batch.
func (p Profile) QueriesUseIndexes() bool { return !p.scanQueries }

// IndexesMissingFieldsAsNull reports whether an index holds a document that
// lacks a field of its key, the field taken as null, so that a unique index
// takes one such document only. Where it does not (FerretDB, whose SQLite
// index holds no NULL column), such a document is left out of the index and
// any number of them can be stored.
func (p Profile) IndexesMissingFieldsAsNull() bool { return !p.missingOut }

// HasToDate reports whether the server's aggregation has $toDate.
func (p Profile) HasToDate() bool { return !p.noToDate }

// HasSample reports whether the server's aggregation has $sample.
func (p Profile) HasSample() bool { return !p.noSample }

// StoresDecimal128 reports whether the server stores Decimal128 values.
func (p Profile) StoresDecimal128() bool { return p.types&typeBit(bsoncore.TypeDecimal128) == 0 }

// IsFerretDB reports whether a buildInfo answer comes from FerretDB, which
// adds a ferretdbFeatures field. It lives here, not beside the embedded
// server, so that telling the servers apart does not link FerretDB.
func IsFerretDB(buildInfo map[string]any) bool {
	_, ok := buildInfo["ferretdbFeatures"]
	return ok
}

// Detect asks a connected server what it is (buildInfo) and returns its
// profile: FerretDB for FerretDB, MongoDB otherwise. It is the one place a
// server is told apart; callers ask once per target and pass the Profile on
// (seed, fixtures.LoadOptions, verify.DBOptions).
func Detect(ctx context.Context, client *mongo.Client) (Profile, error) {
	var bi map[string]any
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi); err != nil {
		return Profile{}, fmt.Errorf("buildInfo: %w", err)
	}
	return ProfileOfBuildInfo(bi), nil
}

// ProfileOfBuildInfo is the profile of the server that gave a buildInfo
// answer: FerretDB's for FerretDB, MongoDB's otherwise.
func ProfileOfBuildInfo(buildInfo map[string]any) Profile {
	return ProfileOf(IsFerretDB(buildInfo))
}

// ProfileOf is FerretDB's profile when ferretDB is set, else MongoDB's.
func ProfileOf(ferretDB bool) Profile {
	if ferretDB {
		return FerretDB
	}
	return MongoDB
}
