package engine

// The engine's records in the data directory (package storage keeps the
// files): a journal record is {ops: [...]}, the changes of one commit as
// replay applies them; a checkpoint is the state as the same changes,
// collection by collection ("c", "o", "ci", then "p" for each document).

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/storage"
)

// openStore loads dir's checkpoint and journal and keeps journaling there.
func openStore(dir string) (*Store, error) {
	s := newStore()
	t := &tx{st: &state{dbs: map[string]map[string]*collection{}}, touched: map[*collection]bool{}}
	j, err := storage.Open(dir, t.replay, func(d bsoncore.Document) error {
		ops, _ := d.LookupErr("ops")
		for _, op := range bsonval.ArrayValues(ops) {
			if err := t.replay(bsoncore.Document(op.Data)); err != nil {
				return fmt.Errorf("replaying the journal: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.cur.Store(t.st)
	s.journal = j
	return s, nil
}

// journalRecord is the journal's record of one commit's changes.
func journalRecord(ops []bsoncore.Document) bsoncore.Document {
	size := 16 // the record's and the array's lengths, keys and ends
	for _, o := range ops {
		size += len(o) + 8
	}
	// one buffer of the record's size: a write's documents are copied once
	ri, out := bsoncore.ReserveLength(make([]byte, 0, size))
	out = bsonval.AppendDocArray(out, "ops", ops)
	out = append(out, 0)
	return bsoncore.UpdateLength(out, ri, int32(len(out[ri:])))
}

// dump is st as a checkpoint's records.
func dump(st *state) storage.Dump {
	return func(write func(bsoncore.Document) error) error {
		var err error
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
						for _, e := range bsonval.Elements(ix.spec) {
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
					err = write(putOp(db, name, r.doc, false))
					return err == nil
				})
			}
		}
		return err
	}
}
