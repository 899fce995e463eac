// Package indexes declares, creates, lists and checks MongoDB indexes, and
// reads and writes the index sidecar file that travels with fixture files.
//
// An [Index] has the shape of one element of MongoDB's createIndexes command:
//
//	{"key": {"userId": 1, "createdAt": -1}, "name": "userId_1_createdAt_-1",
//	 "unique": true, "sparse": true, "expireAfterSeconds": 86400,
//	 "partialFilterExpression": {"status": {"$eq": "paid"}}}
//
// The key is ordered: each field maps to 1 (ascending), -1 (descending) or
// one of the index types "text", "hashed", "2dsphere" and "2d". Numbers
// equal to 1 or -1 of any BSON numeric type are taken as 1 and -1 (old
// shells stored doubles). The name, when left out, is the one MongoDB
// generates: each field and its value joined with "_" ("userId_1_createdAt_-1").
//
// Rules checked before anything is sent ([Index.Validate], [ValidateList]),
// each failure an *[Error] naming the index, the setting and the value:
//   - the key has at least one field, no field twice; a field is a
//     non-empty dotted path with no empty part, no part starting with '$'
//     and no NUL byte;
//   - unique is only for keys of 1/-1 fields (MongoDB refuses a unique
//     hashed or text index), and a key has at most one hashed field;
//   - expireAfterSeconds (a TTL index) is a whole number from 0 to
//     2147483647, on a key of exactly one 1/-1 field other than _id;
//   - sparse and partialFilterExpression are not both set (MongoDB refuses
//     them together), and partialFilterExpression is a document;
//   - a name is 1 to [MaxNameLen] bytes, without NUL, not "*"; "_id_" is
//     the _id index, which always exists and is never declared;
//   - in a list, no two indexes share a name, nor a key and filter.
//
// Plan files are strict ([ParseJSON]): only the six settings above. Index
// sidecars are mongodump's <collection>.metadata.json files ([ReadSidecar],
// [WriteSidecar]); there the index version "v", "ns" and "background" are
// accepted and ignored, and any other option (collation, text weights, ...)
// is kept as it is in [Index.Other] and passed to the server, which is the
// judge of it.
//
// Against a server: [Create] creates what is missing (an identical index
// already there is fine; one with the same name and another definition is
// an error naming both, and nothing is ever dropped), [List] lists what a
// collection has (without _id_), and [Check] compares a collection's indexes
// with the wanted ones.
package indexes
