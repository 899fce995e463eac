// Package driverdiff names the deliberate differences between package oid and
// the MongoDB Go drivers that apply to an input, so that differential checks
// (package crosscheck, oid's tests) skip exactly those and compare the rest. It
// imports only the standard library.
package driverdiff

import "encoding/json"

// JSONDifferences names the deliberate differences from the drivers (see the
// oid package doc) that can apply to the JSON input b; where none does, oid
// and the drivers must unmarshal b the same way.
func JSONDifferences(b []byte) []string {
	var names []string
	if len(b) == 12 {
		names = append(names, "json-raw-12")
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return append(names, "json-invalid")
	}
	switch v := v.(type) {
	case nil:
		if string(b) != "null" {
			names = append(names, "json-string-escapes")
		}
	case string:
		if v == "" {
			names = append(names, "json-empty-string")
		}
		if string(b) != `"`+v+`"` {
			names = append(names, "json-string-escapes")
		}
	case map[string]any:
		if len(v) > 1 {
			names = append(names, "json-oid-extra-keys")
		}
		if _, ok := v["$oid"]; !ok && len(v) == 1 {
			names = append(names, "json-oid-key-case")
		}
		if s, ok := v["$oid"].(string); ok && s == "" {
			names = append(names, "json-oid-empty")
		}
	}
	return names
}
