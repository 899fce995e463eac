// Package run seeds a plan into a database and keeps its run manifest:
// resume, parts of N, and the expected set for verifying from a manifest.
//
// [Seed] writes the collections of a plan (or one part of N of each) the
// way oidkit seed does: it builds the plan with the stored _ids its
// references draw from and hands the write phase to
// mongowrite.WriteDataset (its collections as the writer takes them,
// [ToWrite]), the one owner of writing a run's documents,
// in the order of every writer (mongowrite.Prepare, which a load follows
// too): every check that needs no write first (index conflicts; the
// target's rules on each template's shape and, with Drop, on every
// document; unique keys against what is stored; a finished or stopped
// run of the same plan), then the drop of every collection, or the
// indexes of those that already hold documents; then for each collection
// the inserts, and the indexes after. A run manifest in collection [mongowrite.ManifestCollection]
// records the plan (seed.PlanRecord, read back by [Record]) and the
// acknowledged ranges as batches are
// acknowledged, and its final state also after a cancel: a cancel stops
// generation, the batches already sent are finished, so what the manifest
// lists is what is stored. Options.NoManifest keeps none (oidkittest's
// templates, never resumed), with the same checks: Seed writes every run
// of oidkit seed (through SeedSettings) and of oidkittest's plans.
//
// [SeedSettings] is the run oidkit seed makes of its flags, in one call:
// the plan settings as given ([Settings]) checked before the target is
// opened, a new run or the one a resume continues, then Seed.
//
// [Resume] reads back the run a manifest describes, so that Seed with
// Options.Resume inserts only what is missing. [Manifests] reads the
// manifests of collections or of the latest run ([LatestRun]), [PartsDone] says which
// parts of a run written in parts are not done, and [Expected] is what
// verify.VerifyDB should find, rebuilt from the manifests alone.
//
// A plan's stored references (seed.Ref.Stored) draw from the `_id`s the
// target holds: Seed and Expected read them ([ReadStored], sorted by `_id`)
// and hand them to seed.Plan.BuildStored. The manifest records how many
// there were and a digest of them, so a resume that would draw from other
// ones is an [OtherRunError] of seed.SettingStored, and a verify notes
// the change.
//
// Errors carry fields ([InsertError], [IndexError], [AlreadyStoredError],
// [PartsError], ...) for errors.As; their messages name no command-line
// flag. Those of the write phase are mongowrite's, named here by aliases.
package run
