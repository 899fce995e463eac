package indexes

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// SidecarSuffix ends the name of an index sidecar: users.metadata.json
// holds the indexes of collection users, as mongodump writes it.
const SidecarSuffix = ".metadata.json"

// MaxSidecarSize bounds a sidecar file: indexes take a few hundred bytes
// each.
const MaxSidecarSize = 16 << 20

// SidecarPath is the sidecar of collection in dir.
func SidecarPath(dir, collection string) string {
	return filepath.Join(dir, collection+SidecarSuffix)
}

// IsSidecar reports whether path names a sidecar (ends in .metadata.json).
func IsSidecar(path string) bool {
	base := filepath.Base(path)
	return len(base) > len(SidecarSuffix) && strings.HasSuffix(base, SidecarSuffix)
}

// SidecarError is a sidecar file that cannot be read or used.
type SidecarError struct {
	Path  string
	Where string // "indexes[2]", "options", ...; "" for the whole file
	Err   error
}

func (e *SidecarError) Error() string {
	if e.Where == "" {
		return e.Path + ": " + e.Err.Error()
	}
	return e.Path + ": " + e.Where + ": " + e.Err.Error()
}

func (e *SidecarError) Unwrap() error { return e.Err }

// ReadSidecar reads a sidecar in mongodump's format:
//
//	{"options": {}, "indexes": [{"v": 2, "key": {"_id": 1}, "name": "_id_"},
//	  {"v": 2, "key": {"email": 1}, "name": "email_1", "unique": true}],
//	 "uuid": "...", "collectionName": "users", "type": "collection"}
//
// canonical or relaxed Extended JSON. It returns the indexes without the
// _id index, validated (ValidateList). Collection options other than {} and
// a type other than "collection" are refused (oidkit does not create them),
// as is any other top-level field. Every error is a *SidecarError.
func ReadSidecar(path string) ([]Index, error) {
	return readSidecar(path, os.Stat, func(p string) (fs.File, error) { return os.Open(p) })
}

// ReadSidecarFS is ReadSidecar of the file name in fsys, named as in fsys
// in errors; a nil fsys is the operating system's file system, with name
// a path (ReadSidecar).
func ReadSidecarFS(fsys fs.FS, name string) ([]Index, error) {
	if fsys == nil {
		return ReadSidecar(name)
	}
	return readSidecar(name, func(n string) (fs.FileInfo, error) { return fs.Stat(fsys, n) }, fsys.Open)
}

func readSidecar(name string, stat func(string) (fs.FileInfo, error), open func(string) (fs.File, error)) ([]Index, error) {
	// Opening a FIFO waits for a writer, a device may never end: only a
	// regular file is opened.
	if fi, err := stat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, &SidecarError{Path: name, Err: fmt.Errorf("not a regular file; expected an index sidecar")}
	}
	f, err := open(name)
	if err != nil {
		return nil, &SidecarError{Path: name, Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSidecarSize+1))
	if err != nil {
		return nil, &SidecarError{Path: name, Err: err}
	}
	if len(data) > MaxSidecarSize {
		return nil, &SidecarError{Path: name, Err: fmt.Errorf("larger than %d bytes; expected an index sidecar", MaxSidecarSize)}
	}
	return ParseSidecar(name, data)
}

// ParseSidecar is ReadSidecar of data; name is used in errors.
func ParseSidecar(name string, data []byte) ([]Index, error) {
	bad := func(where, format string, args ...any) error {
		return &SidecarError{Path: name, Where: where, Err: fmt.Errorf(format, args...)}
	}
	d, err := unmarshalOne(data)
	if err != nil {
		return nil, bad("", "%v; expected Extended JSON such as {\"indexes\": [{\"v\": 2, \"key\": {\"email\": 1}, \"name\": \"email_1\"}]}", err)
	}
	var list []Index
	seen := map[string]bool{}
	for _, e := range d {
		if seen[e.Key] {
			return nil, bad(e.Key, "appears twice; expected it once")
		}
		seen[e.Key] = true
		switch e.Key {
		case "options":
			o, ok := e.Value.(bson.D)
			if !ok {
				return nil, bad("options", "%s: expected a document", valueText(e.Value))
			}
			if len(o) > 0 {
				return nil, bad("options", "%s: collection options are not created by oidkit; expected {}", valueText(o))
			}
		case "indexes":
			a, ok := e.Value.(bson.A)
			if !ok {
				return nil, bad("indexes", "%s: expected an array of index documents", valueText(e.Value))
			}
			for k, v := range a {
				where := fmt.Sprintf("indexes[%d]", k)
				doc, ok := v.(bson.D)
				if !ok {
					return nil, bad(where, "%s: expected an index document", valueText(v))
				}
				ix, err := FromDocument(doc)
				if err != nil {
					return nil, &SidecarError{Path: name, Where: where, Err: err}
				}
				if ix.Name == IDIndexName || (ix.Name == "" && len(ix.Key) == 1 && ix.Key[0].Key == "_id" && ix.Key[0].Value == int32(1)) {
					if len(ix.Key) != 1 || ix.Key[0].Key != "_id" {
						return nil, bad(where, "index _id_ with key %s: expected {\"_id\": 1}", extJSON(ix.Key))
					}
					continue
				}
				if err := ix.Validate(); err != nil {
					return nil, &SidecarError{Path: name, Where: where, Err: err}
				}
				list = append(list, ix)
			}
		case "uuid", "collectionName":
			if _, ok := e.Value.(string); !ok {
				return nil, bad(e.Key, "%s: expected a string", valueText(e.Value))
			}
		case "type":
			if e.Value != "collection" {
				return nil, bad("type", "%s: oidkit loads collections only; expected \"collection\"", valueText(e.Value))
			}
		default:
			return nil, bad(e.Key, "unknown field; expected options, indexes, uuid, collectionName, type")
		}
	}
	if err := ValidateList(list); err != nil {
		return nil, &SidecarError{Path: name, Where: "indexes", Err: err}
	}
	return list, nil
}

// WriteSidecar writes the sidecar of collection at path, in mongodump's
// format (canonical Extended JSON, the _id index first, "v": 2), so that
// mongorestore reads it too. list is validated first; the file appears
// whole or not at all (a temporary file in the same directory, synced and
// renamed).
func WriteSidecar(path, collection string, list []Index) error {
	if err := ValidateList(list); err != nil {
		return err
	}
	idx := bson.A{bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "name", Value: IDIndexName}}}
	for _, ix := range list {
		idx = append(idx, append(bson.D{{Key: "v", Value: int32(2)}}, ix.Document()...))
	}
	doc := bson.D{{Key: "options", Value: bson.D{}}, {Key: "indexes", Value: idx}, {Key: "collectionName", Value: collection}, {Key: "type", Value: "collection"}}
	data, err := bson.MarshalExtJSON(doc, true, false)
	if err != nil {
		return fmt.Errorf("sidecar %s: %w", path, err)
	}
	return writeAtomic(path, append(data, '\n'))
}

func writeAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if base == "" {
		return fmt.Errorf("%q: expected a file name, not a directory", path)
	}
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	return nil
}
