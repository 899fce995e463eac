// Package ejson is oidkit's Extended JSON: it reads MongoDB Extended JSON
// v2 (canonical and relaxed, and the legacy forms the Go driver reads)
// straight into BSON, and writes BSON back as Extended JSON v2, appending
// to a caller's buffer, without reflection and, with a reused Decoder or
// Encoder, without allocating.
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
// # What it writes
//
// AppendJSON (an Encoder for the indented form) writes a document in one of
// two modes: Canonical wraps every number and date ({"$numberInt":"5"}),
// Relaxed (the default) writes them as plain JSON where the type survives.
// The text is what the driver's MarshalExtJSON writes, with these
// deliberate differences, all so that reading it back gives the bytes that
// were written (a differential fuzz test, FuzzAppendJSONMatchesDriver,
// holds it to the rest):
//
//   - Relaxed mode writes an int64 whose value fits in 32 bits as
//     {"$numberLong":"N"}: a relaxed reader turns a bare 5 into an int32, so
//     the plain form would change the type. Larger int64 values are bare
//     numbers, which read back as int64.
//   - A value the text cannot carry exactly is an error
//     (ErrNotRepresentable) rather than silently changed: a string or key
//     that is not valid UTF-8 (the driver writes U+FFFD), a double NaN with
//     a payload, a decimal128 whose bits its text does not read back as (a
//     NaN payload, a non-canonical encoding). Bytes that are not BSON are
//     ErrMalformedBSON.
//   - The namespace of a DBPointer is escaped like any string.
//
// ValueText is one value as relaxed text, for messages.
//
// # Errors
//
// A refusal to read is an *Error (errors.Is(err, ErrInvalid)): the byte offset,
// what was found there, naming the value, and what was expected, such as
//
//	offset 8: found the $oid "xyz"; expected 24 hexadecimal digits
//
// The driver's own messages differ (and do not say where); which inputs
// are refused does not. Nothing panics on any input.
package ejson
