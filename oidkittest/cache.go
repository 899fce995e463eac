package oidkittest

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// CacheEnv says where the embedded server's templates are cached between
// test binaries: unset, in oidkittest under the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux); "off", nowhere;
// otherwise the absolute directory it names.
const CacheEnv = "OIDKIT_TEST_CACHE"

// cacheFormat changes whenever the layout of a cache entry or of the
// template in it changes, so an older entry is never read as a newer one.
const cacheFormat = "oidkittest template cache 1"

// cacheExt ends a cache entry's file: the template's SQLite file followed
// by a trailer (cacheTrailer).
const cacheExt = ".tpl"

// cacheMagic ends every cache entry.
var cacheMagic = [8]byte{'o', 'i', 'd', 'k', 't', 'p', 'l', '1'}

// cacheTrailer is the SHA-256 of the SQLite bytes before it, their length
// (8 bytes, big-endian) and cacheMagic.
const cacheTrailer = sha256.Size + 8 + 8

// cacheUnused is how long an entry no test binary read stays: older ones
// are removed when an entry is written.
const cacheUnused = 30 * 24 * time.Hour

// cacheDir is the cache directory CacheEnv asks for, made if missing; ""
// means no cache. A value that is neither "off" nor absolute, or a
// directory it names that cannot be made, is refused; the default
// directory that cannot be made means no cache.
func cacheDir() (string, error) {
	v := os.Getenv(CacheEnv)
	switch {
	case v == "off":
		return "", nil
	case v == "":
		base, err := os.UserCacheDir()
		if err != nil {
			return "", nil // no cache directory known: no cache
		}
		dir := filepath.Join(base, "oidkit", "oidkittest")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil // a read-only home: no cache
		}
		return dir, nil
	case !filepath.IsAbs(v):
		return "", fmt.Errorf("%s=%q: expected off or an absolute directory", CacheEnv, v)
	}
	if err := os.MkdirAll(v, 0o755); err != nil {
		return "", fmt.Errorf("%s=%s: %w", CacheEnv, v, err)
	}
	return v, nil
}

// The modules whose versions shape a template's bytes: the generator and
// loader (oidkit), the fake values (gofakeit), the documents' encoding
// (the driver), their storage (FerretDB, SQLite).
var shapingModules = []string{
	"github.com/oidkit/oidkit",
	"github.com/brianvoe/gofakeit/v7",
	"go.mongodb.org/mongo-driver/v2",
	"github.com/FerretDB/FerretDB",
	"modernc.org/sqlite",
}

var versions struct {
	once sync.Once
	text string
	err  error
}

// shapingVersions names the versions that shape a template's bytes: the
// cache format, Go's version and each shaping module's version. A module
// without a version (the module under development, or replaced by a
// directory) has none that would change with its code, so the test
// binary's build ID (or, where it has none, its SHA-256) stands in; so it
// does for a version stamped from a work tree with uncommitted changes
// (+dirty).
func shapingVersions() (string, error) {
	versions.once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			versions.err = errors.New("no build information in the test binary")
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s\ngo %s\n", cacheFormat, runtime.Version())
		devel := false
		for _, path := range shapingModules {
			v := moduleVersion(bi, path)
			if v == "" || strings.HasPrefix(v, "(") || strings.HasSuffix(v, "+dirty") {
				devel = true
			}
			fmt.Fprintf(&b, "%s %s\n", path, v)
		}
		if devel {
			id, err := binaryID()
			if err != nil {
				versions.err = err
				return
			}
			fmt.Fprintf(&b, "binary %s\n", id)
		}
		versions.text = b.String()
	})
	return versions.text, versions.err
}

func moduleVersion(bi *debug.BuildInfo, path string) string {
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m.Path != path {
			continue
		}
		if m.Replace != nil {
			if m.Replace.Version == "" {
				return "(replaced by " + m.Replace.Path + ")"
			}
			return m.Replace.Path + " " + m.Replace.Version
		}
		return m.Version
	}
	return "(absent)"
}

// binaryID is the Go build ID of the running executable (it changes with
// any input of the build), or the SHA-256 of the file where there is none.
func binaryID() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if f, err := elf.Open(exe); err == nil {
		defer f.Close()
		if s := f.Section(".note.go.buildid"); s != nil {
			if data, err := s.Data(); err == nil && len(data) > 16 {
				return "buildid " + hex.EncodeToString(data), nil
			}
		}
	}
	in, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer in.Close()
	h := sha256.New()
	if _, err := io.Copy(h, in); err != nil {
		return "", err
	}
	return "sha256 " + hex.EncodeToString(h.Sum(nil)), nil
}

// cacheKey names c's template in the cache: the content's digest and the
// versions that shape its bytes.
func (c *content) cacheKey() (string, error) {
	v, err := shapingVersions()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(v + "content " + c.sum + "\n"))
	return hex.EncodeToString(sum[:]), nil
}

// cacheGet writes the template cached under key into dst and reports
// whether it did. An entry that is truncated, corrupt or of another
// format is removed and reported missing; dst is then removed too.
func cacheGet(dir, key, dst string) bool {
	src := filepath.Join(dir, key+cacheExt)
	ok, err := readEntry(src, dst)
	if err != nil || !ok {
		_ = os.Remove(dst)
		if err != nil {
			_ = os.Remove(src) // a bad entry: the next build rewrites it
		}
		return false
	}
	now := time.Now()
	_ = os.Chtimes(src, now, now) // used: not removed as unused
	return true
}

// readEntry copies an entry's SQLite bytes into dst, checking them against
// the trailer. It reports false, nil when there is no entry.
func readEntry(src, dst string) (bool, error) {
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() < cacheTrailer {
		return false, fmt.Errorf("cache entry %s: %d bytes, shorter than its trailer", src, st.Size())
	}
	var tr [cacheTrailer]byte
	if _, err := in.ReadAt(tr[:], st.Size()-cacheTrailer); err != nil {
		return false, err
	}
	n := int64(binary.BigEndian.Uint64(tr[sha256.Size:]))
	if !bytes.Equal(tr[sha256.Size+8:], cacheMagic[:]) || n != st.Size()-cacheTrailer {
		return false, fmt.Errorf("cache entry %s: bad trailer", src)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(out, h), io.NewSectionReader(in, 0, n)); err != nil {
		_ = out.Close()
		return false, err
	}
	if err := out.Close(); err != nil {
		return false, err
	}
	if !bytes.Equal(h.Sum(nil), tr[:sha256.Size]) {
		return false, fmt.Errorf("cache entry %s: its SHA-256 does not match", src)
	}
	return true, nil
}

// cachePut stores the template file src under key: written to a temporary
// file in the cache directory, then renamed over the entry, so a reader
// (another test binary building or reading the same template at the same
// time) sees the whole old entry, the whole new one, or none. A failure
// leaves no entry; the cache is an optimisation and never fails a test.
func cachePut(dir, key, src string) {
	tmp, err := os.CreateTemp(dir, key+".tmp-*")
	if err != nil {
		return
	}
	if err := writeEntry(tmp, src); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, key+cacheExt)); err != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	pruneCache(dir)
}

func writeEntry(out io.Writer, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	var h hash.Hash = sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if err != nil {
		return err
	}
	var tr [cacheTrailer]byte
	copy(tr[:], h.Sum(nil))
	binary.BigEndian.PutUint64(tr[sha256.Size:], uint64(n))
	copy(tr[sha256.Size+8:], cacheMagic[:])
	_, err = out.Write(tr[:])
	return err
}

// pruneCache removes entries unused for cacheUnused and temporary files
// older than an hour (left by a test binary that died while writing).
func pruneCache(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			continue
		}
		age := time.Since(info.ModTime())
		name := e.Name()
		if strings.HasSuffix(name, cacheExt) && age > cacheUnused || strings.Contains(name, ".tmp-") && age > time.Hour {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}
