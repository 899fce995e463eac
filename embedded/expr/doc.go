// Package expr is MongoDB's aggregation expressions as oidkit's server
// compiles and evaluates them: field paths ("$a.b", through arrays),
// variables ("$$ROOT", "$$CURRENT", "$$NOW", "$$REMOVE", let variables,
// $let), literals, and every operator family the server has —
// arithmetic and math, comparison, boolean and conditional, array
// ($map, $filter, $reduce, $sortArray, $firstN...), set, string and regex,
// object, type conversion, dates (with time zones, $dateAdd, $dateDiff,
// $dateTrunc, the parts and the string formats), $toHashedIndexKey and
// the miscellaneous ones.
//
// An expression compiles once (Compile) with its Vars — the let
// variables, the clock $$NOW reads and the collation strings compare by —
// into an Expr that is evaluated per document (Eval). The package holds
// no server state: the engine compiles $project, $addFields, $group keys,
// $match's $expr (through the query package's Options.Expr hook) and
// pipeline updates with it. Accumulator is the fold that $group's simple
// accumulators and the expression forms of $sum, $avg, $min and $max
// share; sorts ($sortArray's sortBy) are bsonval.Sort.
package expr
