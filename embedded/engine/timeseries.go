package engine

// Time-series collections: created with the timeseries option, they hold
// documents as any collection does (no buckets), refuse a document whose
// time field is not a date, are listed as "timeseries", and with
// expireAfterSeconds lose their documents past that age as a TTL index
// would remove them.

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// bucketSpans are MongoDB's bucketMaxSpanSeconds for each granularity.
var bucketSpans = map[string]int32{"seconds": 3600, "minutes": 86400, "hours": 2592000}

// timeSeriesOptions checks create's timeseries option and returns it as
// listCollections shows it (granularity and bucketMaxSpanSeconds filled).
func timeSeriesOptions(v bsoncore.Value) (bsoncore.Document, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'create.timeseries' is the wrong type '%s', expected type 'object'", bsonval.TypeName(v.Type))
	}
	var timeField, metaField, granularity string
	var span, rounding int32
	for _, e := range bsonval.Elements(bsoncore.Document(v.Data)) {
		a := e.Value()
		switch e.Key() {
		case "timeField", "metaField", "granularity":
			if a.Type != bsoncore.TypeString {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'timeseries.%s' is the wrong type '%s', expected type 'string'", e.Key(), bsonval.TypeName(a.Type))
			}
			*map[string]*string{"timeField": &timeField, "metaField": &metaField, "granularity": &granularity}[e.Key()] = a.StringValue()
		case "bucketMaxSpanSeconds", "bucketRoundingSeconds":
			n, ok := bsonval.IntOf(a)
			if !ok || n < 1 || n > 31536000 {
				return nil, mongoerr.New(mongoerr.InvalidOptions, "Timeseries '%s' must be between 1 and 31536000", e.Key())
			}
			if e.Key() == "bucketMaxSpanSeconds" {
				span = int32(n)
			} else {
				rounding = int32(n)
			}
		default:
			return nil, mongoerr.New(mongoerr.Location(40415), "BSON field 'timeseries.%s' is an unknown field.", e.Key())
		}
	}
	switch {
	case timeField == "":
		return nil, mongoerr.Missing(mongoerr.Location(40414), "timeseries.timeField")
	case metaField == "_id" || (metaField != "" && metaField == timeField):
		return nil, mongoerr.New(mongoerr.InvalidOptions, "The 'metaField' may not be '_id' or the same as the 'timeField'")
	case (span == 0) != (rounding == 0) || span != rounding:
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' must be given together and be equal")
	case span != 0 && granularity != "":
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Timeseries 'bucketMaxSpanSeconds' is not allowed with granularity")
	}
	b := bsoncore.NewDocumentBuilder().AppendString("timeField", timeField)
	if metaField != "" {
		b.AppendString("metaField", metaField)
	}
	if span == 0 {
		if granularity == "" {
			granularity = "seconds"
		}
		if span = bucketSpans[granularity]; span == 0 {
			return nil, mongoerr.New(mongoerr.BadValue, "Enumeration value '%s' for field 'timeseries.granularity' is not a valid value.", granularity)
		}
		b.AppendString("granularity", granularity)
	}
	return b.AppendInt32("bucketMaxSpanSeconds", span).Build(), nil
}

// timeField is the time field of a time-series collection ("" for others).
func timeField(col *collection) string {
	ts, err := col.opts.LookupErr("timeseries")
	if err != nil || ts.Type != bsoncore.TypeEmbeddedDocument {
		return ""
	}
	return bsonval.Text(bsonval.Lookup(bsoncore.Document(ts.Data), "timeField"))
}

// checkTimeField refuses a document of a time-series collection whose
// time field is not a date.
func checkTimeField(col *collection, doc bsoncore.Document) error {
	f := timeField(col)
	if f == "" {
		return nil
	}
	if v, err := doc.LookupErr(f); err != nil || v.Type != bsoncore.TypeDateTime {
		return mongoerr.New(mongoerr.BadValue, "'%s' must be present and contain a valid BSON UTC datetime value", f)
	}
	return nil
}

// ttlRule is a date field whose documents expire after secs seconds.
type ttlRule struct {
	path string
	secs int64
}

// ttlRules are col's TTL indexes, and for a time-series collection with
// expireAfterSeconds its time field.
func ttlRules(col *collection) []ttlRule {
	var out []ttlRule
	for _, ix := range col.indexes {
		if ix.ttl != nil && len(ix.fields) == 1 {
			out = append(out, ttlRule{ix.fields[0].Path, *ix.ttl})
		}
	}
	if f := timeField(col); f != "" {
		if v, err := col.opts.LookupErr("expireAfterSeconds"); err == nil && bsonval.IsNumber(v) {
			out = append(out, ttlRule{f, int64(bsonval.NumberFloat(v))})
		}
	}
	return out
}
