package ejson

import (
	"errors"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ErrInvalid is matched (errors.Is) by every *Error.
var ErrInvalid = errors.New("invalid Extended JSON")

// Error is input that is not Extended JSON: where it was found (a byte
// offset in the input), what was found there and what was expected.
type Error struct {
	Offset   int
	Found    string
	Expected string
}

func (e *Error) Error() string {
	return "offset " + strconv.Itoa(e.Offset) + ": found " + e.Found + "; expected " + e.Expected
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// errEOD and errEOA end a document and an array (the driver's ErrEOD and
// ErrEOA): control flow, never returned.
var (
	errEOD = errors.New("end of document")
	errEOA = errors.New("end of array")
)

// shown quotes a value of the input for a message, shortened.
func shown(b []byte) string {
	const max = 64
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}

func describeValue(v value) string {
	switch v.t {
	case bsoncore.TypeString:
		return "the string " + shown(v.s)
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return "the number " + strconv.FormatInt(v.i, 10)
	case bsoncore.TypeDouble:
		return "the number " + strconv.FormatFloat(v.f, 'g', -1, 64)
	case bsoncore.TypeBoolean:
		return strconv.FormatBool(v.b)
	case bsoncore.TypeNull:
		return "null"
	case bsoncore.TypeEmbeddedDocument:
		return "an object"
	}
	return "a value of type " + typeName(v.t)
}

// typeNames are the names messages give the types a value read may have.
var typeNames = map[bsoncore.Type]string{
	bsoncore.TypeEmbeddedDocument: "document", bsoncore.TypeArray: "array", bsoncore.TypeInt32: "int32",
	bsoncore.TypeInt64: "int64", bsoncore.TypeDouble: "double", bsoncore.TypeString: "string",
	bsoncore.TypeBoolean: "boolean", bsoncore.TypeNull: "null",
}

func typeName(t bsoncore.Type) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return t.String()
}

func itoa(n int) string { return strconv.Itoa(n) }
