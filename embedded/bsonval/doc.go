// Package bsonval is BSON values as oidkit's server reads and orders them:
// constructors of bsoncore values (Int32, Double, Doc, Array, ...), the
// elements of documents and arrays, BSON comparison order across types
// (TypeOrder, Compare, Equal: numbers of every type equal by value), exact
// numeric conversion and MongoDB's arithmetic promotion (NumberFloat,
// IntOf, BigOf, Arith), dotted paths through arrays as queries, indexes and
// sorts see them (Lookup, Candidates, FanValues, SortKey), sort
// specifications (CompileSort, Sort), documents changed in place (MDoc,
// MValue), the 16 MiB limit (MaxDocSize) and _id first (IDFirst), collations
// (ParseCollation, Collator), keys that bucket equal values
// (AppendGroupKey), the $type aliases (TypeName), the units of date
// arithmetic (AddTimeUnit), MongoDB's boolean conversion (Truthy), values
// as text (Text) and as the shell prints them in error messages (Shell).
//
// It holds no server state: the engine's commands, queries, updates and
// aggregation stages build on it. The value of a path that leads nowhere
// is Missing, the zero bsoncore.Value, which sorts as null.
package bsonval
