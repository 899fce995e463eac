// Package verify checks that a database holds exactly what it should (verify
// db): each collection against a seeded plan or fixture files; and it owns
// the report format that it and package crosscheck (verify ids) print.
//
// Both checks print through one report format, so a user reads them the same
// way and CI parses them the same way. Use it like this:
//
//	rep := verify.NewReport("verify db")
//	count := rep.Row("count")
//	for each case {
//		if got == want {
//			count.Pass()
//		} else {
//			count.Failf("count %d, expected %d", got, want)
//		}
//	}
//	rep.Skip("timestamp on server", "server has no $toDate")
//	rep.WriteTable(os.Stdout) // or rep.WriteJSON(os.Stdout) for --json
//	if !rep.OK() { exit 1 }
//
// A Row counts the cases it tried and the mismatches among them, keeps the
// first MaxExamples mismatch messages, and is "pass" when it tried at least
// one case and found no mismatch, "fail" on any mismatch, and "skipped" (with
// a reason) when the check could not run. A row that tried no case and was
// not skipped is reported as a failure: a check that silently checked nothing
// must never read as a pass.
//
// verify db works on an Expected per collection, built complete by
// ExpectCollection (a seeded plan: documents rebuilt from the collection's
// stream, _ids inverted by seed) or ExpectFixtures (fixture files, indexed
// once). VerifyDB then runs, per collection, the phases its report rows
// follow: one read of the collection, checking each document's _id (count,
// missing, unexpected, type, order), ObjectID timestamps and references as
// it comes and comparing it byte for byte with the expected document; then
// the details (copies under another _id, the fields that differ); the
// server-side timestamp check; and the references into collections read
// later.
//
// The order row asserts that reading the collection sorted by _id gives the
// expected documents in generation (or file) order. On MongoDB the one read
// is sorted by _id and the order is checked as it comes. A server that sorts
// in memory (it fetches and decodes every document before it sorts) is read
// once in natural order, and the order is checked on the client:
// each stored document matched to expected document i has an _id equal to
// expected _id i under MongoDB's comparison (the same key: the same type and
// bytes, or numbers of equal value), and the expected _ids strictly increase
// with i under compareIDs, a strict weak order that orders _ids as MongoDB
// sorts them (Expected knows this when it is built: every consecutive pair
// of fixture or field:NAME _ids is compared, objectid and int _ids follow
// seed's layout). Strict increase on consecutive pairs is strict increase
// on every subsequence, so the matched documents sorted by _id come in
// increasing i, for collections of any size, without a second read; the
// row fails only where two stored documents match one expected document.
package verify
