package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The data directory holds two files:
//
//	checkpoint  every document and index at one moment, written to
//	            checkpoint.tmp, synced and renamed over the old one;
//	journal     the changes committed since, one record per write.
//
// Both are sequences of records: 4-byte little-endian length of the
// payload, 4-byte CRC-32C of the payload, the payload (one BSON document).
// The checkpoint's first record is {format: "oidkit-storage", version: 1}.
// A record is appended with one write(2) before its write is acknowledged,
// so a killed process loses nothing acknowledged; the journal is synced to
// disk every SyncInterval and at Close, so an OS crash loses at most the
// writes of that interval. A torn record at the end of the journal (a
// write that was never acknowledged) is cut off at start; a bad checksum
// anywhere else, or in the checkpoint, is an error, never skipped.
const (
	checkpointFile = "checkpoint"
	journalFile    = "journal"
	formatName     = "oidkit-storage"
	formatVersion  = 1
	// checkpointAfter is the journal size that makes the next write
	// fold the journal into a new checkpoint.
	checkpointAfter = 64 << 20
)

// SyncInterval is how often the journal is synced to disk.
const SyncInterval = 100 * time.Millisecond

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt marks a data directory whose files fail their checksums.
var ErrCorrupt = errors.New("data directory is corrupt")

type journal struct {
	dir  string
	f    *os.File
	size int64
	// nextCheckpoint is the journal size past which a write folds the
	// journal into a new checkpoint.
	nextCheckpoint int64
	mu             sync.Mutex
	dirty          bool
	stop           chan struct{}
	done           chan struct{}
}

func frame(dst []byte, payload []byte) []byte {
	var h [8]byte
	binary.LittleEndian.PutUint32(h[0:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:], crc32.Checksum(payload, castagnoli))
	return append(append(dst, h[:]...), payload...)
}

// readRecords reads framed records; it returns the offset after the last
// good one and whether the file ended in a torn record.
func readRecords(r io.Reader, fn func(bsoncore.Document) error) (good int64, torn bool, err error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var h [8]byte
	for {
		if _, err := io.ReadFull(br, h[:]); err != nil {
			if err == io.EOF {
				return good, false, nil
			}
			return good, true, nil
		}
		n := binary.LittleEndian.Uint32(h[0:])
		sum := binary.LittleEndian.Uint32(h[4:])
		if n > 64<<20 {
			return good, true, nil
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(br, buf); err != nil {
			return good, true, nil
		}
		if crc32.Checksum(buf, castagnoli) != sum || bsoncore.Document(buf).Validate() != nil {
			// torn only if nothing follows
			if _, err := br.Peek(1); err == io.EOF {
				return good, true, nil
			}
			return good, false, fmt.Errorf("%w: a record at byte %d fails its checksum", ErrCorrupt, good)
		}
		if err := fn(buf); err != nil {
			return good, false, err
		}
		good += int64(8 + n)
	}
}

// openStore loads dir's checkpoint and journal and keeps journaling there.
func openStore(dir string) (*Store, error) {
	s := newStore()
	t := &tx{st: &state{dbs: map[string]map[string]*collection{}}, touched: map[*collection]bool{}}
	if f, err := os.Open(filepath.Join(dir, checkpointFile)); err == nil {
		first := true
		_, torn, err := readRecords(f, func(d bsoncore.Document) error {
			if first {
				first = false
				fv, _ := d.LookupErr("format")
				vv, _ := d.LookupErr("version")
				if toStr(fv) != formatName {
					return fmt.Errorf("%w: %s is not an oidkit checkpoint", ErrCorrupt, f.Name())
				}
				if n, _ := intOf(vv); n != formatVersion {
					return fmt.Errorf("checkpoint %s has format version %d; this oidkit reads version %d", f.Name(), n, formatVersion)
				}
				return nil
			}
			return t.replay(d)
		})
		f.Close()
		if err != nil {
			return nil, err
		}
		if torn {
			return nil, fmt.Errorf("%w: checkpoint %s is cut short", ErrCorrupt, filepath.Join(dir, checkpointFile))
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	jpath := filepath.Join(dir, journalFile)
	jf, err := os.OpenFile(jpath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	good, torn, err := readRecords(jf, func(d bsoncore.Document) error {
		ops, _ := d.LookupErr("ops")
		for _, op := range arrayValues(ops) {
			if err := t.replay(bsoncore.Document(op.Data)); err != nil {
				return fmt.Errorf("replaying the journal: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		jf.Close()
		return nil, err
	}
	if torn {
		if err := jf.Truncate(good); err != nil {
			jf.Close()
			return nil, err
		}
	}
	if _, err := jf.Seek(good, io.SeekStart); err != nil {
		jf.Close()
		return nil, err
	}
	s.cur.Store(t.st)
	s.journal = &journal{dir: dir, f: jf, size: good, nextCheckpoint: checkpointAfter, stop: make(chan struct{}), done: make(chan struct{})}
	go s.journal.syncLoop()
	return s, nil
}

func (j *journal) syncLoop() {
	defer close(j.done)
	tk := time.NewTicker(SyncInterval)
	defer tk.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-tk.C:
			j.mu.Lock()
			if j.dirty {
				_ = j.f.Sync()
				j.dirty = false
			}
			j.mu.Unlock()
		}
	}
}

// append writes one commit's changes; st is the state after them, folded
// into a new checkpoint when the journal has grown large.
func (j *journal) append(ops []bsoncore.Document, st *state) error {
	vals := make([]bsoncore.Value, len(ops))
	for i, o := range ops {
		vals[i] = vDoc(o)
	}
	payload := bsoncore.NewDocumentBuilder().AppendArray("ops", bsoncore.BuildArray(nil, vals...)).Build()
	rec := frame(nil, payload)
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(rec); err != nil {
		// leave no partial record behind
		_ = j.f.Truncate(j.size)
		_, _ = j.f.Seek(j.size, io.SeekStart)
		return err
	}
	j.size += int64(len(rec))
	j.dirty = true
	if j.size > j.nextCheckpoint {
		// The record is in the journal: the write stands whether or not
		// the checkpoint can be written now (a full disk); a failed one
		// is tried again after another checkpointAfter bytes.
		if err := j.checkpoint(st); err != nil {
			j.nextCheckpoint = j.size + checkpointAfter
		}
	}
	return nil
}

// checkpoint writes st as the new checkpoint and empties the journal.
func (j *journal) checkpoint(st *state) error {
	tmp := filepath.Join(j.dir, checkpointFile+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	write := func(d bsoncore.Document) error {
		_, err := w.Write(frame(nil, d))
		return err
	}
	err = write(bsoncore.NewDocumentBuilder().AppendString("format", formatName).AppendInt32("version", formatVersion).Build())
	for db, colls := range st.dbs {
		for name, c := range colls {
			if err != nil {
				break
			}
			err = write(bsoncore.NewDocumentBuilder().AppendString("o", "c").AppendString("db", db).AppendString("c", name).AppendBinary("u", 4, c.uuid[:]).Build())
			if err == nil && len(c.opts) > 5 {
				err = write(bsoncore.NewDocumentBuilder().AppendString("o", "o").AppendString("db", db).AppendString("c", name).AppendDocument("opts", c.opts).Build())
			}
			for _, ix := range c.indexes {
				if err == nil {
					spec := bsoncore.NewDocumentBuilder().AppendDocument("key", ix.key).AppendString("name", ix.name)
					for _, e := range elements(ix.spec) {
						switch e.Key() {
						case "v", "key", "name":
						default:
							spec.AppendValue(e.Key(), e.Value())
						}
					}
					err = write(bsoncore.NewDocumentBuilder().AppendString("o", "ci").AppendString("db", db).AppendString("c", name).AppendDocument("spec", spec.Build()).Build())
				}
			}
			c.scan(func(r *record) bool {
				err = write(bsoncore.NewDocumentBuilder().AppendString("o", "p").AppendString("db", db).AppendString("c", name).AppendDocument("d", r.doc).Build())
				return err == nil
			})
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(j.dir, checkpointFile)); err != nil {
		return err
	}
	if d, err := os.Open(j.dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	if err := j.f.Truncate(0); err != nil {
		return err
	}
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	j.size = 0
	j.nextCheckpoint = checkpointAfter
	return j.f.Sync()
}

// close folds the journal into a checkpoint and closes it.
func (j *journal) close(st *state) error {
	close(j.stop)
	<-j.done
	j.mu.Lock()
	defer j.mu.Unlock()
	err := j.checkpoint(st)
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}
