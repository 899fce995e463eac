package engine

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// call is one command being run.
type call struct {
	ctx  context.Context
	srv  *Server
	conn *conn
	txn  *txn // the transaction the command is part of, if any
	db   string
	cmd  bsoncore.Document
	name string

	published bool // a write of this call outside a transaction is published
}

func (c *call) arg(k string) bsoncore.Value {
	v, err := c.cmd.LookupErr(k)
	if err != nil {
		return bsonval.Missing
	}
	return v
}

// required is argument k, which the command must have, of type t; else
// MongoDB's error with code, naming the field as "<command>.<k>".
func (c *call) required(k string, t bsoncore.Type, code mongoerr.Code) (bsoncore.Value, error) {
	v := c.arg(k)
	if v.Type != t {
		return v, mongoerr.Missing(code, c.name+"."+k)
	}
	return v, nil
}

// collArg reads the collection as target names it (collName, or
// writeTarget for a command that writes), then argument k, which the
// command must have, as required reads it.
func (c *call) collArg(target func() (string, error), k string, t bsoncore.Type, code mongoerr.Code) (string, bsoncore.Value, error) {
	name, err := target()
	if err != nil {
		return "", bsonval.Missing, err
	}
	v, err := c.required(k, t, code)
	return name, v, err
}

// collName is the command's collection: the value of its first field.
func (c *call) collName() (string, error) {
	v := bsonval.Elements(c.cmd)[0].Value()
	if v.Type != bsoncore.TypeString || v.StringValue() == "" {
		return "", mongoerr.New(mongoerr.InvalidNamespace, "collection name has invalid type %s", bsonval.TypeName(v.Type))
	}
	return v.StringValue(), nil
}

// vars reads a command's let document.
func (c *call) vars() *expr.Vars {
	v := &expr.Vars{Vars: map[string]bsoncore.Value{}, Now: time.Now()}
	if l := c.arg("let"); l.Type == bsoncore.TypeEmbeddedDocument {
		for _, e := range bsonval.Elements(bsoncore.Document(l.Data)) {
			if ex, err := expr.Compile(e.Value(), v); err == nil {
				if r, err := ex.Eval(bsoncore.NewDocumentBuilder().Build(), nil); err == nil {
					v.Vars[e.Key()] = r
				}
			}
		}
	}
	return v
}

func (c *call) deadline() error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	return nil
}

// collation is the collation of the command's operation on collection
// name: its collation option, else the collection's default.
func (c *call) collation(name string) (*bsonval.Collator, error) {
	return commandCollation(c.arg("collation"), c.view().coll(c.db, name))
}

func docArg(c *call, k string) (bsoncore.Document, error) {
	v := c.arg(k)
	switch v.Type {
	case 0, bsoncore.TypeNull:
		return nil, nil
	case bsoncore.TypeEmbeddedDocument:
		return bsoncore.Document(v.Data), nil
	}
	return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected type 'object'", c.name, k, bsonval.TypeName(v.Type))
}

func intArg(c *call, k string) (int, error) {
	v := c.arg(k)
	if v.Type == 0 || v.Type == bsoncore.TypeNull {
		return 0, nil
	}
	if !bsonval.IsNumber(v) {
		return 0, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected types '[long, int, decimal, double']", c.name, k, bsonval.TypeName(v.Type))
	}
	return int(bsonval.NumberFloat(v)), nil
}

func (c *call) hasArg(k string) bool { return c.arg(k).Type != 0 }

func (c *call) hasBatchSize() bool {
	cur := c.arg("cursor")
	if cur.Type != bsoncore.TypeEmbeddedDocument {
		return false
	}
	_, err := bsoncore.Document(cur.Data).LookupErr("batchSize")
	return err == nil
}

// lookupOr is d's field k, or the missing value.
func lookupOr(d bsoncore.Document, k string) bsoncore.Value {
	if v, err := d.LookupErr(k); err == nil {
		return v
	}
	return bsonval.Missing
}

func batchSizeOf(cur bsoncore.Value) int {
	if cur.Type != bsoncore.TypeEmbeddedDocument {
		return 0
	}
	if v, err := bsoncore.Document(cur.Data).LookupErr("batchSize"); err == nil && bsonval.IsNumber(v) {
		if n := int(bsonval.NumberFloat(v)); n > 0 {
			return n
		}
		return zeroBatch
	}
	return 0
}
