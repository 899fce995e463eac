// Package ejson is oidkit's Extended JSON: it reads MongoDB Extended JSON
// v2 (canonical and relaxed, and the legacy forms the Go driver reads)
// straight into BSON, appending to a caller's buffer, without reflection
// and, with a reused Decoder, without allocating.
//
// # What it reads
//
// AppendDocument reads exactly what the driver's
// bson.UnmarshalExtJSON(src, false, &bson.Raw{}) reads and gives the same
// bytes; a differential fuzz test (FuzzAgainstDriver) holds it to that. So:
//
//   - every type of Extended JSON v2: $oid; $date as an RFC 3339 string, a
//     number of milliseconds or {"$numberLong": "..."}; $numberInt,
//     $numberLong, $numberDouble (with "Infinity", "-Infinity", "NaN") and
//     $numberDecimal; $binary as {"base64", "subType"}, in the legacy form
//     {"$binary": "...", "$type": "..."} and as $uuid; $regularExpression
//     (options are stored sorted); $timestamp; $minKey, $maxKey and
//     $undefined; $code with or without $scope; $symbol; $dbPointer;
//   - a JSON number is an int32 when it fits, else an int64, else a
//     double; -0 is the int32 0, -0.0 the double -0;
//   - a wrapper is known by the first key of an object that is a value; at
//     the top level, and after another first key, $-keys are field names;
//     duplicate keys, dots and dollars in keys are kept as written;
//   - strings keep their bytes (invalid UTF-8 and raw control characters
//     included); \u escapes that are not 4 hexadecimal digits, and
//     surrogates that do not pair, become U+FFFD;
//   - objects nest at most 200 deep (arrays do not count);
//   - the document ends at its closing brace: what follows is not read, as
//     the driver does not read it. A top-level null is no document: nothing
//     is appended and there is no error.
//
// Decoder.Strict refuses, besides, anything that is not one RFC 8259 JSON
// text (what encoding/json.Valid refuses): text after the document, a raw
// control character in a string, a bad \u escape.
//
// # Errors
//
// A refusal is an *Error (errors.Is(err, ErrInvalid)): the byte offset,
// what was found there, naming the value, and what was expected, such as
//
//	offset 8: found the $oid "xyz"; expected 24 hexadecimal digits
//
// The driver's own messages differ (and do not say where); which inputs
// are refused does not. Nothing panics on any input.
package ejson
