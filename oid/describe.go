package oid

import (
	"bufio"
	"io"
	"strconv"
	"time"
)

// AppendPartsJSON appends id's parts as one JSON object and a newline,
// fields in this order (what oidkit inspect --json prints):
// {"id":"...","timestamp":"...","unix":N,"random":"...","counter":N}
func (id ID) AppendPartsJSON(b []byte) []byte {
	r := id.Random()
	b = append(b, `{"id":"`...)
	b = id.AppendHex(b)
	b = append(b, `","timestamp":"`...)
	b = id.Timestamp().AppendFormat(b, time.RFC3339)
	b = append(b, `","unix":`...)
	b = strconv.AppendInt(b, id.Unix(), 10)
	b = append(b, `,"random":"`...)
	b = appendHexBytes(b, r[:])
	b = append(b, `","counter":`...)
	b = strconv.AppendUint(b, uint64(id.Counter()), 10)
	return append(b, "}\n"...)
}

// AppendPartsText appends id's parts as one readable line.
func (id ID) AppendPartsText(b []byte) []byte {
	r := id.Random()
	b = id.AppendHex(b)
	b = append(b, "  time "...)
	b = id.Timestamp().AppendFormat(b, time.RFC3339)
	b = append(b, "  unix "...)
	b = strconv.AppendInt(b, id.Unix(), 10)
	b = append(b, "  random "...)
	b = appendHexBytes(b, r[:])
	b = append(b, "  counter "...)
	b = strconv.AppendUint(b, uint64(id.Counter()), 10)
	return append(b, '\n')
}

func appendHexBytes(b, src []byte) []byte {
	const digits = "0123456789abcdef"
	for _, c := range src {
		b = append(b, digits[c>>4], digits[c&0xF])
	}
	return b
}

// AppendText appends the window's bounds as readable lines (what oidkit
// range prints): each bound's time, ID and operator, then the filter.
func (w Window) AppendText(b []byte) []byte {
	b = append(b, "from    "...)
	b = w.From.Timestamp().AppendFormat(b, time.RFC3339)
	b = append(b, "  "...)
	b = w.From.AppendHex(b)
	b = append(b, "  inclusive ($gte)\n"...)
	if w.HasTo {
		b = append(b, "to      "...)
		b = w.To.Timestamp().AppendFormat(b, time.RFC3339)
		b = append(b, "  "...)
		b = w.To.AppendHex(b)
		if w.ToInclusive {
			b = append(b, "  inclusive ($lte): the last second has no exclusive bound\n"...)
		} else {
			b = append(b, "  exclusive ($lt)\n"...)
		}
	}
	b = append(b, "filter  "...)
	b = w.AppendFilter(b)
	return append(b, '\n')
}

// WriteOptions say how Generator.Write writes IDs.
type WriteOptions struct {
	// At is the time of every ID; zero reads the clock for each batch, as
	// New does.
	At time.Time
	// EJSON writes {"$oid":"..."} instead of the bare hex.
	EJSON bool
}

// Write writes n IDs from g on w, one per line: 24 lowercase hex
// characters, or Extended JSON. An At outside MinTime..MaxTime is
// ErrTimeRange before anything is written; any other error is w's.
func (g *Generator) Write(w io.Writer, n int64, o WriteOptions) error {
	if !o.At.IsZero() {
		if err := CheckTime(o.At); err != nil {
			return err
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	ids := make([]ID, 4096)
	line := make([]byte, 0, 64)
	for left := n; left > 0; {
		batch := ids[:min(left, int64(len(ids)))]
		if o.At.IsZero() {
			g.Fill(batch)
		} else if err := g.FillWithTime(batch, o.At); err != nil {
			return err
		}
		for _, id := range batch {
			line = line[:0]
			if o.EJSON {
				line = append(line, `{"$oid":"`...)
				line = id.AppendHex(line)
				line = append(line, "\"}\n"...)
			} else {
				line = id.AppendHex(line)
				line = append(line, '\n')
			}
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
		left -= int64(len(batch))
	}
	return bw.Flush()
}
