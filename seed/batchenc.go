package seed

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// batchEncoder marshals the documents of one batch back to back into one
// buffer (the bytes of bson.Marshal, however they are made: see marshal),
// reusing its scratch space from batch to batch: one allocation per batch
// instead of one per document. Each batch gets a new buffer, because its
// documents outlive the call.
type batchEncoder struct {
	collection string
	out        appendWriter
	enc        *bson.Encoder
	ends       []int
	doc        bson.D // reused from document to document
	lastSize   int    // bytes of the previous batch, to size the next buffer
	lastDocs   int
}

// appendWriter is the io.Writer the driver's document writer copies each
// finished document into.
type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

func newBatchEncoder(collection string) *batchEncoder {
	e := &batchEncoder{collection: collection}
	e.enc = bson.NewEncoder(bson.NewDocumentWriter(&e.out))
	return e
}

// encode marshals the documents r selects; an error names the document.
func (e *batchEncoder) encode(w *Worker, r Range, check func(bson.Raw) error) ([]bson.Raw, error) {
	n := int(r.Len())
	size := 512 * n
	if e.lastDocs > 0 {
		size = e.lastSize/e.lastDocs*n + e.lastSize/8
	}
	e.out.b = make([]byte, 0, size)
	e.ends = e.ends[:0]
	for i := r.From; i < r.To; i++ {
		start := len(e.out.b)
		err := e.marshal(w, i)
		if err == nil && check != nil {
			err = check(e.out.b[start:])
		}
		if err != nil {
			// The writer may be left mid-document: the next batch
			// starts from a fresh one.
			e.enc = bson.NewEncoder(bson.NewDocumentWriter(&e.out))
			return nil, &DocError{Collection: e.collection, Index: i, Err: err}
		}
		e.ends = append(e.ends, len(e.out.b))
	}
	buf := e.out.b
	e.out.b = nil
	e.lastSize, e.lastDocs = len(buf), n
	docs := make([]bson.Raw, n)
	start := 0
	for k, end := range e.ends {
		docs[k] = bson.Raw(buf[start:end:end]) // capped: appending to one never overwrites the next
		start = end
	}
	return docs, nil
}

// marshal appends document i to e.out: written directly by its kind when it
// can be, else built as a bson.D and appended, else left to the driver.
func (e *batchEncoder) marshal(w *Worker, i int64) error {
	start := len(e.out.b)
	var ok bool
	if e.out.b, ok = w.appendRaw(e.out.b, i); ok {
		return nil
	}
	e.out.b = e.out.b[:start]
	e.doc = w.appendDoc(e.doc, i)
	if e.out.b, ok = appendD(e.out.b, e.doc); ok {
		return nil
	}
	e.out.b = e.out.b[:start]
	return e.enc.Encode(e.doc)
}
