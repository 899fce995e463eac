package verify

import (
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// collState is what is known of one collection once read: which expected
// documents are there and which other _ids, so that references into it can
// be resolved.
type collState struct {
	e          *Expected
	rows       *collRows
	coll       *mongo.Collection
	refOnly    bool
	done       bool // read completely
	seen       []uint64
	unexpected map[idKey]struct{}
	stored     int64
	// othersCount counts the stored documents of other parts
	// (Expected.outside), which are not checked.
	othersCount int64
	// ids sums up every ObjectID _id read, other parts' included, as the
	// server's $toDate summary does (serverCheck).
	ids idSummary
}

func (s *collState) has(v bson.RawValue) bool {
	if !s.done {
		return false
	}
	if i, ok := s.e.src.lookup(v); ok && s.seen[i>>6]&(1<<(i&63)) != 0 {
		return true
	}
	// An _id of another part is that part's to write and to verify: a
	// part's references into it hold whether that part is written yet.
	if s.e.outside != nil {
		if _, ok := s.e.outside(v); ok {
			return true
		}
	}
	_, ok := s.unexpected[keyOf(v)]
	return ok
}

// other reports whether raw is a document of another part, counting it.
func (s *collState) other(raw bson.Raw) bool {
	if s.e.outside == nil {
		return false
	}
	idv, err := raw.LookupErr("_id")
	if err != nil {
		return false
	}
	if _, ok := s.e.outside(idv); ok {
		s.othersCount++
		return true
	}
	return false
}

// mark records that expected document i is stored; it reports whether it
// was already.
func (s *collState) mark(i int64) bool {
	w, b := i>>6, uint64(1)<<(i&63)
	was := s.seen[w]&b != 0
	s.seen[w] |= b
	return was
}

// rows of one collection, in report order.
type collRows struct {
	count, missing, unexpected, dups, equal, idType *Row
	createdAt, window, driver, order, server        *Row
	refs                                            []*Row
	indexes                                         *Row // nil when no index is expected
}

func (v *dbVerifier) rows(e *Expected) *collRows {
	p := e.Collection + ": "
	r := &collRows{
		count:      v.rep.Row(p + "count"),
		missing:    v.rep.Row(p + "missing _ids"),
		unexpected: v.rep.Row(p + "unexpected _ids"),
		dups:       v.rep.Row(p + "duplicated documents"),
		equal:      v.rep.Row(p + "documents equal (BSON bytes)"),
		idType:     v.rep.Row(p + "_id type"),
		createdAt:  v.rep.Row(p + "ObjectID timestamp = createdAt"),
		window:     v.rep.Row(p + "ObjectID timestamp in window"),
		driver:     v.rep.Row(p + "driver Timestamp() agrees"),
		order:      v.rep.Row(p + "sorted by _id = generation order"),
		server:     v.rep.Row(p + "timestamp on server ($toDate)"),
	}
	for _, ref := range e.refs {
		r.refs = append(r.refs, v.rep.Row(p+"references "+ref.Field+" -> "+ref.To))
	}
	if len(e.Indexes) > 0 {
		r.indexes = v.rep.Row(p + "indexes (key and options)")
	}
	return r
}

// finish skips the rows that had nothing to check, saying why, so that
// they do not read as failures of a check that never ran.
func (st *collState) finish() {
	r := st.rows
	if st.stored == 0 {
		for _, row := range append([]*Row{r.unexpected, r.dups, r.equal, r.idType, r.createdAt, r.window, r.driver, r.order}, r.refs...) {
			if row.Cases == 0 && !row.skipped {
				row.Skip("the collection is empty")
			}
		}
	}
	if st.e.Len() == 0 {
		for _, row := range []*Row{r.missing, r.order} {
			if row.Cases == 0 && !row.skipped {
				row.Skip("no document is expected")
			}
		}
	}
	if r.equal.Cases == 0 && !r.equal.skipped {
		r.equal.Skip("no stored document has an expected _id")
	}
	if r.order.Cases == 0 && !r.order.skipped {
		r.order.Skip("no stored document has an expected _id")
	}
	for _, row := range r.refs {
		if row.Cases == 0 && !row.skipped {
			row.Skip("no stored document has the field")
		}
	}
}
