package seed

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Seeded output is a format: the same flags must give the same bytes on
// every run, machine and release. These digests pin it; a change here
// changes every seeded fixture users have stored.
func TestPinnedDigests(t *testing.T) {
	want := map[string]string{
		"users":     "ea1232f25c0080d0326956655564c1ac5718a60788f6fbcae3fc6e475a49355d",
		"products":  "15f39ac2899d8578b316e347cec40c17aad1d49279c33fc448a4108123bed4ba",
		"orders":    "5db796335fd1d3d02ccb53bb5584c62f66ef2dd2d6f431acd6ad8cd5bef82968",
		"employees": "f0dd3c0dee9ecb7bcbd3e45c4300b9d6f643a77616941b44d9d0d5585646d6df",
	}
	p, _ := BuiltinPlan("shop", 60)
	p.Seed, p.Seeded, p.Span = 1, true, 30*24*time.Hour
	p.Collections = append(p.Collections, CollectionSpec{Name: "employees", Kind: KindEmployee, Count: 60, ID: IDStrategy{Kind: IDUUID}})
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ds.Collections() {
		h := sha256.New()
		for i := range c.Len() {
			b, err := bson.Marshal(c.Doc(i))
			if err != nil {
				t.Fatal(err)
			}
			h.Write(b)
		}
		got := hex.EncodeToString(h.Sum(nil))
		if got != want[c.Name()] {
			t.Errorf("%s: digest %s; want %s", c.Name(), got, want[c.Name()])
		}
	}
}
