// Package storage keeps the embedded server's data directory: the files
// that make its in-memory state durable, and nothing of what they hold.
//
// The directory holds two files:
//
//	checkpoint  the whole state at one moment, written to checkpoint.tmp,
//	            synced and renamed over the old one;
//	journal     the changes committed since, one record per write.
//
// Both are sequences of records: 4-byte little-endian length of the
// payload, 4-byte CRC-32C of the payload, the payload (one BSON document).
// The checkpoint's first record is {format: "oidkit-storage", version: 1,
// generation: G}; the journal's is {generation: G}, written with its first
// change. Each checkpoint takes the next generation, so a journal whose
// generation is the one before the checkpoint's holds changes the
// checkpoint already has (a kill between the rename and the emptying of
// the journal) and is emptied at Open, never replayed; a file without a
// generation (written before there were any) counts as generation 0.
// A record is appended with one write(2) before its write is acknowledged,
// so a killed process loses nothing acknowledged; the journal is synced to
// disk every SyncInterval and at Close, so an OS crash loses at most the
// writes of that interval. A torn record at the end of the journal (a
// write that was never acknowledged) is cut off at Open; a bad checksum
// anywhere else, or in the checkpoint, is an error, never skipped.
package storage

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

const (
	// CheckpointFile and JournalFile are the files of a data directory.
	CheckpointFile = "checkpoint"
	JournalFile    = "journal"
	formatName     = "oidkit-storage"
	formatVersion  = 1
	// generationKey names a file's generation in its first record.
	generationKey = "generation"
	// checkpointAfter is the journal size that makes the next append
	// fold the journal into a new checkpoint.
	checkpointAfter = 64 << 20
	// maxRecord is the largest record read back; a longer length is torn.
	maxRecord = 64 << 20
)

// SyncInterval is how often the journal is synced to disk.
const SyncInterval = 100 * time.Millisecond

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt marks a data directory whose files fail their checksums.
var ErrCorrupt = errors.New("data directory is corrupt")

// Dump writes the whole state as records, through write, for a checkpoint.
type Dump func(write func(bsoncore.Document) error) error

// Journal is an open data directory: appends go to its journal, and a
// checkpoint replaces the journal's records with the state they made.
type Journal struct {
	dir  string
	f    *os.File
	size int64
	// gen is the checkpoint's generation, which the journal's first
	// record names.
	gen int64
	// broken is set when a checkpoint is in place and the journal could
	// not be emptied: appending to it would put changes where Open does
	// not read them, so every append fails.
	broken error
	// nextCheckpoint is the journal size past which an append folds the
	// journal into a new checkpoint.
	nextCheckpoint int64
	mu             sync.Mutex
	dirty          bool
	stop           chan struct{}
	done           chan struct{}
}

// Open reads dir's checkpoint (each record after the format's, in order,
// to checkpoint) and journal (each of its records to journal, when it
// follows that checkpoint), cuts a torn last journal record off, and keeps
// journaling there.
func Open(dir string, checkpoint, journal func(bsoncore.Document) error) (*Journal, error) {
	gen, err := readCheckpoint(filepath.Join(dir, CheckpointFile), checkpoint)
	if err != nil {
		return nil, err
	}
	jf, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	good, err := readJournal(jf, gen, journal)
	if err == nil {
		_, err = jf.Seek(good, io.SeekStart)
	}
	if err != nil {
		jf.Close()
		return nil, err
	}
	j := &Journal{dir: dir, f: jf, size: good, gen: gen, nextCheckpoint: checkpointAfter, stop: make(chan struct{}), done: make(chan struct{})}
	go j.syncLoop()
	return j, nil
}

// readCheckpoint reads the checkpoint at name, if there is one, and
// returns its generation.
func readCheckpoint(name string, checkpoint func(bsoncore.Document) error) (gen int64, err error) {
	f, err := os.Open(name)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	first := true
	_, torn, err := readRecords(f, func(d bsoncore.Document) error {
		if first {
			first = false
			gen, _ = generation(d)
			return checkFormat(d, name)
		}
		return checkpoint(d)
	})
	if err == nil && torn {
		err = fmt.Errorf("%w: checkpoint %s is cut short", ErrCorrupt, name)
	}
	return gen, err
}

// errStale stops the reading of a journal that the checkpoint holds.
var errStale = errors.New("the checkpoint holds this journal")

// readJournal gives journal the changes of jf, when jf follows the
// checkpoint of generation gen, and returns the offset after the last good
// record. It empties a journal the checkpoint holds, and cuts a torn last
// record off.
func readJournal(jf *os.File, gen int64, journal func(bsoncore.Document) error) (int64, error) {
	first := true
	good, torn, err := readRecords(jf, func(d bsoncore.Document) error {
		if !first {
			return journal(d)
		}
		first = false
		jgen, header := generation(d)
		switch {
		case jgen == gen-1:
			return errStale
		case jgen != gen:
			return fmt.Errorf("%w: journal %s is of generation %d, and its checkpoint of %d", ErrCorrupt, jf.Name(), jgen, gen)
		case header:
			return nil
		}
		return journal(d)
	})
	switch {
	case errors.Is(err, errStale):
		good, err = 0, jf.Truncate(0)
		if err == nil {
			err = jf.Sync()
		}
	case err == nil && torn:
		err = jf.Truncate(good)
	}
	return good, err
}

// generation is the generation a file's first record names (0 when it
// names none), and whether the record is a journal's header.
func generation(d bsoncore.Document) (gen int64, header bool) {
	v, err := d.LookupErr(generationKey)
	if err != nil {
		return 0, false
	}
	gen, _ = v.AsInt64OK()
	elems, _ := d.Elements()
	return gen, len(elems) == 1
}

func header(gen int64) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendInt64(generationKey, gen).Build()
}

// checkFormat checks a checkpoint's first record.
func checkFormat(d bsoncore.Document, name string) error {
	fv, _ := d.LookupErr("format")
	vv, _ := d.LookupErr("version")
	if s, ok := fv.StringValueOK(); !ok || s != formatName {
		return fmt.Errorf("%w: %s is not an oidkit checkpoint", ErrCorrupt, name)
	}
	if n, ok := vv.AsInt64OK(); !ok || n != formatVersion {
		return fmt.Errorf("checkpoint %s has format version %v; this oidkit reads version %d", name, vv, formatVersion)
	}
	return nil
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
		if n > maxRecord {
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

func (j *Journal) syncLoop() {
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

// Append writes one record with one write(2) (the first after a
// checkpoint with the journal's header); when the journal has grown
// past its bound, dump's state becomes a new checkpoint. A failed write
// leaves no partial record; a failed checkpoint (a full disk) does not
// fail the append, whose record stands, and is tried again later.
func (j *Journal) Append(record bsoncore.Document, dump Dump) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.broken != nil {
		return j.broken
	}
	var rec []byte
	if j.size == 0 {
		rec = frame(nil, header(j.gen))
	}
	rec = frame(rec, record)
	if _, err := j.f.Write(rec); err != nil {
		_ = j.f.Truncate(j.size)
		_, _ = j.f.Seek(j.size, io.SeekStart)
		return err
	}
	j.size += int64(len(rec))
	j.dirty = true
	if j.size > j.nextCheckpoint {
		if err := j.checkpoint(dump); err != nil {
			j.nextCheckpoint = j.size + checkpointAfter
		}
	}
	return nil
}

// checkpoint writes dump's state as the new checkpoint and empties the
// journal.
func (j *Journal) checkpoint(dump Dump) error {
	tmp := filepath.Join(j.dir, CheckpointFile+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	write := func(d bsoncore.Document) error {
		_, err := w.Write(frame(nil, d))
		return err
	}
	err = write(bsoncore.NewDocumentBuilder().AppendString("format", formatName).AppendInt32("version", formatVersion).AppendInt64(generationKey, j.gen+1).Build())
	if err == nil {
		err = dump(write)
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
	if err := os.Rename(tmp, filepath.Join(j.dir, CheckpointFile)); err != nil {
		return err
	}
	if d, err := os.Open(j.dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	// The checkpoint in place holds the journal's changes: from here on
	// Open skips them, and the journal must be emptied before it takes
	// another.
	j.gen++
	err = j.f.Truncate(0)
	if err == nil {
		_, err = j.f.Seek(0, io.SeekStart)
	}
	if err != nil {
		j.broken = fmt.Errorf("the journal cannot be emptied after a checkpoint: %w", err)
		return j.broken
	}
	j.size = 0
	j.nextCheckpoint = checkpointAfter
	return j.f.Sync()
}

// Close folds the journal into a checkpoint of dump's state and closes it;
// an empty journal (nothing written since the checkpoint) leaves the
// checkpoint as it is.
func (j *Journal) Close(dump Dump) error {
	j.halt()
	j.mu.Lock()
	defer j.mu.Unlock()
	var err error
	if j.size > 0 {
		err = j.checkpoint(dump)
	}
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Abandon closes the journal as a killed process leaves it: no sync, no
// checkpoint. What it held is read back by the next Open.
func (j *Journal) Abandon() {
	j.halt()
	_ = j.f.Close()
}

func (j *Journal) halt() {
	select {
	case <-j.stop:
	default:
		close(j.stop)
	}
	<-j.done
}
