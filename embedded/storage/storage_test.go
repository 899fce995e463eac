package storage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func rec(i int) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendInt32("i", int32(i)).AppendString("pad", strings.Repeat("x", i%50)).Build()
}

// collect opens dir and returns the numbers of the checkpoint's and the
// journal's records, in order.
func collect(t *testing.T, dir string) (*Journal, []int32, []int32, error) {
	t.Helper()
	var cp, jn []int32
	j, err := Open(dir,
		func(d bsoncore.Document) error { cp = append(cp, d.Lookup("i").Int32()); return nil },
		func(d bsoncore.Document) error { jn = append(jn, d.Lookup("i").Int32()); return nil })
	return j, cp, jn, err
}

func dumpOf(n int) Dump {
	return func(write func(bsoncore.Document) error) error {
		for i := range n {
			if err := write(rec(i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// Appended records are read back after an abandoned (killed) journal and
// after a clean Close, which folds them into a checkpoint and empties the
// journal; a Close with nothing appended writes no checkpoint.
func TestAppendReopenCheckpoint(t *testing.T) {
	dir := t.TempDir()
	j, cp, jn, err := collect(t, dir)
	if err != nil || len(cp)+len(jn) != 0 {
		t.Fatalf("a new directory: %v %v %v", cp, jn, err)
	}
	for i := range 10 {
		if err := j.Append(rec(i), dumpOf(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	j.Abandon()
	j, cp, jn, err = collect(t, dir)
	if err != nil || len(cp) != 0 || fmt.Sprint(jn) != "[0 1 2 3 4 5 6 7 8 9]" {
		t.Fatalf("after a kill: checkpoint %v, journal %v, %v; want the 10 records in the journal", cp, jn, err)
	}
	if err := j.Close(dumpOf(10)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, JournalFile)); err != nil || fi.Size() != 0 {
		t.Errorf("after Close the journal is %v, %v; want empty", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, CheckpointFile+".tmp")); !os.IsNotExist(err) {
		t.Errorf("a checkpoint.tmp is left: %v", err)
	}
	j, cp, jn, err = collect(t, dir)
	if err != nil || fmt.Sprint(cp) != "[0 1 2 3 4 5 6 7 8 9]" || len(jn) != 0 {
		t.Fatalf("after Close: checkpoint %v, journal %v, %v", cp, jn, err)
	}
	// Nothing appended since: Close leaves the checkpoint as it is (the
	// dump it is given is not written).
	if err := j.Close(dumpOf(3)); err != nil {
		t.Fatal(err)
	}
	j, cp, _, err = collect(t, dir)
	if err != nil || fmt.Sprint(cp) != "[0 1 2 3 4 5 6 7 8 9]" {
		t.Fatalf("after a Close with nothing appended: checkpoint %v, %v; want it unchanged", cp, err)
	}
	j.Abandon()
}

// A torn last record (a write cut short by a kill) is cut off at Open and
// the journal goes on after the last good one; a bad record followed by
// others is corruption, reported and never skipped.
func TestTornAndCorruptRecords(t *testing.T) {
	for cut := 1; cut < 12; cut += 5 {
		dir := t.TempDir()
		j, _, _, err := collect(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := j.Append(rec(i), dumpOf(0)); err != nil {
				t.Fatal(err)
			}
		}
		j.Abandon()
		path := filepath.Join(dir, JournalFile)
		b, _ := os.ReadFile(path)
		if err := os.WriteFile(path, b[:len(b)-cut], 0o644); err != nil {
			t.Fatal(err)
		}
		j, _, jn, err := collect(t, dir)
		if err != nil || fmt.Sprint(jn) != "[0 1]" {
			t.Fatalf("cut %d bytes: journal %v, %v; want the 2 whole records", cut, jn, err)
		}
		if err := j.Append(rec(7), dumpOf(0)); err != nil {
			t.Fatal(err)
		}
		j.Abandon()
		if _, _, jn, err := collect(t, dir); err != nil || fmt.Sprint(jn) != "[0 1 7]" {
			t.Fatalf("an append after the cut: %v, %v", jn, err)
		}
	}
	dir := t.TempDir()
	j, _, _, _ := collect(t, dir)
	for i := range 3 {
		_ = j.Append(rec(i), dumpOf(0))
	}
	j.Abandon()
	path := filepath.Join(dir, JournalFile)
	b, _ := os.ReadFile(path)
	b[12] ^= 0xff // inside the first record's payload
	_ = os.WriteFile(path, b, 0o644)
	if _, _, _, err := collect(t, dir); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a bad checksum before other records: %v; want ErrCorrupt", err)
	}
}

// A checkpoint that is not oidkit's, of another format version, or cut
// short is refused.
func TestCheckpointRefusals(t *testing.T) {
	for name, content := range map[string][]byte{
		"another format": frame(nil, bsoncore.NewDocumentBuilder().AppendString("format", "other").AppendInt32("version", 1).Build()),
		"version 2":      frame(nil, bsoncore.NewDocumentBuilder().AppendString("format", formatName).AppendInt32("version", 2).Build()),
		"cut short":      frame(nil, bsoncore.NewDocumentBuilder().AppendString("format", formatName).AppendInt32("version", 1).Build())[:10],
	} {
		dir := t.TempDir()
		_ = os.WriteFile(filepath.Join(dir, CheckpointFile), content, 0o644)
		if j, _, _, err := collect(t, dir); err == nil {
			j.Abandon()
			t.Errorf("a checkpoint of %s was read", name)
		}
	}
}

// Reading records never panics, and stops at the first bad one.
func FuzzReadRecords(f *testing.F) {
	f.Add(frame(frame(nil, rec(1)), rec(2)))
	f.Add([]byte{255, 255, 255, 255, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		good, _, _ := readRecords(bytes.NewReader(b), func(bsoncore.Document) error { n++; return nil })
		if good > int64(len(b)) {
			t.Fatalf("good offset %d past the %d bytes", good, len(b))
		}
	})
}

// A kill during a checkpoint leaves one of three states, and each opens
// to the records appended, each once: the old files beside a partial
// checkpoint.tmp; the new checkpoint beside the journal it holds (killed
// between the rename and the emptying, which Open then empties without
// replaying it); the new checkpoint and an empty journal. A journal of a
// generation that neither is nor precedes the checkpoint's is refused.
func TestKillDuringCheckpoint(t *testing.T) {
	dir := t.TempDir()
	j, _, _, err := collect(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := j.Append(rec(i), dumpOf(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, JournalFile)
	old, _ := os.ReadFile(path)
	if err := j.Close(dumpOf(10)); err != nil {
		t.Fatal(err)
	}
	cp, _ := os.ReadFile(filepath.Join(dir, CheckpointFile))
	all := "[0 1 2 3 4 5 6 7 8 9]"
	for _, c := range []struct {
		name                        string
		checkpoint, tmp, journal    []byte
		wantCP, wantJour, wantAfter string // wantAfter: the journal after an append
	}{
		{"a partial checkpoint.tmp", nil, cp[:len(cp)/2], old, "[]", all, "[0 1 2 3 4 5 6 7 8 9 10]"},
		{"the new checkpoint and the journal it holds", cp, nil, old, all, "[]", "[10]"},
		{"the new checkpoint and an empty journal", cp, nil, nil, all, "[]", "[10]"},
	} {
		d := t.TempDir()
		for name, b := range map[string][]byte{CheckpointFile: c.checkpoint, CheckpointFile + ".tmp": c.tmp, JournalFile: c.journal} {
			if b != nil || name == JournalFile {
				_ = os.WriteFile(filepath.Join(d, name), b, 0o644)
			}
		}
		j, gotCP, gotJour, err := collect(t, d)
		if err != nil || fmt.Sprint(gotCP) != c.wantCP || fmt.Sprint(gotJour) != c.wantJour {
			t.Fatalf("%s: checkpoint %v, journal %v, %v; want %s and %s", c.name, gotCP, gotJour, err, c.wantCP, c.wantJour)
		}
		// What is appended next is read back after the checkpoint.
		if err := j.Append(rec(10), dumpOf(11)); err != nil {
			t.Fatal(err)
		}
		j.Abandon()
		if _, gotCP, gotJour, err := collect(t, d); err != nil || fmt.Sprint(gotCP) != c.wantCP || fmt.Sprint(gotJour) != c.wantAfter {
			t.Fatalf("%s, then an append: checkpoint %v, journal %v, %v", c.name, gotCP, gotJour, err)
		}
	}

	// Two checkpoints later, the first journal belongs to neither.
	j, _, _, _ = collect(t, dir)
	_ = j.Append(rec(10), dumpOf(11))
	if err := j.Close(dumpOf(11)); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(path, old, 0o644)
	if j, _, _, err := collect(t, dir); !errors.Is(err, ErrCorrupt) {
		if j != nil {
			j.Abandon()
		}
		t.Errorf("a journal two generations behind its checkpoint: %v; want ErrCorrupt", err)
	}
}
