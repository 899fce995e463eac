package audit

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oid"
)

// Options tune an Auditor. The zero value is usable: every zero field takes
// its default.
type Options struct {
	// Now is the instant "future" is measured from (default: time.Now()).
	Now time.Time
	// FutureTolerance is how far after Now an ID may be before it counts as
	// from the future (default 1 minute: clocks of writers differ a little).
	FutureTolerance time.Duration
	// SkewTolerance is the mean |_id time - time field| above which a
	// writer's clock counts as skewed (default 5 s).
	SkewTolerance time.Duration
	// MaxWriters bounds the writers tracked one by one (default 4096).
	MaxWriters int
	// Examples is how many examples a finding keeps (default 3).
	Examples int
}

func (o Options) withDefaults() Options {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.FutureTolerance <= 0 {
		o.FutureTolerance = time.Minute
	}
	if o.SkewTolerance <= 0 {
		o.SkewTolerance = 5 * time.Second
	}
	if o.MaxWriters <= 0 {
		o.MaxWriters = 4096
	}
	if o.Examples <= 0 {
		o.Examples = 3
	}
	return o
}

// Auditor accumulates the state of one audit. It is not safe for concurrent
// use; feed it from one goroutine in scan order.
type Auditor struct {
	opts Options

	types    [numKinds]int64
	typeEx   [numKinds]examples
	objectID int64

	minSecs, maxSecs uint32
	days             map[uint32]int64 // day number (secs/86400) -> IDs
	times            [numTimeFindings]finding

	writers   writerTable
	prev      oid.ID
	hasPrev   bool
	ascending int64 // consecutive ObjectIDs where the later is greater

	timed, untimed int64 // ObjectIDs with and without a time-field value
}

// New returns an empty Auditor.
func New(opts Options) *Auditor {
	opts = opts.withDefaults()
	return &Auditor{
		opts:    opts,
		days:    make(map[uint32]int64),
		writers: newWriterTable(opts.MaxWriters),
	}
}

// Add audits one _id value of any BSON type. at is the document's time
// field, or the zero time when it has none.
func (a *Auditor) Add(v bson.RawValue, at time.Time) {
	k := KindOf(v)
	if k == KindObjectID {
		if id, ok := v.ObjectIDOK(); ok {
			a.AddID(oid.ID(id), at)
			return
		}
	}
	a.types[k]++
	a.typeEx[k].add(a.opts.Examples, valueText(v))
}

// AddID audits one ObjectID. at is the document's time field, or the zero
// time when it has none.
func (a *Auditor) AddID(id oid.ID, at time.Time) {
	a.types[KindObjectID]++
	if len(a.typeEx[KindObjectID]) < a.opts.Examples {
		a.typeEx[KindObjectID].add(a.opts.Examples, id.Hex())
	}
	secs := uint32(id.Unix())
	if a.objectID == 0 || secs < a.minSecs {
		a.minSecs = secs
	}
	if a.objectID == 0 || secs > a.maxSecs {
		a.maxSecs = secs
	}
	a.objectID++
	a.days[secs/86400]++
	set := timeFindings(id, a.opts)
	if set != 0 {
		for f := range numTimeFindings {
			if set&(1<<f) != 0 {
				a.times[f].add(a.opts.Examples, id.Hex())
			}
		}
	}
	if a.hasPrev && id.Compare(a.prev) > 0 {
		a.ascending++
	}
	a.prev, a.hasPrev = id, true
	skew, timed := int64(0), !at.IsZero()
	if timed {
		a.timed++
		skew = int64(secs) - at.Unix()
	} else {
		a.untimed++
	}
	if set&(1<<findZeroTail) == 0 { // made from a time: no writer made it
		odd := set&(1<<findFuture|1<<findBefore2009|1<<findAtZero) != 0
		a.writers.add(id, skew, timed, odd, a.opts.Examples)
	}
}
