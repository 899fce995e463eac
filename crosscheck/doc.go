// Package crosscheck checks package oid against the official Go drivers,
// go.mongodb.org/mongo-driver/v2 bson.ObjectID and v1 primitive.ObjectID,
// byte for byte: what oidkit verify ids runs.
//
// IDs checks the spec vectors, the edge cases of the layout and N random IDs
// (bytes, hex, Timestamp, JSON out, {"$oid"} and "hex" in, BSON and Extended
// JSON bytes) on each driver, in the one table of drivers; IDs generated on
// each side parse on the other; mutated strings and JSON (wrong length, bad
// characters, upper case, whitespace, edited JSON) are accepted or rejected
// alike; and the generator shares one random value, takes consecutive
// counters and stays within its run's time window. The same Seed and N check
// the same IDs whatever the number of workers.
//
// The deliberate differences documented in package oid are listed by
// Differences, each with a Check that fails when a driver release (or oid)
// stops behaving as documented; IDs runs them as rows and never counts an
// input they explain as a mismatch (internal/driverdiff names which apply
// to a JSON input).
//
// The result is a *verify.Report, the table and JSON format that verify db
// prints too: every row must pass.
package crosscheck
