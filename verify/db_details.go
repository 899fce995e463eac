package verify

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// details finishes the rows that need a look at expected documents beyond
// the one with the same _id: copies, and mismatches or missing documents
// whose expected content was not at hand during the read. It makes one pass
// over the expected documents, only when needed.
func (v *dbVerifier) details(ctx context.Context, st *collState, rd *readResult, missing []int64) error {
	found, err := v.lookBeyond(ctx, st.e, rd, missing)
	if err != nil {
		return err
	}
	v.reportCopies(st, found.copies, rd.overflow)
	describePending(st, rd.pending, found.docs)
	describeMissing(st, missing, found.ids)
	return nil
}

// copied is a stored document with the content of expected document of.
type copied struct {
	c    candidate
	of   int64
	ofID bson.RawValue
}

// beyond is what the details pass found among the expected documents.
type beyond struct {
	copies []copied                // in read order
	docs   map[int64]bson.Raw      // the expected documents of pending mismatches
	ids    map[int64]bson.RawValue // the _ids of missing documents
}

// lookBeyond passes over the expected documents when something needs it:
// each candidate is matched with the first expected document of the same
// content but another number.
func (v *dbVerifier) lookBeyond(ctx context.Context, e *Expected, rd *readResult, missing []int64) (*beyond, error) {
	found := &beyond{docs: map[int64]bson.Raw{}, ids: map[int64]bson.RawValue{}}
	wantDoc := map[int64]bool{}
	for _, p := range rd.pending {
		wantDoc[p.i] = true
	}
	wantID := map[int64]bool{}
	for _, i := range missing {
		wantID[i] = true
	}
	if len(rd.candidates) == 0 && len(wantDoc) == 0 && len(wantID) == 0 {
		return found, nil
	}
	copiedSeq := map[int64]bool{} // candidates seen as copies, by seq
	var done int64
	err := e.src.scan(ctx, func(i int64, doc bson.Raw) {
		if len(rd.candidates) > 0 {
			for _, c := range rd.candidates[digestOf(content(doc))] {
				if c.self != i && !copiedSeq[c.seq] {
					copiedSeq[c.seq] = true
					found.copies = append(found.copies, copied{c: c, of: i, ofID: idOf(doc)})
				}
			}
		}
		if wantDoc[i] {
			found.docs[i] = append(bson.Raw(nil), doc...)
		}
		if wantID[i] {
			found.ids[i] = idOf(doc)
		}
		done++
		if done%8192 == 0 {
			v.progress(e.Collection, "details", done, e.Len())
		}
	})
	slices.SortFunc(found.copies, func(a, b copied) int { return cmp.Compare(a.c.seq, b.c.seq) })
	return found, err
}

// idOf is a copy of the _id of doc.
func idOf(doc bson.Raw) bson.RawValue {
	idv, _ := doc.LookupErr("_id")
	return bson.RawValue{Type: idv.Type, Value: append([]byte(nil), idv.Value...)}
}

// reportCopies fills the row of duplicated documents.
func (v *dbVerifier) reportCopies(st *collState, copies []copied, overflow int64) {
	e, row := st.e, st.rows.dups
	for _, d := range copies {
		row.Failf("stored _id %s has the content of %s (_id %s)", showTyped(d.c.id), e.src.label(d.of), show(d.ofID))
	}
	row.Cases += st.stored - int64(len(copies))
	if overflow > 0 {
		v.rep.Note("%s: %d documents not searched for copies (over %d candidates)", e.Collection, overflow, maxCandidates)
	}
}

// describePending writes the messages of the mismatches the read counted
// but could not describe, before the ones it described (they come first in
// read order).
func describePending(st *collState, pending []pendingDiff, docs map[int64]bson.Raw) {
	e, row := st.e, st.rows.equal
	msgs := row.Examples
	row.Examples = nil
	for _, p := range pending {
		msg := fmt.Sprintf("%s (_id %s): differs", e.src.label(p.i), show(p.id))
		if want, ok := docs[p.i]; ok {
			diffs, total := diffDocs(p.stored, want)
			msg = fmt.Sprintf("%s (_id %s): %s", e.src.label(p.i), show(p.id), diffText(diffs, total))
		}
		row.Examples = append(row.Examples, msg)
	}
	for _, m := range msgs {
		if len(row.Examples) < MaxExamples {
			row.Examples = append(row.Examples, m)
		}
	}
}

// describeMissing fails the row of missing documents for those whose _id
// the read could not name.
func describeMissing(st *collState, missing []int64, ids map[int64]bson.RawValue) {
	e, row := st.e, st.rows.missing
	for _, i := range missing {
		msg := fmt.Sprintf("%s: not in the collection", e.src.label(i))
		if id, ok := ids[i]; ok {
			msg = fmt.Sprintf("%s (_id %s): not in the collection", e.src.label(i), show(id))
		}
		row.Failf("%s", msg)
	}
}

// diffText joins the differences of one document, saying how many more
// there are.
func diffText(diffs []string, total int) string {
	s := strings.Join(diffs, "; ")
	if total > len(diffs) {
		s += fmt.Sprintf("; and %d more", total-len(diffs))
	}
	return s
}
