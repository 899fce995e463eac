package seed

// mix64 is the SplitMix64 finalizer: a cheap bijective scrambler, so that
// nearby inputs (consecutive document numbers) give unrelated outputs.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hashString is FNV-1a, 64 bits.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Stream tags keep the values derived for different purposes apart.
const (
	tagDoc    = 0x646f63756d656e74
	tagUUID   = 0x7575696475756964
	tagOID    = 0x6f626a6563746964
	tagCount  = 0x636f756e74657273
	tagPrice  = 0x7072696365735f5f
	tagSkew   = 0x736b65775f5f5f5f
	tagIDMix  = 0x69646d69785f5f5f
	golden    = 0x9e3779b97f4a7c15
	tagSecond = 0x5365636f6e645f5f
)

// derive returns a value that depends on key, tag and i only.
func derive(key, tag uint64, i int64) uint64 {
	return mix64(key ^ mix64(tag+uint64(i)*golden))
}
