package seed

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// batchEncoder marshals the documents of one batch back to back into one
// buffer (the bytes of bson.Marshal, however they are made: see marshal),
// reusing its scratch space from batch to batch: one allocation per batch
// instead of one per document. Each batch gets a new buffer, because its
// documents outlive the call, unless it is a Generator's.
type batchEncoder struct {
	collection string
	out        appendWriter
	enc        *bson.Encoder
	ends       []int
	doc        bson.D // reused from document to document
	lastSize   int    // bytes of the previous batch, to size the next buffer
	lastDocs   int
	// keep reuses the buffer and the document slice from batch to batch
	// (a Generator's): a batch is valid until the next.
	keep bool
	docs []bson.Raw
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
	if e.keep && cap(e.out.b) > 0 {
		e.out.b = e.out.b[:0]
	} else {
		e.out.b = make([]byte, 0, size)
	}
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
	e.lastSize, e.lastDocs = len(buf), n
	var docs []bson.Raw
	if e.keep {
		e.docs = slices.Grow(e.docs[:0], n)[:n]
		docs = e.docs
	} else {
		e.out.b = nil
		docs = make([]bson.Raw, n)
	}
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

// Generator marshals a collection's documents in the calling goroutine,
// range by range, into buffers it reuses: for a caller that looks at each
// batch and lets it go (verification compares stored documents with these),
// where a Stream's goroutines and fresh buffers would cost more than the
// documents. The documents are those of a Stream, byte for byte. A
// Generator is not safe for concurrent use; make one per goroutine.
type Generator struct {
	w   *Worker
	enc *batchEncoder
}

// NewGenerator returns a Generator of c's documents.
func (c *Collection) NewGenerator() *Generator {
	w, enc := c.NewWorker(), newBatchEncoder(c.Name())
	w.reuse, enc.keep = true, true
	return &Generator{w: w, enc: enc}
}

// Encode marshals the documents of r (clipped to the collection): valid
// until the next call, so a caller that keeps one copies it. An error is
// a *DocError.
func (g *Generator) Encode(r Range) ([]bson.Raw, error) {
	r = r.Within(g.w.c.Len())
	if r.Len() == 0 {
		return nil, nil
	}
	return g.enc.encode(g.w, r, nil)
}
