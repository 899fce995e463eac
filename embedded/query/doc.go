// Package query is MongoDB's query language as oidkit's server compiles
// and runs it: a filter (find's, a delete's or an update's, $match's, a
// partial index's) compiled once (Compile) into a Filter that tests
// documents (Match, MatchPos for the positional $ operator). It has every
// comparison, logical, element, evaluation ($regex, $mod, $jsonSchema's
// common keywords) and array operator and the bitwise ones, BSON order
// across types, dotted paths through arrays and null matching missing
// (package bsonval); $text and $where are refused with MongoDB's codes.
//
// A filter compiles with Options: the collation strings compare by, and a
// compiler for $expr, which the engine supplies from its expressions (this
// package has none). A compiled filter also tells the engine's planner
// which top-level equalities and ranges an index can serve
// (IndexEqualities, IndexRanges), and an upsert which equalities seed its
// document (Equalities).
package query
