// Package update is MongoDB's update language as oidkit's server applies
// it to a document: every field, array and bitwise operator ($set,
// $unset, $inc, $mul, $min, $max, $rename, $currentDate, $setOnInsert,
// $push with $each/$position/$slice/$sort, $addToSet, $pop, $pull,
// $pullAll, $bit), the positional $, $[] and $[identifier] with
// arrayFilters, replacement documents and pipeline updates; _id stays
// immutable.
//
// An update compiles once (Compile) and is applied per document (Apply);
// Upsert is the document an upsert inserts, seeded from the filter's
// equalities. Conditions ($pull's, arrayFilters) are compiled by package
// query with $expr from package expr. A pipeline update's stages are run
// by the function the engine hands Compile (package pipeline's stages);
// the documents being changed are bsonval.MDoc trees.
package update
