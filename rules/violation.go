package rules

import "fmt"

// Reason says why a target refuses a field. Its text completes "refused: ".
type Reason string

// The reasons Check reports of a document as a whole.
const (
	Malformed Reason = "not well-formed BSON"
	TooLarge  Reason = "document larger than the target's maximum"
	TooDeep   Reason = "nested deeper than the target's maximum"
	IDType    Reason = "_id may not be an array, a regular expression or undefined"
)

// The reasons Check reports of a key.
const (
	DollarKey    Reason = "key starts with '$'"
	DottedKey    Reason = "key contains '.'"
	DuplicateKey Reason = "key appears twice in one document"
	KeyNotUTF8   Reason = "key is not valid UTF-8"
)

// The reasons Check reports of a value.
const (
	StringNotUTF8   Reason = "string is not valid UTF-8 (the target would change it)"
	NestedArray     Reason = "array directly inside an array"
	NotFinite       Reason = "NaN or infinite double"
	NegativeZero    Reason = "-0.0 (the target stores it as 0)"
	UnsupportedType Reason = "BSON type the target does not store"
)

// Violation is the first field of a document a Profile refuses.
type Violation struct {
	Profile string // the profile's name (Profile.Name)
	Path    string // dotted field path, array elements by index; empty for the whole document
	Reason  Reason
	Value   string // a short rendering of the offending value or key
}

func (v *Violation) Error() string {
	where := "document"
	if v.Path != "" {
		where = fmt.Sprintf("field %q", v.Path)
	}
	return fmt.Sprintf("%s refuses %s = %s: %s", v.Profile, where, v.Value, v.Reason)
}
