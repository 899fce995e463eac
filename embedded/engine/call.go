package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

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
		return missing
	}
	return v
}

// collName is the command's collection: the value of its first field.
func (c *call) collName() (string, error) {
	v := elements(c.cmd)[0].Value()
	if v.Type != bsoncore.TypeString || v.StringValue() == "" {
		return "", mongoerr.New(mongoerr.InvalidNamespace, "collection name has invalid type %s", typeName(v.Type))
	}
	return v.StringValue(), nil
}
