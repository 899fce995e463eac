// Package pipeline is MongoDB's aggregation pipeline as oidkit's server
// compiles and runs it: every stage that needs no more than its input
// and the pipeline's Env — $match, $project, $addFields/$set, $unset,
// $replaceRoot/$replaceWith, $limit, $skip, $sort, $count, $sample,
// $unwind, $group and $sortByCount with every accumulator ($topN,
// $percentile... in accumulate_n.go), $bucket, $bucketAuto with its
// granularities, $setWindowFields with the window functions, $fill,
// $densify, $redact, $lookup, $graphLookup, $unionWith, $facet,
// $documents, $out and $merge — and the projection find and $project
// share (CompileProjection, Projection.Project).
//
// A pipeline compiles once (Compile, with an Env) into a Pipeline that is
// run over documents (Pipeline.Run). The package holds no server state:
// the Env reads other collections (Read), writes what $out and $merge
// produce (Write) and compiles the stages that need the server
// ($changeStream, $collStats, $indexStats, $listLocalSessions, the search
// stages: Stage), all supplied by the engine. Filters are package query's
// (with $expr from package expr), expressions and the simple accumulators
// package expr's.
package pipeline
