package crosscheck

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/oidkit/oidkit/oid"
	"github.com/oidkit/oidkit/verify"
)

// IDsOptions configures the differential check of package oid against the
// drivers.
type IDsOptions struct {
	// N is the number of random IDs checked beyond the spec vectors and edge
	// cases, and the number of IDs generated on each side.
	N int
	// Seed picks the random IDs: the same Seed and N check the same IDs.
	Seed uint64
	// Deep is how many IDs (the vectors, the edges, then the first random
	// ones) also go through the slower checks: BSON bytes, the driver's
	// Extended JSON, and mutated JSON input. 0 means 10,000.
	Deep int
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called now and then with the IDs done so far.
	Progress func(done, total int)
}

// Property names, in report order. Driver rows are repeated for v2 and v1.
const (
	rowVectors      = "spec vectors and worked example"
	rowBytes        = "bytes"
	rowHex          = "hex"
	rowTimestamp    = "Timestamp()"
	rowJSONOut      = "JSON out"
	rowOidIn        = `{"$oid"} and "hex" in`
	rowBSON         = "BSON and Extended JSON bytes"
	rowLength       = "parse: wrong length"
	rowBadChar      = "parse: bad characters"
	rowUpper        = "parse: upper and mixed case"
	rowSpace        = "parse: whitespace"
	rowJSONMutated  = "JSON in: mutated input"
	rowOursParse    = "oid IDs parse in the driver"
	rowDriverParse  = "driver IDs parse in oid"
	rowErrors       = "parse errors match ErrInvalidHex and name the input"
	rowSharedRandom = "generation: one random value per generator"
	rowCounters     = "generation: consecutive counters (mod 2^24)"
	rowWindow       = "generation: timestamps within the run's window"
)

var driverRowNames = []string{rowBytes, rowHex, rowTimestamp, rowJSONOut, rowOidIn, rowBSON,
	rowLength, rowBadChar, rowUpper, rowSpace, rowJSONMutated, rowOursParse, rowDriverParse}

const (
	v2 = "v2 bson.ObjectID"
	v1 = "v1 primitive.ObjectID"
)

// rows is one worker's set of rows, keyed by full row name.
type rows map[string]*verify.Row

func (r rows) get(name string) *verify.Row {
	if row, ok := r[name]; ok {
		return row
	}
	row := &verify.Row{Name: name}
	r[name] = row
	return row
}

// allowed counts, per documented difference, the mutated JSON inputs on
// which oid and a driver differ as the oid package doc says they do.
type allowed map[string]int64

// IDs runs the differential check and returns its report. Every row must
// pass; differences documented in package oid are checked by name (they must
// still hold as documented) and never count as mismatches.
func IDs(opts IDsOptions) *verify.Report {
	start := time.Now()
	if opts.N < 0 {
		opts.N = 0
	}
	if opts.Deep <= 0 {
		opts.Deep = 10_000
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	rep := verify.NewReport(fmt.Sprintf("verify ids: package oid against the Go driver (%s and %s), %d random IDs, seed %d",
		"go.mongodb.org/mongo-driver/v2", "v1", opts.N, opts.Seed))

	main := rows{}
	checkVectors(main.get(rowVectors))
	results := checkIDs(opts)
	checkGeneration(main, opts.N)
	totalAllowed := merge(main, results)
	layOut(rep, main)
	checkDifferences(rep, totalAllowed)
	rep.Note("elapsed %s", time.Since(start).Round(time.Millisecond))
	return rep
}

// idResult is what the check of a chunk of IDs found: its rows, and the
// documented differences it allowed.
type idResult struct {
	rows    rows
	allowed allowed
}

// checkIDs checks the fixed cases first, then the random IDs, split into
// chunks of a fixed size so that the same seed checks the same IDs
// whatever the number of workers; one result for the fixed cases, then
// one a chunk.
func checkIDs(opts IDsOptions) []idResult {
	fixed := edgeIDs()
	const chunk = 4096
	nChunks := (opts.N + chunk - 1) / chunk
	results := make([]idResult, nChunks+1)
	results[0] = idResult{rows{}, allowed{}}
	ir0 := newIDRows(results[0].rows)
	for i, id := range fixed {
		checkID(ir0, results[0].allowed, id, true, i)
	}
	var (
		mu   sync.Mutex
		done int
	)
	eachChunk(opts.Workers, nChunks, func(k int) {
		res := idResult{rows{}, allowed{}}
		ir := newIDRows(res.rows)
		rnd := rand.New(rand.NewPCG(opts.Seed, uint64(k)))
		lo, hi := k*chunk, min((k+1)*chunk, opts.N)
		for i := lo; i < hi; i++ {
			var id oid.ID
			binary.LittleEndian.PutUint64(id[0:8], rnd.Uint64())
			binary.LittleEndian.PutUint32(id[8:12], rnd.Uint32())
			checkID(ir, res.allowed, id, len(fixed)+i < opts.Deep, i)
		}
		results[k+1] = res
		if opts.Progress != nil {
			mu.Lock()
			done += hi - lo
			opts.Progress(done, opts.N)
			mu.Unlock()
		}
	})
	return results
}

// merge adds the rows of the results into main, in a fixed order, and
// returns the documented differences they allowed, in all.
func merge(main rows, results []idResult) allowed {
	totalAllowed := allowed{}
	for _, res := range results {
		for name, row := range res.rows {
			main.get(name).Add(row)
		}
		for name, n := range res.allowed {
			totalAllowed[name] += n
		}
	}
	return totalAllowed
}

// layOut puts the rows of main into rep, in the report's order.
func layOut(rep *verify.Report, main rows) {
	order := []string{rowVectors}
	for _, d := range drivers {
		for _, r := range driverRowNames {
			order = append(order, d.name+": "+r)
		}
	}
	order = append(order, rowErrors, rowSharedRandom, rowCounters, rowWindow)
	for _, name := range order {
		row := main.get(name)
		rep.Rows = append(rep.Rows, row)
	}
}

// checkDifferences checks that each documented difference still holds,
// a row each, and notes each with how many inputs it allowed.
func checkDifferences(rep *verify.Report, totalAllowed allowed) {
	for _, d := range Differences() {
		row := rep.Row("documented difference: " + d.Name)
		if err := d.Check(); err != nil {
			row.Failf("%s no longer holds as documented: %v", d.Name, err)
		} else {
			row.Pass()
		}
	}
	for _, d := range Differences() {
		if n := totalAllowed[d.Name]; n > 0 {
			rep.Note("%s: %s (%s mutated JSON inputs differed from a driver this way, as documented)", d.Name, d.Summary, verify.Thousands(n))
		} else {
			rep.Note("%s: %s", d.Name, d.Summary)
		}
	}
}

// edgeIDs are the spec vectors and the edge cases of the layout.
func edgeIDs() []oid.ID {
	hexes := []string{
		"000000000000000000000000", // all zero (bson-corpus)
		"ffffffffffffffffffffffff", // all ones (bson-corpus)
		"56e1fc72e0c917e9c4714161", // bson-corpus "Random"
		"507f1f77bcf86cd799439011", // the spec's example
		"6553f1003f2a91c8d4003039", // the worked example
		"6553f1003f2a91c8d400303a",
		"00000000bcf86cd799439011", // timestamp 0
		"7fffffffbcf86cd799439011", // timestamp 0x7FFFFFFF
		"80000000bcf86cd799439011", // timestamp 0x80000000
		"ffffffffbcf86cd799439011", // timestamp 0xFFFFFFFF
		"507f1f77bcf86cd799ffffff", // counter 0xFFFFFF
		"507f1f77bcf86cd799000000", // counter 0
		"507f1f770000000000439011", // zero random
		"507f1f77ffffffffff439011", // all-ones random
		"7fffffffffffffffffffffff",
		"800000000000000000000000",
	}
	ids := make([]oid.ID, len(hexes))
	for i, h := range hexes {
		ids[i] = oid.MustParse(h)
	}
	return ids
}

// eachChunk runs fn(k) for every k in [0, n) on at most workers goroutines,
// and returns when every call has returned.
func eachChunk(workers, n int, fn func(k int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for k := range next {
				fn(k)
			}
		})
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
}

// DrawSeed is a random seed for IDsOptions, below 2^63 so that a JSON
// reader that holds the report's seed in an int64 reads it exactly.
func DrawSeed() uint64 { return rand.Uint64() >> 1 }
