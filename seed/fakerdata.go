package seed

import (
	"github.com/brianvoe/gofakeit/v7/data"
)

// The lists gofakeit draws names from, looked up once: gofakeit looks them
// up in its data tables (six map reads) at every draw. A draw here is the
// same IntN over the same list, so documents stay gofakeit's byte for byte
// (TestFakerDrawsAreGofakeits).
var (
	firstNames = data.Data["person"]["first"]
	lastNames  = data.Data["person"]["last"]
)

// firstName is gofakeit's FirstName.
func (w *Worker) firstName() string { return firstNames[w.f.IntN(len(firstNames))] }

// lastName is gofakeit's LastName.
func (w *Worker) lastName() string { return lastNames[w.f.IntN(len(lastNames))] }

// appendPhone appends gofakeit's Phone: ten random digits, the first
// drawn again from 1-8 when it is 0.
func (w *Worker) appendPhone(dst []byte) []byte {
	at := len(dst)
	for range 10 {
		dst = append(dst, byte(w.f.IntN(10))+'0')
	}
	if dst[at] == '0' {
		dst[at] = byte(w.f.IntN(8)+1) + '0'
	}
	return dst
}
