package seed_test

import (
	"testing"

	"github.com/oidkit/oidkit/seed"
)

// Orders seeded alone refer to as many users, and products, as the shop
// plan with that many users holds, under the same names and kinds.
func TestOrderRefsHaveTheShopRatio(t *testing.T) {
	for _, n := range []int64{1, 9, 10, 25, 1000, 12345} {
		shop, err := seed.BuiltinPlan("shop", n)
		if err != nil {
			t.Fatal(err)
		}
		refs := seed.OrderRefs(n)
		if len(refs) != 2 {
			t.Fatalf("OrderRefs(%d) = %d collections; want users and products", n, len(refs))
		}
		for i, r := range refs {
			s := shop.Collections[i]
			if r.Name != s.Name || r.Kind != s.Kind || r.Count != s.Count || !r.RefOnly {
				t.Errorf("OrderRefs(%d)[%d] = %s %s x%d (ref only %v); want %s %s x%d, ref only", n, i, r.Name, r.Kind, r.Count, r.RefOnly, s.Name, s.Kind, s.Count)
			}
		}
	}
}
