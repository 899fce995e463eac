// Package audit examines a sequence of _id values that some other program
// made and reports what can be learnt from them: which types they are, when
// they were made, by how many writers (the 5-byte random value of an
// ObjectID), in which layout, whether they were made by a spec generator at
// all, how each writer's clock compares with a time field, and whether _id
// as a range shard key would put every insert on one chunk.
//
// An Auditor consumes values one at a time (Add, AddID, AddDoc, ReadHex,
// ScanCollection) in scan order and keeps bounded state whatever the count:
// per-writer statistics for at most Options.MaxWriters writers (when the
// table fills, the half with the fewest IDs is dropped and their IDs counted
// as untracked; a dropped writer seen again starts anew), a per-day
// histogram (at most one entry per day an ObjectID can name, 49,710) and a
// few examples per finding. Report turns the state into a Report, which
// prints as text, JSON or one self-contained HTML page.
//
// The rules, each in one function:
//
//   - Time findings (timeFinding): an ObjectID whose time is more than
//     Options.FutureTolerance after Options.Now is "future"; before
//     2009-01-01 (the year ObjectIDs appeared) "before 2009"; exactly 0
//     "at zero"; in the last year an ObjectID can name (2105-02-07 to
//     2106-02-07T06:28:15Z) "near 2106". An ID whose 8 bytes after the time
//     are zero was made from a time (createFromTime, a range bound), not by a
//     generator, and belongs to no writer.
//   - Writers (classifyStep): in scan order, a spec generator's counter
//     rises by one per ID. A counter lower than the writer's previous one is
//     a wrap when the forward distance modulo 2^24 is under 2^23 (0xFFFFFF →
//     0); else, in the same second, "not rising" (in a later second a
//     counter may start anew). A time lower than the writer's previous one
//     is "time goes backwards".
//   - Layout (layoutOf), per writer: only writers that behave like a
//     process (several IDs, the counter rising between some) are evidence.
//     The legacy layout (before 2018: 3-byte machine hash, 2-byte process
//     ID, 3-byte counter) shows as such writers sharing their first three
//     bytes (one host, several processes), or their last two across
//     machines (PID 1 in containers), far more often than 5 random bytes
//     would; the writers that share are legacy, the others modern.
//   - Random hex (randomHex): the writers of one ID, when there are at
//     least 10, at least half of their times are before 2009 or in the
//     future, and their times spread over more than 10 years: faker
//     libraries make IDs like that, not drivers. Otherwise such a writer
//     is a modern process that made one ID.
//   - The collection's layout (Auditor.layout) is the one kind of writer
//     found (modern, legacy, or notSpec for random hex), or mixed, with
//     the count of each kind, when there are several. Zero-tailed IDs and
//     other _id types are counted beside them, and do not make a mix.
//   - Clock (clock): a writer whose mean skew, _id time minus the time
//     field, exceeds Options.SkewTolerance either way is skewed.
//   - Shard key (shardKey): when at least 90% of consecutive ObjectIDs rise,
//     inserts are monotonic in _id and a hashed shard key is advised.
package audit
