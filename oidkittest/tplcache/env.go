package tplcache

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The environment variables that place, bound and switch off the cache.
const (
	// DirEnv is the directory of oidkit's caches, an absolute path; the
	// templates are in its subdirectory templates. Unset, it is
	// os.UserCacheDir()/oidkit (such as ~/.cache/oidkit).
	DirEnv = "OIDKIT_CACHE_DIR"
	// ModeEnv is "on" (the default) or "off": off, templates are neither
	// read from nor written to disk.
	ModeEnv = "OIDKIT_CACHE"
	// MaxEnv bounds the total size of the entries: a number of bytes, or
	// one with a unit (KB, MB, GB, TB; KiB, MiB, GiB, TiB), such as 2GiB.
	MaxEnv = "OIDKIT_CACHE_MAX"
)

// LegacyEnv is the variable of the cache of earlier oidkits, still read:
// "off" is ModeEnv=off, an absolute directory the entries' directory
// itself. DirEnv and ModeEnv, when set, win.
const LegacyEnv = "OIDKIT_TEST_CACHE"

// DefaultMax is the bound on the entries' total size when MaxEnv is unset:
// 512 MiB.
const DefaultMax int64 = 512 << 20

// EnvError is an environment variable whose value is not one of those
// expected.
type EnvError struct {
	Var, Value string
	Expected   string
}

func (e *EnvError) Error() string {
	return fmt.Sprintf("%s=%q: expected %s", e.Var, e.Value, e.Expected)
}

// FromEnv is the cache the environment describes (DirEnv, ModeEnv,
// MaxEnv, LegacyEnv). A value it cannot use is an *EnvError. Without a
// directory named and without a user cache directory (neither
// $XDG_CACHE_HOME nor $HOME) the cache is off, and Why says so.
func FromEnv() (*Cache, error) {
	c := &Cache{Max: DefaultMax}
	legacy := os.Getenv(LegacyEnv)
	switch v := os.Getenv(ModeEnv); strings.ToLower(strings.TrimSpace(v)) {
	case "on", "1", "true":
	case "":
		if legacy == "off" {
			c.Off, c.Why = true, LegacyEnv+"=off"
		}
	case "off", "0", "false":
		c.Off, c.Why = true, ModeEnv+"="+v
	default:
		return nil, &EnvError{Var: ModeEnv, Value: v, Expected: `"on" or "off"`}
	}
	if v, ok := os.LookupEnv(MaxEnv); ok {
		n, err := ParseSize(v)
		if err != nil {
			return nil, &EnvError{Var: MaxEnv, Value: v, Expected: "a positive size such as 512MiB, 2GB or 1048576 (bytes)"}
		}
		c.Max = n
	}
	if err := c.place(os.Getenv(DirEnv), legacy); err != nil {
		return nil, err
	}
	return c, nil
}

// place sets the directory from DirEnv's value root, or LegacyEnv's, or
// the user cache directory.
func (c *Cache) place(root, legacy string) error {
	switch {
	case root != "" && !filepath.IsAbs(root):
		return &EnvError{Var: DirEnv, Value: root, Expected: "an absolute directory"}
	case root != "":
		c.Dir = filepath.Join(root, "templates")
	case legacy != "" && legacy != "off" && !filepath.IsAbs(legacy):
		return &EnvError{Var: LegacyEnv, Value: legacy, Expected: "off or an absolute directory"}
	case legacy != "" && legacy != "off":
		c.Dir = legacy
	default:
		dir, err := os.UserCacheDir()
		if err != nil {
			if !c.Off {
				c.Off, c.Why = true, fmt.Sprintf("no user cache directory (%v) and %s unset", err, DirEnv)
			}
			return nil
		}
		c.Dir = filepath.Join(dir, "oidkit", "templates")
		c.Legacy = filepath.Join(dir, "oidkit", "oidkittest")
	}
	return nil
}

// units are the size suffixes ParseSize reads, lower case.
var units = map[string]int64{
	"": 1, "b": 1,
	"k": 1000, "kb": 1000, "m": 1000 * 1000, "mb": 1000 * 1000,
	"g": 1000 * 1000 * 1000, "gb": 1000 * 1000 * 1000, "t": 1000 * 1000 * 1000 * 1000, "tb": 1000 * 1000 * 1000 * 1000,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseSize reads a positive size: a whole number of bytes, or a whole
// number with a unit ("512MiB", "2 GB").
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(t)
	}
	unit, ok := units[strings.ToLower(strings.TrimSpace(t[i:]))]
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if !ok || err != nil || n <= 0 || n > (1<<62)/unit {
		return 0, fmt.Errorf("size %q: expected a positive whole number of bytes, or one with a unit (KB, MB, GB, TB, KiB, MiB, GiB, TiB)", s)
	}
	return n * unit, nil
}

// FormatSize writes n bytes for people, in binary units: "812 B",
// "6.2 MiB", "512 MiB".
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB"}[i]
}
