// Package tplcache keeps oidkittest's templates on disk, so that a test
// binary finds the template an earlier one built instead of generating and
// loading it again.
//
// An entry is one file, KEY.tpl, in the cache directory (FromEnv:
// os.UserCacheDir()/oidkit/templates, or OIDKIT_CACHE_DIR/templates): a
// template's collections, their documents as the server returned them and
// their indexes, with a format version and a CRC-32C checksum. KEY hashes
// what shapes the template's bytes (KeyInputs): the plan's content or the
// fixture files' bytes, the server's kind, the generator's version
// (seed.DocumentFormat) and oidkit's and gofakeit's release versions where
// the build states them; never the test binary's build ID, so editing a
// test does not make new keys.
//
// A writer writes a temporary file in the directory and renames it into
// place, so a reader sees a whole entry or none, and two processes that
// write one key at once both succeed (the last rename stays; both wrote the
// same bytes). A reader that finds an entry of another format version, a
// damaged or a cut-short one removes it and reports a miss; the caller
// builds the template again.
//
// The entries' total size is bounded (OIDKIT_CACHE_MAX, DefaultMax):
// reading an entry sets its modification time to now, and after each write
// the least recently used entries are removed until the total is within
// the bound. An entry larger than the bound is not written. Entries that
// vanish meanwhile (another process removed them) are skipped.
package tplcache

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Cache is a directory of template entries and its bound.
type Cache struct {
	// Dir is the directory of the entries; it is made by the first Put.
	Dir string
	// Max bounds the entries' total size, in bytes.
	Max int64
	// Off is true when the cache is switched off: Get misses and Put
	// writes nothing. Why says what switched it off.
	Off bool
	Why string
	// Legacy is the directory of the cache of earlier oidkits
	// (LegacyEnv's default place), whose entries this one never reads:
	// Clear empties it and LegacySize measures it. "" when none.
	Legacy string
}

// ErrMiss is wrapped by Get's error when it has no entry to give.
var ErrMiss = errors.New("no template entry")

// ErrTooLarge is wrapped by Put's error for an entry larger than the bound.
var ErrTooLarge = errors.New("template entry larger than the cache's bound")

const (
	ext       = ".tpl"
	tmpPrefix = ".tmp-"
	// staleTemp is the age after which a temporary file is taken for one
	// a writer left behind when it stopped.
	staleTemp = time.Hour
)

func (c *Cache) path(key string) string { return filepath.Join(c.Dir, key+ext) }

// checkKey refuses a key that is not what KeyInputs.Key makes.
func checkKey(key string) error {
	if len(key) != 64 || strings.Trim(key, "0123456789abcdef") != "" {
		return fmt.Errorf("template key %q: expected 64 lowercase hex digits (KeyInputs.Key)", key)
	}
	return nil
}

// Get reads the entry of key and marks it used now. The error wraps
// ErrMiss when there is none; an entry that cannot be read (another
// format version, damaged, cut short) is removed.
func (c *Cache) Get(key string) (*Entry, error) {
	if c.Off {
		return nil, fmt.Errorf("%w: the cache is off (%s)", ErrMiss, c.Why)
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	p := c.path(key)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMiss, err)
	}
	e, err := decode(data)
	if err == nil && e.Key != key {
		err = fmt.Errorf("%w: it holds key %s", errFormat, e.Key)
	}
	if err != nil {
		_ = os.Remove(p)
		return nil, fmt.Errorf("%w: %s: %v; removed", ErrMiss, p, err)
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now)
	return e, nil
}

// Put writes e (whose Key is a KeyInputs.Key) as a whole, replacing an
// entry of its key, then removes the least recently used entries until the
// total is within the bound.
func (c *Cache) Put(e *Entry) error {
	if c.Off {
		return nil
	}
	if err := checkKey(e.Key); err != nil {
		return err
	}
	h := e.header()
	raw, err := bson.Marshal(h)
	if err != nil {
		return fmt.Errorf("template entry %s: %w", e.Key, err)
	}
	if size := encodedSize(h, len(raw)); size > c.Max {
		return fmt.Errorf("%w: %s, the bound %s", ErrTooLarge, FormatSize(size), FormatSize(c.Max))
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.Dir, tmpPrefix+e.Key[:16]+"-*")
	if err != nil {
		return err
	}
	err = e.write(f, raw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), c.path(e.Key))
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("template entry %s: %w", e.Key, err)
	}
	return c.trim()
}

// file is an entry file and when it was last used.
type file struct {
	path string
	size int64
	used time.Time
}

// files are the entries of the directory (none when it does not exist);
// it removes the temporary files older than staleTemp on the way.
func (c *Cache) files() ([]file, error) {
	ents, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []file
	for _, d := range ents {
		fi, err := d.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue // vanished, or not ours
		}
		p := filepath.Join(c.Dir, d.Name())
		switch {
		case strings.HasPrefix(d.Name(), tmpPrefix):
			if time.Since(fi.ModTime()) > staleTemp {
				_ = os.Remove(p)
			}
		case strings.HasSuffix(d.Name(), ext):
			out = append(out, file{path: p, size: fi.Size(), used: fi.ModTime()})
		}
	}
	return out, nil
}

// trim removes the least recently used entries until their total is
// within the bound.
func (c *Cache) trim() error {
	files, err := c.files()
	if err != nil {
		return err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	slices.SortFunc(files, func(a, b file) int {
		if d := a.used.Compare(b.used); d != 0 {
			return d
		}
		return strings.Compare(a.path, b.path)
	})
	for _, f := range files {
		if total <= c.Max {
			break
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("template cache: removing %s: %w", f.path, err)
		}
		total -= f.size // gone, by us or by another process
	}
	return nil
}

// Info is what List tells of an entry.
type Info struct {
	Key, Path   string
	What        string
	Collections []CollectionInfo
	Size        int64
	Used        time.Time // last read or written
	Created     time.Time
	// Err says why the entry cannot be read (another format version,
	// damaged); the next Get of its key removes it.
	Err error
}

// CollectionInfo is one collection of an entry.
type CollectionInfo struct {
	Name    string
	Docs    int64
	Indexes int
}

// List is the entries, the most recently used first; it reads each one's
// header, not its documents (so a damaged document shows only at Get).
func (c *Cache) List() ([]Info, error) {
	files, err := c.files()
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, f := range files {
		in := Info{Key: strings.TrimSuffix(filepath.Base(f.path), ext), Path: f.path, Size: f.size, Used: f.used}
		fh, err := os.Open(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var h header
		if err == nil {
			h, err = readHeader(bufio.NewReader(fh))
			_ = fh.Close()
		}
		in.What, in.Created, in.Err = h.What, h.Created, err
		for _, ch := range h.Colls {
			in.Collections = append(in.Collections, CollectionInfo{Name: ch.Name, Docs: ch.Docs, Indexes: len(ch.Indexes)})
		}
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b Info) int { return b.Used.Compare(a.Used) })
	return out, nil
}

// Cleared is what Clear removed.
type Cleared struct {
	Entries int   // entry files
	Bytes   int64 // of all the files removed
	// LegacyFiles are the files removed from Legacy.
	LegacyFiles int
}

// Clear removes every entry, the temporary files of writers, and the
// files of Legacy. Files that vanish meanwhile are skipped.
func (c *Cache) Clear() (Cleared, error) {
	var r Cleared
	ours := func(name string) bool { return strings.HasSuffix(name, ext) || strings.HasPrefix(name, tmpPrefix) }
	err := clearDir(c.Dir, ours, func(name string, size int64) {
		r.Bytes += size
		if strings.HasSuffix(name, ext) {
			r.Entries++
		}
	})
	if err != nil || c.Legacy == "" {
		return r, err
	}
	all := func(string) bool { return true }
	err = clearDir(c.Legacy, all, func(_ string, size int64) {
		r.Bytes += size
		r.LegacyFiles++
	})
	_ = os.Remove(c.Legacy) // once empty
	return r, err
}

// LegacySize is the number and bytes of the files in Legacy.
func (c *Cache) LegacySize() (files int, bytes int64) {
	if c.Legacy == "" {
		return 0, 0
	}
	ents, _ := os.ReadDir(c.Legacy)
	for _, d := range ents {
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			files++
			bytes += fi.Size()
		}
	}
	return files, bytes
}

// clearDir removes the regular files of dir whose names match, and tells
// removed of each; a missing dir holds none.
func clearDir(dir string, match func(name string) bool, removed func(name string, size int64)) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, d := range ents {
		fi, err := d.Info()
		if err != nil || !fi.Mode().IsRegular() || !match(d.Name()) {
			continue
		}
		err = os.Remove(filepath.Join(dir, d.Name()))
		switch {
		case err == nil:
			removed(d.Name(), fi.Size())
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	return nil
}
