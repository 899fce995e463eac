package expr

import "testing"

// TestOperatorFamiliesDisjoint: each operator is in one family, so that no
// family's compiler silently replaces another's.
func TestOperatorFamiliesDisjoint(t *testing.T) {
	seen := map[string]int{}
	for k, family := range []func() opTable{numberOps, textOps, collectionOps, dateOps} {
		for name := range family() {
			if j, ok := seen[name]; ok {
				t.Errorf("%s is in families %d and %d", name, j, k)
			}
			seen[name] = k
		}
	}
	for op := range unaryMath {
		if _, ok := seen[op]; ok {
			t.Errorf("%s is in a family and in unaryMath", op)
		}
	}
	for op := range trigFuncs {
		if _, ok := seen[op]; ok {
			t.Errorf("%s is in a family and in trigFuncs", op)
		}
	}
}
