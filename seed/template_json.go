package seed

import (
	"encoding/json"
	"strconv"
	"strings"
)

// JSON is the template as JSON text that ParseTemplate reads back into the
// same template: the manifest keeps it so that a run does not depend on the
// file it was read from.
func (t *Template) JSON() []byte {
	return t.root.appendJSON(nil)
}

func (n *tnode) appendJSON(b []byte) []byte {
	switch n.kind {
	case tObject:
		b = append(b, '{')
		for k, key := range n.keys {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, key)
			b = append(b, ':')
			b = n.children[k].appendJSON(b)
		}
		return append(b, '}')
	case tArray:
		b = append(b, '[')
		for k, c := range n.children {
			if k > 0 {
				b = append(b, ',')
			}
			b = c.appendJSON(b)
		}
		return append(b, ']')
	case tShape:
		return append(b, n.shape.raw...)
	case tPattern:
		var s []byte
		for _, part := range n.parts {
			switch {
			case part.index:
				s = append(s, "{index}"...)
			case part.ph != "":
				s = append(s, part.ph...)
			default:
				s = append(s, part.lit...)
			}
		}
		return appendJSONString(b, string(s))
	}
	switch v := n.value.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case int32:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0" // stays a float when read back
		}
		return append(b, s...)
	case string:
		return appendJSONString(b, v)
	}
	return append(b, "null"...)
}

// appendJSONString appends s as a JSON string (strconv.Quote's escapes,
// such as \x00, are not JSON).
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
