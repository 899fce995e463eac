package seed

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func rawID(t *testing.T, v any) bson.RawValue {
	t.Helper()
	typ, data, err := bson.MarshalValue(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	return bson.RawValue{Type: typ, Value: data}
}

// checkIndex asserts Index(ID(i)) == i for every document of c.
func checkIndex(t *testing.T, c *Collection) {
	t.Helper()
	for i := range c.Len() {
		got, ok := c.Index(rawID(t, c.ID(i)))
		if !ok || got != i {
			t.Fatalf("%s: Index(ID(%d) = %v) = %d, %v; expected %d, true", c.Spec().ID, i, c.ID(i), got, ok, i)
		}
	}
}

func TestIndexInvertsID(t *testing.T) {
	for _, strat := range []string{"objectid", "int"} {
		t.Run(strat, func(t *testing.T) {
			checkIndex(t, buildOne(t, CollectionSpec{Name: "docs", Kind: KindUser, Count: 500, ID: mustStrategy(t, strat), IDStart: -5}, 7))
		})
	}
	t.Run("int64", func(t *testing.T) {
		c := buildOne(t, CollectionSpec{Name: "docs", Kind: KindUser, Count: 20, ID: IDStrategy{Kind: IDInt}, IDStart: 1<<31 - 10}, 7)
		if _, is64 := c.ID(0).(int64); !is64 {
			t.Fatalf("ID(0) = %T; expected int64 for ids past int32", c.ID(0))
		}
		checkIndex(t, c)
	})
	t.Run("int64 at the top", func(t *testing.T) {
		checkIndex(t, buildOne(t, CollectionSpec{Name: "docs", Kind: KindUser, Count: 5, ID: IDStrategy{Kind: IDInt}, IDStart: math.MaxInt64 - 4}, 7))
	})
	t.Run("counter wrap", func(t *testing.T) {
		c := buildOne(t, CollectionSpec{Name: "docs", Kind: KindUser, Count: 10}, 7)
		c.counterStart = 0xFFFFFB
		checkIndex(t, c)
	})
	t.Run("random value carry past 40 bits", func(t *testing.T) {
		c := buildOne(t, CollectionSpec{Name: "docs", Kind: KindUser, Count: 10}, 7)
		c.oidRandom, c.counterStart = 1<<40-1, 0xFFFFFD
		checkIndex(t, c)
		if a, b := c.ObjectID(0), c.ObjectID(9); a[4] != 0xFF || b[4] != 0 {
			t.Fatalf("ObjectIDs %s..%s: expected the random value to wrap to 0", a, b)
		}
	})
}

func TestIndexRejects(t *testing.T) {
	users := buildOne(t, CollectionSpec{Name: "users", Kind: KindUser, Count: 100}, 7)
	otherSeed := buildOne(t, CollectionSpec{Name: "users", Kind: KindUser, Count: 100}, 8)
	otherName := buildOne(t, CollectionSpec{Name: "people", Kind: KindUser, Count: 100}, 7)
	ints := buildOne(t, CollectionSpec{Name: "n", Kind: KindUser, Count: 10, ID: IDStrategy{Kind: IDInt}, IDStart: 100}, 7)
	uuids := buildOne(t, CollectionSpec{Name: "u", Kind: KindUser, Count: 10, ID: IDStrategy{Kind: IDUUID}}, 7)
	empty := buildOne(t, CollectionSpec{Name: "e", Kind: KindUser, Count: 0}, 7)
	late := users.ObjectID(3)
	late[3]++ // same tail, another second
	cases := []struct {
		name string
		c    *Collection
		id   any
	}{
		{"another seed", users, otherSeed.ID(3)},
		{"another collection", users, otherName.ID(3)},
		{"past the last document", users, users.ObjectID(100)},
		{"before the first document", users, users.ObjectID(-1)},
		{"another timestamp", users, bson.ObjectID(late)},
		{"an int for objectid", users, int32(3)},
		{"an ObjectID for int", ints, users.ID(0)},
		{"below IDStart", ints, int32(99)},
		{"past the last int", ints, int64(110)},
		{"a fraction", ints, 100.5},
		{"a string", ints, "100"},
		{"uuid", uuids, uuids.ID(0)},
		{"empty collection", empty, users.ID(0)},
	}
	for _, tc := range cases {
		if i, ok := tc.c.Index(rawID(t, tc.id)); ok {
			t.Errorf("%s: Index(%v) = %d, true; expected false", tc.name, tc.id, i)
		}
	}
	// Numbers match by value, whatever their type.
	for _, v := range []any{int32(105), int64(105), 105.0} {
		if i, ok := ints.Index(rawID(t, v)); !ok || i != 5 {
			t.Errorf("Index(%T %v) = %d, %v; expected 5, true", v, v, i, ok)
		}
	}
}

func TestIDOrderBreak(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "docs", Kind: KindUser, Count: 10}, 7)
	if k, ok := c.IDOrderBreak(); ok {
		t.Fatalf("IDOrderBreak() = %d, true; expected false without a wrap", k)
	}
	c.oidRandom, c.counterStart = 1<<40-1, 0xFFFFFD
	k, ok := c.IDOrderBreak()
	sameSecond := c.Time(2).Equal(c.Time(3))
	if ok != sameSecond || (ok && k != 3) {
		t.Fatalf("IDOrderBreak() = %d, %v; expected 3, %v (the wrap is at document 3)", k, ok, sameSecond)
	}
	if ok && c.ObjectID(3).Compare(c.ObjectID(2)) >= 0 {
		t.Fatalf("ObjectID(3) %s sorts after ObjectID(2) %s", c.ObjectID(3), c.ObjectID(2))
	}
}
