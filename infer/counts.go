package infer

import "strings"

// sampledCounts counts how often each value occurs, for the values whose
// hash has bits low zero bits: past maxRefCounts of them one bit more is
// asked, so memory stays bounded and the counts kept are exact for a part
// of the values chosen by their hash (rate 2^-bits), a choice that does not
// follow how often a value occurs.
type sampledCounts[K comparable] struct {
	n    map[K]int64
	bits uint
	hash func(K) uint64
	drop func(K) // if set, called with each value no longer counted
}

func newSampledCounts[K comparable](hash func(K) uint64) *sampledCounts[K] {
	return &sampledCounts[K]{n: map[K]int64{}, hash: hash}
}

// counts reports whether v is among the values counted.
func (c *sampledCounts[K]) counts(v K) bool { return c.hash(v)&(1<<c.bits-1) == 0 }

func (c *sampledCounts[K]) add(v K) {
	if !c.counts(v) {
		return
	}
	c.n[v]++
	for len(c.n) > maxRefCounts {
		c.bits++
		for k := range c.n {
			if !c.counts(k) {
				delete(c.n, k)
				if c.drop != nil {
					c.drop(k)
				}
			}
		}
	}
}

func hash64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix(h)
}

// mix spreads every bit of h over the low ones (SplitMix64's finaliser).
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// repeatsApply reports whether values of type t at path count for how
// values repeat: the values of references, ObjectIDs anywhere, integers and
// strings under a name that says they are ids ("userId", "user_id",
// "productIds"). Other strings and numbers that repeat (a town, a page
// count) are measured by their lengths and values: a generated copy keeps
// how long and how large they are, not which ones repeat.
func repeatsApply(path, t string) bool {
	switch t {
	case TypeObjectID:
		return true
	case TypeInt, TypeLong, TypeString:
		return idName(path[strings.LastIndexAny(path, ".]")+1:])
	}
	return false
}

// idName reports whether a field name says it holds ids: a word before
// "Id", "ID", "Ids", "IDs" (camel case) or "_id", "_ids" (any case).
func idName(name string) bool {
	for _, suf := range []string{"Id", "ID", "Ids", "IDs"} {
		if len(name) > len(suf) && strings.HasSuffix(name, suf) {
			return true
		}
	}
	l := strings.ToLower(name)
	for _, suf := range []string{"_id", "_ids"} {
		if len(l) > len(suf) && strings.HasSuffix(l, suf) {
			return true
		}
	}
	return false
}
