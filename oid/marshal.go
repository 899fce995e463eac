package oid

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
)

var (
	_ encoding.TextAppender      = ID{}
	_ encoding.TextMarshaler     = ID{}
	_ encoding.TextUnmarshaler   = (*ID)(nil)
	_ encoding.BinaryAppender    = ID{}
	_ encoding.BinaryMarshaler   = ID{}
	_ encoding.BinaryUnmarshaler = (*ID)(nil)
	_ json.Marshaler             = ID{}
	_ json.Unmarshaler           = (*ID)(nil)
	_ fmt.Stringer               = ID{}
	_ fmt.GoStringer             = ID{}
)

// AppendText appends the 24 hex characters (encoding.TextAppender).
func (id ID) AppendText(b []byte) ([]byte, error) { return id.AppendHex(b), nil }

// MarshalText is the 24 hex characters; it lets an ID be a JSON map key.
func (id ID) MarshalText() ([]byte, error) {
	b := make([]byte, 24)
	encodeHex((*[24]byte)(b), &id)
	return b, nil
}

// UnmarshalText reads 24 hex characters (either case); empty text is the nil
// ID. On error id is unchanged.
func (id *ID) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*id = Nil
		return nil
	}
	v, err := parseBytes(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// AppendBinary appends the 12 bytes (encoding.BinaryAppender).
func (id ID) AppendBinary(b []byte) ([]byte, error) { return append(b, id[:]...), nil }

// MarshalBinary is the 12 bytes.
func (id ID) MarshalBinary() ([]byte, error) { return append([]byte(nil), id[:]...), nil }

// UnmarshalBinary reads exactly 12 bytes. On error id is unchanged.
func (id *ID) UnmarshalBinary(b []byte) error {
	v, err := FromBytes(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// MarshalJSON is the hex as a JSON string, byte for byte what both drivers
// write: "507f1f77bcf86cd799439011".
func (id ID) MarshalJSON() ([]byte, error) {
	b := make([]byte, 26)
	b[0], b[25] = '"', '"'
	encodeHex((*[24]byte)(b[1:25]), &id)
	return b, nil
}

// The exact bytes of the two common forms, read without encoding/json.
const (
	oidPrefix = `{"$oid":"`
	oidLen    = len(oidPrefix) + 24 + len(`"}`)
)

// UnmarshalJSON reads "hex", {"$oid":"hex"} or null (a no-op). "" is the nil
// ID. On error id is unchanged. See the package doc for how this differs
// from the drivers.
func (id *ID) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 26 && b[0] == '"' && b[25] == '"':
		return id.setHex(b[1:25])
	case len(b) == oidLen && string(b[:len(oidPrefix)]) == oidPrefix && b[oidLen-2] == '"' && b[oidLen-1] == '}':
		return id.setHex(b[len(oidPrefix) : oidLen-2])
	case string(b) == "null":
		return nil
	}
	return id.unmarshalJSONSlow(b)
}

func (id *ID) setHex(b []byte) error {
	var v ID
	if !decodeBytes(&v, b) {
		return charError(string(b))
	}
	*id = v
	return nil
}

// ErrInvalidJSON is JSON that UnmarshalJSON does not read as an ObjectID:
// neither "hex", {"$oid":"hex"} nor null (a wrong hex is a *ParseError).
var ErrInvalidJSON = errors.New("oid: invalid ObjectID JSON")

// unmarshalJSONSlow handles everything but the two compact forms: whitespace,
// escapes, relaxed spacing inside {"$oid": ...}, and the errors.
func (id *ID) unmarshalJSONSlow(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalidJSON, quoteShort(string(b)), err)
	}
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		return id.UnmarshalText([]byte(v))
	case map[string]any:
		s, ok := v["$oid"].(string)
		if ok && len(v) == 1 {
			p, err := Parse(s)
			if err != nil {
				return err
			}
			*id = p
			return nil
		}
	}
	return fmt.Errorf(`%w: %s: expected "hex", {"$oid":"hex"} or null`, ErrInvalidJSON, quoteShort(string(b)))
}
