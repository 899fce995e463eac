// Package rules says whether a target database can store a document, and
// where and why not, before anything is sent to it; and how the server
// compares and equates _id values.
//
// A Profile holds the rules of one kind of server; Profile.Check applies them
// to a marshalled document in one pass and returns nil or a *Violation
// (match it with errors.As) naming the dotted path of the first offending
// field (array elements by index, "v.3.x"), the reason (a Reason constant)
// and a short rendering of the value. Detect picks the profile of a
// connected server from its buildInfo answer.
//
// # MongoDB
//
// What a MongoDB server (5.0 and later) refuses on insert:
//   - a document larger than 16 MiB (16777216 bytes of BSON);
//   - nesting deeper than 100: the top-level document is level 1, each
//     embedded document or array one more, and an element at level 101
//     (the field of a 101st nested container) is refused;
//   - an _id that is an array, a regular expression or undefined, and a
//     '$'-prefixed key anywhere inside an _id document;
//   - a '$'-prefixed key at the top level. MongoDB 5.0 accepts some of these
//     for inserts, but 4.4 refuses them, update and query operators take them
//     for operators, and mongodump/mongorestore mishandle them; a generator
//     of test data has no reason to produce them, so they are refused.
//     Nested '$'-prefixed keys and keys with dots are accepted, as 5.0 does;
//   - the same key twice in one document (the server keeps both, and which
//     one a query sees is undefined, so no round trip is possible);
//   - a key that is not valid UTF-8.
//
// Empty keys are accepted (the server does). String values are not checked
// for UTF-8: the server stores them as they are.
//
// # FerretDB
//
// What FerretDB 1.24 with its SQLite backend, reached with --uri, refuses,
// measured against it when it was oidkit's embedded server: everything MongoDB refuses except '$'-prefixed keys
// only at the top level and dots, plus
//   - a key with a '.' or a leading '$' at any depth (DBRef's "$ref" too);
//   - an array directly inside an array;
//   - NaN, +Inf and -Inf; Decimal128, MinKey, MaxKey, Symbol, JavaScript
//     code with or without scope, Undefined and DBPointer (the server drops
//     the connection on those);
//   - -0.0 and strings that are not valid UTF-8, which it accepts but
//     changes (to 0 and to U+FFFD): they would not round-trip.
//
// The FerretDB profile keeps MongoDB's depth limit of 100 although the
// server itself stores deeper documents (it fails somewhere above 300 levels,
// when SQLite's JSON nesting limit is reached, at a depth that depends on the
// mix of documents and arrays): a document it accepts must load into MongoDB
// too. This is the one place where the profile is stricter than the server.
//
// # _id comparison
//
// One fact in three forms: CompareIDs orders two _id values as MongoDB sorts
// them; KeyOf gives the key under which a unique index equates them (equal
// keys compare equal); Integral is the int64 a number equals, the reason
// 7, NumberLong(7) and 7.0 are one _id. Fixture loading, verify db and the
// inverse of seeded int _ids all use these.
package rules
