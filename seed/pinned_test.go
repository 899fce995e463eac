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
		"users":     "a577baf06d87c1d8bdb7bff8d77a720a8873f082c8abcc57932d8475fa8b2656",
		"products":  "cded964a6d53c4787d886bdd095783952098f145a751c49291694d18181a5ab2",
		"orders":    "18f9e862c618be06bded2d694211b1f441ff00889bba58d6da3ade7d7e097c2c",
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
