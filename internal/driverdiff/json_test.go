package driverdiff

import (
	"slices"
	"testing"
)

func TestJSONDifferences(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`"507f1f77bcf86cd799439011"`, nil},
		{`{"$oid":"507f1f77bcf86cd799439011"}`, nil},
		{`null`, nil},
		{`123456789012`, []string{"json-raw-12"}},
		{`{"$oid":`, []string{"json-invalid"}},
		{` null`, []string{"json-string-escapes"}},
		{`""`, []string{"json-empty-string"}},
		{`"\u003507f1f77bcf86cd799439011"`, []string{"json-string-escapes"}},
		{`{"$oid":"507f1f77bcf86cd799439011","x":1}`, []string{"json-oid-extra-keys"}},
		{`{"$OID":"507f1f77bcf86cd799439011"}`, []string{"json-oid-key-case"}},
		{`{"$oid":""}`, []string{"json-oid-empty"}},
	}
	for _, tc := range cases {
		if got := JSONDifferences([]byte(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("JSONDifferences(%s) = %q; expected %q", tc.in, got, tc.want)
		}
	}
}
